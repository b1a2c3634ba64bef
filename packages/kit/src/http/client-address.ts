import { createPrivateKey, type KeyObject, sign, verify, X509Certificate } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { BoundedCache } from "../bounded-cache.js";
import type { GrpcIdentity } from "../grpc/identity.js";

/** The client's address as the gateway read it (from its trusted proxies' X-Forwarded-For, else its peer). */
export const CLIENT_ADDRESS_HEADER = "docex-client-address";
/** `<expires at, epoch ms>.<ECDSA P-256 signature, base64url>` of the address, the receiving service and that time. */
export const CLIENT_ADDRESS_PROOF_HEADER = "docex-client-address-proof";
/** The gateway's certificate (DER, base64): the services check it chains to the docex CA and names `gateway`. */
export const GATEWAY_CERTIFICATE_HEADER = "docex-gateway-certificate";
/** The identity (certificate CN and DNS name) whose signature the services believe. */
export const GATEWAY_IDENTITY = "gateway";

/** How long a signed address is believed: long enough to reuse one signature for a client's burst, short for a replay. */
export const CLIENT_ADDRESS_PROOF_LIFETIME_MS = 60_000;
/** Clocks of the gateway's and the services' nodes may differ by this much. */
const CLOCK_SKEW_MS = 30_000;
/** The gateway signs again when less than this is left, so that a proof never expires on its way. */
const RENEW_BEFORE_MS = 30_000;
/** Bounds of the caches (an entry per client address and service): past it a cache starts afresh. */
const CACHE_ENTRIES = 10_000;
const MAX_CERTIFICATE_CHARS = 8192;
const MAX_PROOF_CHARS = 256;
const MAX_ADDRESS_CHARS = 64;

function signedText(service: string, address: string, expiresAt: number): string {
  return `docex-client-address/1\n${service}\n${address}\n${expiresAt}`;
}

/**
 * The gateway's side: the headers that tell `service` the client's address, signed with the gateway's own key
 * (its certificate, CN=gateway, of the docex CA). A signature is kept per service and address while it has more
 * than `RENEW_BEFORE_MS` to live, so a client's requests cost one signature a half-minute, not one each.
 * An insecure identity (GRPC_INSECURE, development only) sends the address unsigned.
 */
export class ClientAddressSigner {
  private readonly signed: BoundedCache<string, [string, string][]>;
  private key?: { pem: Buffer; object: KeyObject; certificate: string };

  constructor(
    private readonly identity: GrpcIdentity,
    private readonly now: () => number = Date.now,
  ) {
    this.signed = new BoundedCache({ maxEntries: CACHE_ENTRIES, now });
  }

  /** The headers to add to a request proxied to `service` for a client at `address`. */
  headersFor(service: string, address: string): [string, string][] {
    const pem = this.identity.currentPem();
    if (!pem) return [[CLIENT_ADDRESS_HEADER, address]];
    const cacheKey = `${service}\n${address}`;
    const now = this.now();
    const cached = this.signed.get(cacheKey);
    if (cached && this.key?.pem === pem.key) return cached;
    const key = this.keyOf(pem);
    const expiresAt = now + CLIENT_ADDRESS_PROOF_LIFETIME_MS;
    const signature = sign("sha256", Buffer.from(signedText(service, address, expiresAt)), { key: key.object, dsaEncoding: "ieee-p1363" });
    const headers: [string, string][] = [
      [CLIENT_ADDRESS_HEADER, address],
      [CLIENT_ADDRESS_PROOF_HEADER, `${expiresAt}.${signature.toString("base64url")}`],
      [GATEWAY_CERTIFICATE_HEADER, key.certificate],
    ];
    this.signed.set(cacheKey, headers, expiresAt - RENEW_BEFORE_MS);
    return headers;
  }

  private keyOf(pem: Readonly<{ cert: Buffer; key: Buffer }>): { pem: Buffer; object: KeyObject; certificate: string } {
    if (this.key?.pem !== pem.key) {
      // A renewed identity (a new key) makes every kept signature stale.
      this.signed.clear();
      this.key = { pem: pem.key, object: createPrivateKey(pem.key), certificate: new X509Certificate(pem.cert).raw.toString("base64") };
    }
    return this.key;
  }
}

/**
 * A service's side: the client address of a request. Only the gateway's signed `docex-client-address` is believed
 * (a certificate of the docex CA naming `gateway`, a signature over the address, this service's name and a time
 * not past); X-Forwarded-For never is. Anything else (no header, a forged or expired one, another service's
 * certificate, a direct caller) gets the connection's peer address. Verified proofs and certificates are kept
 * until they expire, so a client's requests cost one verification a minute. With an insecure identity
 * (GRPC_INSECURE, development only: nobody is identified on the service network) the header is taken as sent.
 */
export class ClientAddressVerifier {
  private readonly verified = new BoundedCache<string, number>({ maxEntries: CACHE_ENTRIES });
  /** Gateway replicas and renewals: a handful of certificates at a time. */
  private readonly certificates = new BoundedCache<string, { publicKey: KeyObject; validTo: number }>({ maxEntries: 16 });
  private ca?: { pem: Buffer; certificate: X509Certificate };

  constructor(
    private readonly identity: GrpcIdentity,
    /** This service's name: a proof signed for another service is not believed here. */
    private readonly service: string,
    private readonly now: () => number = Date.now,
  ) {}

  addressOf(req: IncomingMessage): string {
    const peer = req.socket.remoteAddress ?? "unknown";
    const address = single(req.headers[CLIENT_ADDRESS_HEADER]);
    if (!address || address.length > MAX_ADDRESS_CHARS || isIP(address) === 0) return peer;
    const pem = this.identity.currentPem();
    if (!pem) return address;
    const proof = single(req.headers[CLIENT_ADDRESS_PROOF_HEADER]);
    if (!proof || proof.length > MAX_PROOF_CHARS) return peer;
    return this.believes(pem.ca, address, proof, single(req.headers[GATEWAY_CERTIFICATE_HEADER])) ? address : peer;
  }

  private believes(caPem: Buffer, address: string, proof: string, certificate: string | undefined): boolean {
    const now = this.now();
    const dot = proof.indexOf(".");
    const expiresAt = Number(proof.slice(0, dot));
    if (dot < 1 || !Number.isSafeInteger(expiresAt)) return false;
    if (expiresAt + CLOCK_SKEW_MS < now || expiresAt > now + CLIENT_ADDRESS_PROOF_LIFETIME_MS + CLOCK_SKEW_MS) return false;
    const cacheKey = `${address}\n${proof}`;
    if (this.verified.get(cacheKey) !== undefined && this.ca?.pem === caPem) return true;
    const publicKey = certificate === undefined ? undefined : this.gatewayKeyOf(caPem, certificate, now);
    if (!publicKey) return false;
    const signature = Buffer.from(proof.slice(dot + 1), "base64url");
    const text = Buffer.from(signedText(this.service, address, expiresAt));
    if (!verify("sha256", text, { key: publicKey, dsaEncoding: "ieee-p1363" }, signature)) return false;
    this.verified.set(cacheKey, expiresAt);
    return true;
  }

  /** The public key of a gateway certificate of the CA in use, valid now; undefined for any other. */
  private gatewayKeyOf(caPem: Buffer, certificate: string, now: number): KeyObject | undefined {
    if (this.ca?.pem !== caPem) {
      // A renewed CA: what the old one vouched for is checked again.
      this.ca = { pem: caPem, certificate: new X509Certificate(caPem) };
      this.certificates.clear();
      this.verified.clear();
    }
    const known = this.certificates.get(certificate);
    if (known) return known.validTo > now ? known.publicKey : undefined;
    if (certificate.length > MAX_CERTIFICATE_CHARS) return undefined;
    let parsed: X509Certificate;
    try {
      parsed = new X509Certificate(Buffer.from(certificate, "base64"));
    } catch {
      return undefined;
    }
    const ca = this.ca.certificate;
    const validTo = Date.parse(parsed.validTo);
    const trusted =
      parsed.checkIssued(ca) &&
      parsed.verify(ca.publicKey) &&
      parsed.subject.split("\n").includes(`CN=${GATEWAY_IDENTITY}`) &&
      parsed.checkHost(GATEWAY_IDENTITY) !== undefined &&
      Date.parse(parsed.validFrom) <= now + CLOCK_SKEW_MS &&
      validTo > now;
    if (!trusted) return undefined;
    this.certificates.set(certificate, { publicKey: parsed.publicKey, validTo });
    return parsed.publicKey;
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}
