import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { ensureGrpcIdentityDirectory } from "@docex/private-ca";
import { expect } from "chai";
import { GrpcIdentity } from "../src/grpc/identity.js";
import { createHttpApp } from "../src/http/app.js";
import {
  CLIENT_ADDRESS_HEADER,
  CLIENT_ADDRESS_PROOF_HEADER,
  CLIENT_ADDRESS_PROOF_LIFETIME_MS,
  ClientAddressSigner,
  ClientAddressVerifier,
  GATEWAY_CERTIFICATE_HEADER,
} from "../src/http/client-address.js";
import { Readiness } from "../src/http/readiness.js";
import { Metrics } from "../src/metrics.js";
import { closeHttp, listen } from "../src/runtime.js";
import { baseUrlOf, silentLogger } from "./support.js";

describe("client address: services believe only the gateway's signed header, never X-Forwarded-For (issue 39)", () => {
  let ours: string;
  let theirs: string;
  const servers: Server[] = [];

  before(async () => {
    ours = mkdtempSync(path.join(os.tmpdir(), "docex-client-address-"));
    theirs = mkdtempSync(path.join(os.tmpdir(), "docex-client-address-other-ca-"));
    await ensureGrpcIdentityDirectory(ours, ["gateway", "auth", "document"]);
    await ensureGrpcIdentityDirectory(theirs, ["gateway"]);
  });

  after(async () => {
    for (const server of servers) await closeHttp(server, 500);
    rmSync(ours, { recursive: true, force: true });
    rmSync(theirs, { recursive: true, force: true });
  });

  /** The auth service's HTTP app as kit builds it, answering the address it sees. */
  async function startService(identity: GrpcIdentity, now?: () => number): Promise<string> {
    const app = createHttpApp({
      logger: silentLogger,
      metrics: new Metrics("kit-test", { defaultMetrics: false }),
      readiness: new Readiness(),
      clientAddresses: new ClientAddressVerifier(identity, "auth", now),
      routes: (router) => {
        router.get("/address", (req, res) => {
          res.json({ client_address: req.clientAddress, ip: req.ip });
        });
      },
    });
    const server = await listen(app, "127.0.0.1", 0);
    servers.push(server);
    return baseUrlOf(server);
  }

  const seenBy = async (base: string, headers: Record<string, string> | [string, string][]) => {
    const response = await fetch(`${base}/address`, { headers });
    expect(response.status).to.equal(200);
    return (await response.json()) as { client_address: string; ip: string };
  };

  const signedAs = (dir: string, name: string, service: string, address: string, now?: () => number) =>
    new ClientAddressSigner(GrpcIdentity.fromDirectory(name, dir), now).headersFor(service, address);

  it("sees the peer's address when a direct caller forges X-Forwarded-For and an unsigned client address", async () => {
    const base = await startService(GrpcIdentity.fromDirectory("auth", ours));
    const seen = await seenBy(base, { "x-forwarded-for": "203.0.113.9", [CLIENT_ADDRESS_HEADER]: "203.0.113.10" });
    expect(seen).to.deep.equal({ client_address: "127.0.0.1", ip: "127.0.0.1" });
  });

  it("takes the address the gateway signed for this service", async () => {
    const base = await startService(GrpcIdentity.fromDirectory("auth", ours));
    const seen = await seenBy(base, [...signedAs(ours, "gateway", "auth", "203.0.113.7"), ["x-forwarded-for", "198.51.100.1"]]);
    expect(seen.client_address).to.equal("203.0.113.7");
    expect(seen.ip, "req.ip ignores X-Forwarded-For as well").to.equal("127.0.0.1");
    expect((await seenBy(base, signedAs(ours, "gateway", "auth", "2001:db8::5"))).client_address).to.equal("2001:db8::5");
  });

  it("refuses a signature of another service's certificate, of another CA's gateway, or made for another service", async () => {
    const base = await startService(GrpcIdentity.fromDirectory("auth", ours));
    const cases: [string, [string, string][]][] = [
      ["a service's own certificate (CN=document)", signedAs(ours, "document", "auth", "203.0.113.20")],
      ["a gateway certificate of another CA", signedAs(theirs, "gateway", "auth", "203.0.113.21")],
      ["the gateway's proof for the document service", signedAs(ours, "gateway", "document", "203.0.113.22")],
    ];
    for (const [label, headers] of cases) expect((await seenBy(base, headers)).client_address, label).to.equal("127.0.0.1");
  });

  it("refuses a signed address with another address put in, or a proof past its lifetime", async () => {
    const base = await startService(GrpcIdentity.fromDirectory("auth", ours));
    const signed = new Map(signedAs(ours, "gateway", "auth", "203.0.113.30"));
    const swapped = { ...Object.fromEntries(signed), [CLIENT_ADDRESS_HEADER]: "203.0.113.31" };
    expect((await seenBy(base, swapped)).client_address).to.equal("127.0.0.1");

    const longAgo = () => Date.now() - 10 * CLIENT_ADDRESS_PROOF_LIFETIME_MS;
    expect((await seenBy(base, signedAs(ours, "gateway", "auth", "203.0.113.32", longAgo))).client_address).to.equal("127.0.0.1");
    // A proof that claims a far expiry: as good as a long-lived credential, not believed.
    const future = () => Date.now() + 10 * CLIENT_ADDRESS_PROOF_LIFETIME_MS;
    expect((await seenBy(base, signedAs(ours, "gateway", "auth", "203.0.113.33", future))).client_address).to.equal("127.0.0.1");
  });

  it("stops believing a proof it verified once when the proof expires", async () => {
    let clock = Date.now();
    const base = await startService(GrpcIdentity.fromDirectory("auth", ours), () => clock);
    const headers = signedAs(ours, "gateway", "auth", "203.0.113.40", () => clock);
    expect((await seenBy(base, headers)).client_address).to.equal("203.0.113.40");
    clock += 2 * CLIENT_ADDRESS_PROOF_LIFETIME_MS;
    expect((await seenBy(base, headers)).client_address).to.equal("127.0.0.1");
  });

  it("refuses garbage in the proof and certificate headers without failing the request", async () => {
    const base = await startService(GrpcIdentity.fromDirectory("auth", ours));
    const garbage: Record<string, string>[] = [
      { [CLIENT_ADDRESS_HEADER]: "203.0.113.50", [CLIENT_ADDRESS_PROOF_HEADER]: "x.y", [GATEWAY_CERTIFICATE_HEADER]: "not base64 !" },
      {
        [CLIENT_ADDRESS_HEADER]: "203.0.113.51",
        [CLIENT_ADDRESS_PROOF_HEADER]: `${Date.now() + 1000}.AAAA`,
        [GATEWAY_CERTIFICATE_HEADER]: "AAAA",
      },
      { [CLIENT_ADDRESS_HEADER]: "not an address", [CLIENT_ADDRESS_PROOF_HEADER]: `${Date.now() + 1000}.AAAA` },
    ];
    for (const headers of garbage) expect((await seenBy(base, headers)).client_address).to.equal("127.0.0.1");
  });

  it("re-signs for a client only when the kept signature nears its end, and reuses it until then", () => {
    let clock = Date.now();
    const signer = new ClientAddressSigner(GrpcIdentity.fromDirectory("gateway", ours), () => clock);
    const first = signer.headersFor("auth", "203.0.113.60");
    expect(signer.headersFor("auth", "203.0.113.60")).to.equal(first);
    expect(signer.headersFor("document", "203.0.113.60")).to.not.equal(first);
    clock += CLIENT_ADDRESS_PROOF_LIFETIME_MS / 2 + 1;
    expect(signer.headersFor("auth", "203.0.113.60")).to.not.equal(first);
  });

  it("takes the address as sent with an insecure identity (GRPC_INSECURE, development only)", async () => {
    const base = await startService(GrpcIdentity.insecure("auth"));
    expect(
      (await seenBy(base, new ClientAddressSigner(GrpcIdentity.insecure("gateway")).headersFor("auth", "203.0.113.70"))).client_address,
    ).to.equal("203.0.113.70");
  });
});
