import { randomBytes } from "node:crypto";
import { TokenVerifier } from "@docex/kit/auth";
import { ClientAddressSigner } from "@docex/kit/http";
import { createLogger } from "@docex/kit/logger";
import type { RunningService } from "@docex/kit/runtime";
import { dropDatabase, EventRecorder, freePort, pinIn, SmtpSink, testGrpcIdentity, testServiceConfig } from "@docex/testkit";
import { type AuthConfig, configSchema, startAuthService } from "../../src/service.js";
import { MembershipStub } from "./membership-stub.js";
import { OidcProvider } from "./oidc-provider.js";
import { TestClock } from "./test-clock.js";

export type Overrides = Record<string, string | number>;

/** The auth events that reach the service's stream (the one its config names) from `since` on. */
export function authEventRecorder(config: AuthConfig, since: Date): Promise<EventRecorder> {
  const namespace = { stream: config.NATS_STREAM, subjectPrefix: config.NATS_SUBJECT_PREFIX };
  return EventRecorder.start({ subjects: ["docex.auth.>"], since, namespace, label: "auth" });
}

/** testServiceConfig knows only the kit's settings; the auth ones are laid over it here. */
export function authTestConfig(overrides: Overrides = {}): AuthConfig {
  return testServiceConfig("auth", { AUTH_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64"), ...overrides }, configSchema);
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** The client address, signed as the gateway passes it on. */
  address?: string;
  bearer?: string;
}

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers field by field
  body: any;
}

let addressCounter = 0;
/** A client address no other test uses, so per-address limits of one test do not touch another. */
/** Signs client addresses as the gateway does (the test CA's `gateway` certificate). */
const gatewaySigner = new ClientAddressSigner(testGrpcIdentity("gateway"));

export function newAddress(): string {
  addressCounter += 1;
  return `198.51.${Math.floor(addressCounter / 250)}.${(addressCounter % 250) + 1}`;
}

let emailCounter = 0;
export function newEmail(label: string): string {
  emailCounter += 1;
  return `${label}-${emailCounter}-${randomBytes(3).toString("hex")}@example.test`;
}

/** The auth service in-process with everything it talks to on 127.0.0.1: SMTP, OIDC, membership, JetStream. */
export class AuthHarness {
  private constructor(
    readonly config: AuthConfig,
    readonly running: RunningService,
    readonly clock: TestClock,
    readonly smtp: SmtpSink,
    readonly events: EventRecorder,
    readonly membership: MembershipStub,
    readonly oidc: OidcProvider,
    /** Every line the service logged, to check that no secret is among them. */
    readonly logs: string[],
  ) {}

  static async start(overrides: Overrides = {}): Promise<AuthHarness> {
    const [smtp, membership, oidc] = await Promise.all([
      SmtpSink.start(),
      MembershipStub.start(),
      OidcProvider.start("https://accounts.example.test", "docex-web"),
    ]);
    const port = await freePort();
    const config = authTestConfig({
      PORT: port,
      AUTH_JWKS_URL: `http://127.0.0.1:${port}/api/v2/auth/.well-known/jwks.json`,
      SMTP_URL: smtp.url,
      MEMBERSHIP_GRPC_ADDR: membership.address,
      SOCIAL_OIDC_ISSUERS: JSON.stringify([{ issuer: oidc.issuer, audience: oidc.audience, jwks_uri: oidc.jwksUri }]),
      ...overrides,
    });
    const logs: string[] = [];
    const logger = createLogger("auth", "debug", { write: (line: string) => logs.push(line) });
    const clock = new TestClock();
    const startedAt = new Date();
    const running = await startAuthService(config, { logger, clock });
    const events = await authEventRecorder(config, startedAt);
    return new AuthHarness(config, running, clock, smtp, events, membership, oidc, logs);
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.running.httpPort}`;
  }

  get jwksUrl(): string {
    return `${this.baseUrl}/api/v2/auth/.well-known/jwks.json`;
  }

  /** The verifier the gateway and every service use, pointed at this service's JWKS. */
  verifier(): TokenVerifier {
    return new TokenVerifier({ jwksUri: this.jwksUrl, issuer: this.config.JWT_ISSUER, audience: this.config.JWT_AUDIENCE });
  }

  async call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    if (options.address) for (const [name, value] of gatewaySigner.headersFor("auth", options.address)) headers[name] = value;
    if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
    const response = await fetch(`${this.baseUrl}/api/v2${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }

  /** Self-registration end to end, as a person would do it: returns the first tokens. */
  async onboard(email: string, password: string, extra: Record<string, unknown> = {}): Promise<{ tokens: Answer; userId: string }> {
    const address = newAddress();
    const before = this.smtp.mailsTo(email).length;
    const registered = await this.call("POST", "/auth/register", {
      body: { email, phone: "+420 777 000 000", ui_locale: "en", company: `${email} s.r.o.`, ...extra },
      address,
    });
    if (registered.status !== 202) throw new Error(`register answered ${registered.status}`);
    const pin = pinIn(await this.smtp.waitForMail(email, before + 1));
    const verified = await this.call("POST", "/auth/verify-onboarding-pin", { body: { email, pin }, address });
    const tokens = await this.call("POST", "/auth/change-password", {
      body: { token: verified.body.data.invitation_token, password },
      address,
    });
    if (tokens.status !== 200) throw new Error(`change-password answered ${tokens.status}: ${JSON.stringify(tokens.body)}`);
    const caller = await this.verifier().verify(tokens.body.data.access_token);
    return { tokens, userId: caller.userId };
  }

  async stop(): Promise<void> {
    await this.running.stop();
    await Promise.all([this.smtp.stop(), this.events.stop(), this.membership.stop(), this.oidc.stop()]);
    await dropDatabase(this.config.DATABASE_NAME);
  }
}
