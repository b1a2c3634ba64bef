import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { createSecureContext, type PeerCertificate } from "node:tls";
import * as grpc from "@grpc/grpc-js";
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
