import type { webcrypto } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { createSecureContext, type PeerCertificate } from "node:tls";
import * as grpc from "@grpc/grpc-js";
import type * as X509 from "@peculiar/x509";
import type { Logger } from "../logger.js";

/** How often a GRPC_TLS_DIR is read again for renewed certificates (cert-manager writes them into the mounted Secret). */
export const GRPC_IDENTITY_REFRESH_MS = 60_000;

type Pem = { ca: Buffer; cert: Buffer; key: Buffer };

/**
 * The certificates of a GRPC_TLS_DIR for grpc-js' certificate-provider credentials: read at once (so the first
 * connection has them), then read again every `refreshMs` (three small files, on a timer that keeps no process
 * alive), and handed on when they changed. New connections take the renewed certificate and CA; open ones keep
 * theirs until they end (servers end them after `MAX_CONNECTION_AGE_MS`). A file that cannot be read, or a
 * certificate and key that do not match yet (one written before the other), keeps the last good ones.
 */
class DirectoryCertificates implements grpc.experimental.CertificateProvider {
  private readonly caListeners = new Set<grpc.experimental.CaCertificateUpdateListener>();
  private readonly identityListeners = new Set<grpc.experimental.IdentityCertificateUpdateListener>();

  constructor(
    private readonly files: { ca: string; cert: string; key: string },
    public current: Pem,
    refreshMs: number,
    private readonly logger?: Logger,
  ) {
    setInterval(() => void this.reread(), refreshMs).unref();
  }

  addCaCertificateListener(listener: grpc.experimental.CaCertificateUpdateListener): void {
    this.caListeners.add(listener);
    // After the caller has registered what waits for the update, as grpc-js' own providers do.
    process.nextTick(listener, { caCertificate: this.current.ca });
  }

  removeCaCertificateListener(listener: grpc.experimental.CaCertificateUpdateListener): void {
    this.caListeners.delete(listener);
  }

  addIdentityCertificateListener(listener: grpc.experimental.IdentityCertificateUpdateListener): void {
    this.identityListeners.add(listener);
    process.nextTick(listener, { certificate: this.current.cert, privateKey: this.current.key });
  }

  removeIdentityCertificateListener(listener: grpc.experimental.IdentityCertificateUpdateListener): void {
    this.identityListeners.delete(listener);
  }

  private async reread(): Promise<void> {
    let next: Pem;
    try {
      const [ca, cert, key] = await Promise.all([readFile(this.files.ca), readFile(this.files.cert), readFile(this.files.key)]);
      next = { ca, cert, key };
      // A certificate written before its key (or the other way round) is not a pair yet: wait for the next read.
      createSecureContext({ ca, cert, key });
    } catch (error) {
      this.logger?.warn({ err: error, files: this.files }, "the gRPC identity could not be read again; the last one stays in use");
      return;
    }
    const caChanged = !next.ca.equals(this.current.ca);
    const identityChanged = !next.cert.equals(this.current.cert) || !next.key.equals(this.current.key);
    if (!caChanged && !identityChanged) return;
    this.current = next;
    this.logger?.info({ files: this.files }, "renewed gRPC identity read: new connections use it");
    if (caChanged) for (const listener of this.caListeners) listener({ caCertificate: next.ca });
    if (identityChanged) for (const listener of this.identityListeners) listener({ certificate: next.cert, privateKey: next.key });
  }
}

/**
 * Who a process is on the service network: the CA every peer must be signed by, and the process's own
 * certificate and key (CN and DNS SAN = its service name). Servers require a client certificate of that
 * CA and read the caller's service name from it; clients present theirs and check that the server is
 * the service they meant to call. `GrpcIdentity.insecure` is the explicit development opt-out: plaintext,
 * no peer is identified and no caller list is enforced. An identity read from a directory follows renewals of
 * its files (`DirectoryCertificates`).
 */
export class GrpcIdentity {
  private constructor(
    readonly service: string,
    private readonly tls?: Pem,
    private readonly certificates?: DirectoryCertificates,
  ) {}

  /** Plaintext gRPC (GRPC_INSECURE=true): for a developer's machine only. */
  static insecure(service: string): GrpcIdentity {
    return new GrpcIdentity(service);
  }

  static fromPem(service: string, pem: { ca: Buffer | string; cert: Buffer | string; key: Buffer | string }): GrpcIdentity {
    return new GrpcIdentity(service, { ca: Buffer.from(pem.ca), cert: Buffer.from(pem.cert), key: Buffer.from(pem.key) });
  }

  /**
   * Reads `ca.crt`, `<service>.crt` and `<service>.key` of a GRPC_TLS_DIR, and again every `refreshMs` while they
   * are in use, so that renewed certificates are taken without a restart.
   */
  static fromDirectory(service: string, dir: string, options: { refreshMs?: number; logger?: Logger } = {}): GrpcIdentity {
    const files = { ca: path.join(dir, "ca.crt"), cert: path.join(dir, `${service}.crt`), key: path.join(dir, `${service}.key`) };
    const read = (file: string) => {
      if (!existsSync(file)) throw new Error(`GRPC_TLS_DIR=${dir} has no ${path.basename(file)} (the gRPC identity of ${service})`);
      return readFileSync(file);
    };
    const pem = { ca: read(files.ca), cert: read(files.cert), key: read(files.key) };
    const certificates = new DirectoryCertificates(files, pem, options.refreshMs ?? GRPC_IDENTITY_REFRESH_MS, options.logger);
    return new GrpcIdentity(service, pem, certificates);
  }

  get isInsecure(): boolean {
    return this.tls === undefined;
  }

  /** The CA, certificate and key in use now (renewals included); undefined when insecure. */
  currentPem(): Readonly<{ ca: Buffer; cert: Buffer; key: Buffer }> | undefined {
    return this.certificates?.current ?? this.tls;
  }

  /** TLS that requires a client certificate signed by the CA (the handshake fails without one). */
  serverCredentials(): grpc.ServerCredentials {
    if (!this.tls) return grpc.ServerCredentials.createInsecure();
    if (this.certificates) return grpc.experimental.createCertificateProviderServerCredentials(this.certificates, this.certificates, true);
    return grpc.ServerCredentials.createSsl(this.tls.ca, [{ cert_chain: this.tls.cert, private_key: this.tls.key }], true);
  }

  /** TLS presenting this process's certificate; the server must be signed by the CA. */
  channelCredentials(): grpc.ChannelCredentials {
    if (!this.tls) return grpc.credentials.createInsecure();
    if (this.certificates) return grpc.experimental.createCertificateProviderChannelCredentials(this.certificates, this.certificates);
    return grpc.credentials.createSsl(this.tls.ca, this.tls.key, this.tls.cert);
  }

  /**
   * Channel options that check the server's certificate names `serverService` whatever address it is
   * dialled on (127.0.0.1:9083, document:9083, a test's random port).
   */
  channelOptions(serverService: string): grpc.ChannelOptions {
    if (!this.tls) return {};
    return { "grpc.ssl_target_name_override": serverService, "grpc.default_authority": serverService };
  }
}

export interface GrpcIdentitySettings {
  /** A directory with ca.crt, <service>.crt and <service>.key; required unless GRPC_INSECURE. */
  GRPC_TLS_DIR?: string | undefined;
  GRPC_INSECURE: boolean;
}

/** The identity a service's configuration names; GRPC_INSECURE logs a warning, neither set is an error. */
export function grpcIdentityFromConfig(service: string, config: GrpcIdentitySettings, logger?: Logger): GrpcIdentity {
  if (config.GRPC_INSECURE) {
    logger?.warn(
      { service },
      "GRPC_INSECURE=true: service-to-service gRPC is plaintext and unauthenticated; any process on the network can call it (development only)",
    );
    return GrpcIdentity.insecure(service);
  }
  if (!config.GRPC_TLS_DIR) {
    throw new Error(
      "GRPC_TLS_DIR is not set: service-to-service gRPC needs mutual TLS (ca.crt, <service>.crt, <service>.key); set GRPC_INSECURE=true only on a development machine",
    );
  }
  return GrpcIdentity.fromDirectory(service, config.GRPC_TLS_DIR, { logger });
}

/**
 * The service name of a verified peer certificate (its CN), or undefined for a plaintext or
 * certificate-less peer. Only meaningful on a server that requires client certificates of its CA.
 */
export function serviceOfPeer(authContext: { sslPeerCertificate?: PeerCertificate } | null | undefined): string | undefined {
  const cn = authContext?.sslPeerCertificate?.subject?.CN;
  if (typeof cn === "string" && cn) return cn;
  if (Array.isArray(cn) && cn.length === 1 && typeof cn[0] === "string") return cn[0];
  return undefined;
}

// The private CA ----------------------------------------------------------------------------------

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

let x509Library: Promise<typeof X509> | undefined;

/**
 * @peculiar/x509, loaded on first use: only `npm start` and the certificate tools issue certificates, and a service
 * that never does is spared its 3 MB of heap (with reflect-metadata, which it needs, and the globals that sets).
 */
function loadX509(): Promise<typeof X509> {
  x509Library ??= (async () => {
    await import("reflect-metadata");
    const library = await import("@peculiar/x509");
    library.cryptoProvider.set(globalThis.crypto);
    return library;
  })();
  return x509Library;
}
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
  const x509 = await loadX509();
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

/** A certificate of `service` (CN and DNS SAN), for both server and client authentication, signed by `ca`. */
export async function issueGrpcCertificate(
  ca: GrpcCertificateAuthority,
  service: string,
  options: { validDays?: number } = {},
): Promise<{ certPem: string; keyPem: string }> {
  if (!/^[a-z][a-z0-9-]*$/.test(service)) throw new Error(`not a service name: ${service}`);
  const x509 = await loadX509();
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKeyDer = Buffer.from(ca.keyPem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, ""), "base64");
  const caKey = await globalThis.crypto.subtle.importKey("pkcs8", caKeyDer, ALGORITHM, false, ["sign"]);
  const keys = await globalThis.crypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
  const now = Date.now();
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
      new x509.SubjectAlternativeNameExtension([{ type: "dns", value: service }]),
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
