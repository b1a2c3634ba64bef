import "reflect-metadata"; // @peculiar/x509's dependency injection needs it loaded first
import type { webcrypto } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(globalThis.crypto);

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const DAY_MS = 86_400_000;

export interface GrpcCertificateAuthority {
  certPem: string;
  keyPem: string;
}

async function exportKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await globalThis.crypto.subtle.exportKey("pkcs8", key));
  return `-----BEGIN PRIVATE KEY-----\n${der
    .toString("base64")
    .match(/.{1,64}/g)
    ?.join("\n")}\n-----END PRIVATE KEY-----\n`;
}

function serialNumber(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f; // a positive INTEGER
  return Buffer.from(bytes).toString("hex");
}

/** A new self-signed CA (ECDSA P-256) that may sign end-entity certificates only. */
export async function createGrpcCertificateAuthority(
  options: { commonName?: string; validDays?: number } = {},
): Promise<GrpcCertificateAuthority> {
  const keys = await globalThis.crypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: `CN=${options.commonName ?? "docex gRPC CA"}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + (options.validDays ?? 3650) * DAY_MS),
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString("pem"), keyPem: await exportKeyPem(keys.privateKey) };
}

export interface IssueOptions {
  validDays?: number;
  /** Names the certificate holds besides `service` (a test's server reached as localhost or by its address). */
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
}

/**
 * A certificate of `service` (CN and DNS SAN, with any further names of `options`), for both server and client
 * authentication, signed by `ca`.
 */
export async function issueGrpcCertificate(
  ca: GrpcCertificateAuthority,
  service: string,
  options: IssueOptions = {},
): Promise<{ certPem: string; keyPem: string }> {
  if (!/^[a-z][a-z0-9-]*$/.test(service)) throw new Error(`not a service name: ${service}`);
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKeyDer = Buffer.from(ca.keyPem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, ""), "base64");
  const caKey = await globalThis.crypto.subtle.importKey("pkcs8", caKeyDer, ALGORITHM, false, ["sign"]);
  const keys = await globalThis.crypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
  const now = Date.now();
  const names = [
    { type: "dns" as const, value: service },
    ...(options.dnsNames ?? []).map((value) => ({ type: "dns" as const, value })),
    ...(options.ipAddresses ?? []).map((value) => ({ type: "ip" as const, value })),
  ];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: `CN=${service}`,
    issuer: caCert.subject,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + (options.validDays ?? 825) * DAY_MS),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
      new x509.SubjectAlternativeNameExtension(names),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return { certPem: cert.toString("pem"), keyPem: await exportKeyPem(keys.privateKey) };
}

/**
 * Makes `dir` a GRPC_TLS_DIR for `services`: a CA (ca.crt, ca.key) if there is none, and a certificate of
 * every service that has none. Existing files are kept, so a developer's stack keeps its identities.
 * Returns the files written.
 */
export async function ensureGrpcIdentityDirectory(dir: string, services: readonly string[]): Promise<string[]> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const written: string[] = [];
  const write = (file: string, content: string, mode: number) => {
    writeFileSync(path.join(dir, file), content, { mode });
    written.push(file);
  };
  const caCert = path.join(dir, "ca.crt");
  const caKey = path.join(dir, "ca.key");
  let ca: GrpcCertificateAuthority;
  if (existsSync(caCert) && existsSync(caKey)) {
    ca = { certPem: readFileSync(caCert, "utf8"), keyPem: readFileSync(caKey, "utf8") };
  } else {
    ca = await createGrpcCertificateAuthority();
    write("ca.key", ca.keyPem, 0o600);
    write("ca.crt", ca.certPem, 0o644);
  }
  for (const service of services) {
    const certFile = `${service}.crt`;
    const keyFile = `${service}.key`;
    if (existsSync(path.join(dir, certFile)) && existsSync(path.join(dir, keyFile)) && !written.includes("ca.crt")) continue;
    const issued = await issueGrpcCertificate(ca, service);
    write(keyFile, issued.keyPem, 0o600);
    write(certFile, issued.certPem, 0o644);
  }
  return written;
}
