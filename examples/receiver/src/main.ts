import type { AddressInfo } from "node:net";
import { createReceiver } from "./receiver.js";

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const signingKey = process.env.DOCEX_SIGNING_KEY ?? "";
if (!/^[0-9a-f]{64}$/i.test(signingKey) && !/^whsec_[A-Za-z0-9+/]+=*$/.test(signingKey)) {
  fail(
    "DOCEX_SIGNING_KEY must be the organization's webhook signing key: the 64 hexadecimal characters docex returned, or its standard_webhooks_secret (whsec_…)",
  );
}
const scheme = process.env.DOCEX_SIGNATURE_SCHEME ?? "x-service-signature";
if (scheme !== "x-service-signature" && scheme !== "standard-webhooks") {
  fail(`DOCEX_SIGNATURE_SCHEME must be x-service-signature or standard-webhooks, not ${JSON.stringify(scheme)}`);
}
const port = Number(process.env.PORT ?? "3000");
if (!Number.isInteger(port) || port < 0 || port > 65_535) fail(`PORT must be a port number, not ${JSON.stringify(process.env.PORT)}`);
const host = process.env.HOST ?? "127.0.0.1";

const server = createReceiver({ signingKey, scheme });
server.listen(port, host, () => {
  const { port: bound } = server.address() as AddressInfo;
  console.log(JSON.stringify({ msg: "receiver listening", url: `http://${host}:${bound}/` }));
});

function stop(): void {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
}
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
