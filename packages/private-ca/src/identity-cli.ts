// Generates the gRPC service identities of a stack that has no cert-manager (docker compose's grpc-identity job):
//
//   node packages/private-ca/dist/identity-cli.js <dir> [--owner UID:GID] <service>...
//
// Keeps the CA and every certificate in <dir>/private (made once, kept on later runs; a new service gets
// its certificate), and gives each service a directory of its own, <dir>/<service>, with ca.crt,
// <service>.crt and <service>.key only: mount that one into the service as its GRPC_TLS_DIR, so that no
// service holds another's key or the CA's. --owner hands the files to the user the services run as.
import { chownSync, copyFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { ensureGrpcIdentityDirectory } from "./certificate-authority.js";

const args = process.argv.slice(2);
const ownerAt = args.indexOf("--owner");
const owner = ownerAt >= 0 ? args.splice(ownerAt, 2)[1] : undefined;
const [dir, ...services] = args;
if (!dir || services.length === 0) {
  process.stderr.write("usage: node packages/private-ca/dist/identity-cli.js <dir> [--owner UID:GID] <service>...\n");
  process.exit(2);
}
const [uid, gid] = (owner ?? "").split(":").map(Number);
const hand = (file: string) => {
  if (owner && Number.isInteger(uid) && Number.isInteger(gid)) chownSync(file, uid as number, gid as number);
};
const store = path.join(dir, "private");
const written = await ensureGrpcIdentityDirectory(store, services);
for (const service of services) {
  const own = path.join(dir, service);
  mkdirSync(own, { recursive: true, mode: 0o700 });
  hand(own);
  for (const file of ["ca.crt", `${service}.crt`, `${service}.key`]) {
    copyFileSync(path.join(store, file), path.join(own, file));
    hand(path.join(own, file));
  }
}
process.stdout.write(`gRPC identities in ${dir}: ${written.length > 0 ? `wrote ${written.join(", ")}` : "all present"}\n`);
