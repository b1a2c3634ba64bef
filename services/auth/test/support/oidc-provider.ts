import { generateKeyPairSync, type KeyObject, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import jwt from "jsonwebtoken";

/** A social identity provider on 127.0.0.1: a JWKS endpoint and id_tokens signed with its key. */
export class OidcProvider {
  readonly kid = randomUUID();
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;

  private constructor(
    private readonly server: Server,
    readonly issuer: string,
    readonly audience: string,
  ) {
    const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
    this.privateKey = keys.privateKey;
    this.publicKey = keys.publicKey;
  }

  static async start(issuer: string, audience: string): Promise<OidcProvider> {
    let provider: OidcProvider | undefined;
    const server = createServer((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({ keys: [{ ...provider!.publicKey.export({ format: "jwk" }), kid: provider!.kid, alg: "RS256", use: "sig" }] }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    provider = new OidcProvider(server, issuer, audience);
    return provider;
  }

  get jwksUri(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/jwks`;
  }

  /** An id_token for `email`, valid unless the overrides make it otherwise. */
  idToken(email: string, nowSeconds: number, overrides: Record<string, unknown> = {}): string {
    const claims = {
      iss: this.issuer,
      aud: this.audience,
      sub: randomUUID(),
      email,
      email_verified: true,
      iat: nowSeconds,
      exp: nowSeconds + 300,
      ...overrides,
    };
    // An override of `undefined` leaves the claim out.
    const present = Object.fromEntries(Object.entries(claims).filter(([, value]) => value !== undefined));
    // jsonwebtoken adds an iat of its own unless told not to: a token without one must stay without.
    return jwt.sign(present, this.privateKey, { algorithm: "RS256", keyid: this.kid, noTimestamp: !("iat" in present) });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
