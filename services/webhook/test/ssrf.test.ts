import { createWebhookClient } from "@docex/protos";
import { eventually, testGrpcIdentity } from "@docex/testkit";
import { expect } from "chai";
import { ReceiverTransport } from "../src/delivery/receiver-transport.js";
import { forbiddenAddressReason, type HostResolver, TargetPolicy } from "../src/domain/target-policy.js";
import { type Hierarchy, type Person, WebhookHarness } from "./support/harness.js";

/** Host names the tests resolve themselves; nothing here asks a DNS server. */
const fakeDns: HostResolver = async (hostname) => {
  if (hostname === "rebind.test") return [{ address: "127.0.0.1", family: 4 }];
  if (hostname === "metadata.test") return [{ address: "169.254.169.254", family: 4 }];
  if (hostname === "mapped.test") return [{ address: "::ffff:10.0.0.1", family: 6 }];
  if (hostname === "localhost") return [{ address: "127.0.0.1", family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
};

describe("SSRF guard (real membership in-process; document service played by a gRPC double; DNS answered by the test)", () => {
  let harness: WebhookHarness;
  let owner: Person;
  let at: Hierarchy;
  let guarded: Awaited<ReturnType<WebhookHarness["startWebhook"]>>;

  before(async () => {
    harness = await WebhookHarness.start();
    const team = await harness.team([]);
    owner = team.owner;
    at = harness.hierarchy(team.organization.id);
    guarded = await harness.startWebhook({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "false" }, { resolver: fakeDns });
  });

  after(async () => {
    await harness.stop();
  });

  it("with private targets off, creation refuses loopback, private, link-local, mapped and unspecified targets, and names that resolve to them", async () => {
    const refused = [
      "http://127.0.0.1:8080/hook",
      "http://10.0.0.1/hook",
      "http://169.254.169.254/latest/meta-data/",
      "http://[::ffff:127.0.0.1]/hook",
      "http://[::1]:9000/hook",
      "http://100.64.0.1/hook",
      "http://0.0.0.0/hook",
      "http://224.0.0.1/hook",
      "http://localhost:8080/hook",
      "https://metadata.test/latest",
      "https://mapped.test/hook",
    ];
    for (const url of refused) {
      const answer = await harness.call("POST", "/webhooks", {
        as: owner,
        instance: guarded,
        body: { url, entity_type: "queue", entity_id: at.queueId },
      });
      expect(answer.status, url).to.equal(400);
      expect(answer.body.code, url).to.equal("url_not_allowed");
      expect(answer.body.errors[0].path, url).to.equal("url");
      // The kind of address, never the address a name resolved to (nor an internal host and port).
      expect(answer.body.errors[0].message, url).to.match(/^the URL's host (is|name resolves to) (a|an) [A-Za-z]/);
      for (const internal of ["127.0.0.1", "169.254.169.254", "10.0.0.1", "::ffff", "8080"]) {
        expect(JSON.stringify(answer.body), url).to.not.include(internal);
      }
    }
    const metadata = await harness.call("POST", "/webhooks", {
      as: owner,
      instance: guarded,
      body: { url: "https://metadata.test/latest", entity_type: "queue", entity_id: at.queueId },
    });
    expect(metadata.body.errors[0].message).to.equal("the URL's host name resolves to a link-local address (cloud metadata lives there)");
    const mapped = await harness.call("POST", "/webhooks", {
      as: owner,
      instance: guarded,
      body: { url: "https://mapped.test/hook", entity_type: "queue", entity_id: at.queueId },
    });
    expect(mapped.body.errors[0].message).to.equal("the URL's host name resolves to an IPv6 address carrying a private address");
    // A queue's link: the document service registers its receiver here, under the same rules (INVALID_ARGUMENT).
    const asDocument = createWebhookClient(`127.0.0.1:${guarded.running.grpcPort}`, {
      identity: testGrpcIdentity("document"),
      deadlineMs: 5_000,
    });
    try {
      const refused = await asDocument
        .registerValidationTarget({
          organization_id: at.organizationId,
          url: "http://10.0.0.1/validate",
          signature_verification: "disabled",
        })
        .then(
          () => undefined,
          (failure: Error) => failure,
        );
      expect(refused?.message).to.include("private");
    } finally {
      asDocument.close();
    }
    const listed = await harness.call("GET", `/queues/${at.queueId}/webhooks`, { as: owner, instance: guarded });
    expect(listed.body.data).to.deep.equal([]);
  });

  it("accepts a name that does not resolve yet (the connect-time guard judges it when it does), and refuses a PATCH to a private target", async () => {
    const created = await harness.call("POST", "/webhooks", {
      as: owner,
      instance: guarded,
      body: { url: "https://hooks.not-yet.test/x", entity_type: "queue", entity_id: at.queueId },
    });
    expect(created.status).to.equal(201);
    const patched = await harness.call("PATCH", `/webhooks/${created.body.data.id}`, {
      as: owner,
      instance: guarded,
      body: { url: "http://192.168.1.10/x" },
    });
    expect(patched.status).to.equal(400);
    await harness.call("DELETE", `/webhooks/${created.body.data.id}`, { as: owner, instance: guarded });
  });

  it("refuses at connect time the address actually dialled: a name resolving to loopback, and a loopback literal, reach nothing", async () => {
    // Created where private targets are allowed (the other instance on its database), sent by a replica that refuses them.
    const receiver = await harness.receiver();
    const port = new URL(receiver.url).port;
    const replica = await harness.startWebhook(
      {
        DATABASE_NAME: guarded.config.DATABASE_NAME,
        WEBHOOK_KEY_ENCRYPTION_KEY: guarded.config.WEBHOOK_KEY_ENCRYPTION_KEY,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      },
      { resolver: fakeDns },
    );
    const urls = [`http://rebind.test:${port}/rebound`, `http://localhost:${port}/named`, `http://127.0.0.1:${port}/literal`];
    const ids: string[] = [];
    for (const url of urls) {
      const answer = await harness.call("POST", "/webhooks", {
        as: owner,
        instance: replica,
        body: { url, entity_type: "queue", entity_id: at.queueId },
      });
      expect(answer.status, url).to.equal(201);
      ids.push(answer.body.data.id);
    }
    await harness.stopInstance(replica);

    await harness.statusChanged(at);
    for (const id of ids) {
      const [delivery] = await eventually(async () => {
        const list = (await harness.call("GET", `/webhooks/${id}/deliveries`, { as: owner, instance: guarded })).body.data;
        return list[0]?.attempts.length ? list : undefined;
      });
      expect(delivery.attempts[0].status_code).to.equal(null);
      expect(delivery.attempts[0].error).to.match(/^refused: the URL's host (is|name resolves to) a loopback address$/);
      expect(delivery.attempts[0].error).to.not.include("127.0.0.1");
    }
    expect(receiver.requests).to.have.length(0);
    for (const id of ids) await harness.call("DELETE", `/webhooks/${id}`, { as: owner, instance: guarded });
  });

  it("the transport judges every address a name resolves to when it connects, so a rebinding name reaches nothing", async () => {
    const receiver = await harness.receiver();
    let calls = 0;
    // The first answer (the check at creation) is a public address; the connection's own lookup gets loopback.
    const rebinding: HostResolver = async () =>
      ++calls === 1 ? [{ address: "93.184.216.34", family: 4 }] : [{ address: "127.0.0.1", family: 4 }];
    const policy = new TargetPolicy(false, rebinding);
    const url = `http://rebinding.test:${new URL(receiver.url).port}/x`;
    expect(await policy.check(new URL(url))).to.deep.equal({ allowed: true });
    const transport = new ReceiverTransport(policy);
    try {
      const result = await transport.post(url, "{}", { "content-type": "application/json" }, { timeoutMs: 2_000, excerptBytes: 1024 });
      expect(result.refused).to.equal(true);
      expect(result.statusCode).to.equal(null);
      expect(result.error).to.equal("refused: the URL's host name resolves to a loopback address");
    } finally {
      await transport.close();
    }
    expect(receiver.requests).to.have.length(0);
  });

  it("classifies addresses: IPv4 and IPv6 private ranges and IPv4 hidden in IPv6 are refused, public ones allowed", () => {
    for (const address of [
      "127.0.0.1",
      "10.0.0.1",
      "172.16.5.4",
      "192.168.0.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.251",
      "255.255.255.255",
      "::",
      "::1",
      "fe80::1",
      "fd12:3456::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:a9fe:a9fe",
      "64:ff9b::10.0.0.1",
      "2002:c0a8:0101::1",
    ]) {
      expect(forbiddenAddressReason(address), address).to.be.a("string");
    }
    for (const address of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
      expect(forbiddenAddressReason(address), address).to.equal(undefined);
    }
  });
});
