import { generateKeyPairSync, type KeyObject, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import jwt from "jsonwebtoken";

export interface MintOptions {
  expiresInSeconds?: number;
  notBeforeSeconds?: number;
  issuer?: string;
  audience?: string;
  kid?: string;
}

export interface TestUser {
  sub: string;
  email?: string;
  amr?: string[];
}

/**
 * A stand-in for the auth service's signing: an RSA key published as a JWKS over HTTP on
 * 127.0.0.1, and tokens minted with it, good and deliberately bad.
 */
export class TestIssuer {
  private current: { kid: string; privateKey: KeyObject; publicKey: KeyObject };
  /** Keys published besides the current one (the ones `rotate` retired). */
  private retired: { kid: string; publicKey: KeyObject }[] = [];
  /** How many times the JWKS was asked for. */
  jwksRequests = 0;
  /** While false the JWKS answers 503, as an auth service that is down. */
  jwksAvailable = true;

  private constructor(
    private readonly server: Server,
    readonly issuer: string,
    readonly audience: string,
    keys: { privateKey: KeyObject; publicKey: KeyObject },
  ) {
    this.current = { kid: `test-${randomUUID()}`, ...keys };
  }

  /** The kid of the key tokens are signed with now. */
  get kid(): string {
    return this.current.kid;
  }

  get publicKey(): KeyObject {
    return this.current.publicKey;
  }

  private get privateKey(): KeyObject {
    return this.current.privateKey;
  }

  static async start(options: { issuer?: string; audience?: string } = {}): Promise<TestIssuer> {
    const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
    let issuer: TestIssuer | undefined;
    const server = createServer((req, res) => {
      if (req.url?.endsWith("/jwks.json") && issuer) {
        issuer.jwksRequests += 1;
        if (!issuer.jwksAvailable) {
          res.statusCode = 503;
          res.end();
          return;
        }
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify(issuer.jwks()));
        return;
      }
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    issuer = new TestIssuer(server, options.issuer ?? "docex", options.audience ?? "docex-api", keys);
    return issuer;
  }

  /** A key rotation: tokens are signed with a new key under a new kid from now on; the old key stays published unless told. */
  rotate(options: { keepPrevious?: boolean } = {}): void {
    if (options.keepPrevious ?? true) this.retired.push({ kid: this.current.kid, publicKey: this.current.publicKey });
    else this.retired = [];
    this.current = { kid: `test-${randomUUID()}`, ...generateKeyPairSync("rsa", { modulusLength: 2048 }) };
  }

  get jwksUri(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/.well-known/jwks.json`;
  }

  jwks() {
    return {
      keys: [this.current, ...this.retired].map(({ kid, publicKey }) => ({
        ...publicKey.export({ format: "jwk" }),
        kid,
        alg: "RS256",
        use: "sig",
      })),
    };
  }

  /** A valid access token for `user`, unless the options make it otherwise. */
  mint(user: TestUser, options: MintOptions = {}): string {
    const now = Math.floor(Date.now() / 1000);
    const payload: Record<string, unknown> = {
      sub: user.sub,
      email: user.email ?? `${user.sub}@example.test`,
      amr: user.amr ?? ["pwd"],
      jti: randomUUID(),
      iat: now,
      exp: now + (options.expiresInSeconds ?? 900),
    };
    if (options.notBeforeSeconds !== undefined) payload.nbf = now + options.notBeforeSeconds;
    return jwt.sign(payload, this.privateKey, {
      algorithm: "RS256",
      keyid: options.kid ?? this.kid,
      issuer: options.issuer ?? this.issuer,
      audience: options.audience ?? this.audience,
    });
  }

  /** Forged tokens an attacker might send. */
  forged(user: TestUser) {
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: user.sub, email: user.email ?? "x@example.test", iss: this.issuer, aud: this.audience, iat: now, exp: now + 900 };
    const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    const valid = this.mint(user);
    const [header, , signature] = valid.split(".");
    return {
      algNone: `${base64url({ alg: "none", typ: "JWT", kid: this.kid })}.${base64url(claims)}.`,
      hs256WithPublicKey: jwt.sign(claims, this.publicKey.export({ format: "pem", type: "spki" }).toString(), {
        algorithm: "HS256",
        keyid: this.kid,
      }),
      unknownKey: jwt.sign(claims, otherKey, { algorithm: "RS256", keyid: `unknown-${randomUUID()}` }),
      wrongKeySameKid: jwt.sign(claims, otherKey, { algorithm: "RS256", keyid: this.kid }),
      expired: this.mint(user, { expiresInSeconds: -60 }),
      notYetValid: this.mint(user, { notBeforeSeconds: 600 }),
      wrongAudience: this.mint(user, { audience: "someone-else" }),
      wrongIssuer: this.mint(user, { issuer: "https://evil.example" }),
      tamperedPayload: `${header}.${base64url({ ...claims, sub: "00000000-0000-0000-0000-000000000000" })}.${signature}`,
    };
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
