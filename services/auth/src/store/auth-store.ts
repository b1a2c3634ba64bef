import type { Sql } from "@docex/kit/db";
import { SecretStore } from "./secret-store.js";
import { SessionStore } from "./session-store.js";
import { SigningKeyStore } from "./signing-key-store.js";
import { ThrottleStore } from "./throttle-store.js";
import { UsedIdTokenStore } from "./used-id-token-store.js";
import { UserStore } from "./user-store.js";

/** Every table of the auth database, behind one object the composition root hands out. */
export class AuthStore {
  readonly users: UserStore;
  readonly secrets: SecretStore;
  readonly sessions: SessionStore;
  readonly signingKeys: SigningKeyStore;
  readonly throttles: ThrottleStore;
  readonly usedIdTokens: UsedIdTokenStore;

  constructor(readonly sql: Sql) {
    this.users = new UserStore(this.sql);
    this.secrets = new SecretStore(this.sql);
    this.sessions = new SessionStore(this.sql);
    this.signingKeys = new SigningKeyStore(this.sql);
    this.throttles = new ThrottleStore(this.sql);
    this.usedIdTokens = new UsedIdTokenStore(this.sql);
  }
}
