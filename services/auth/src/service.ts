import { parseEvent } from "@docex/events";
import type { Logger } from "@docex/kit/logger";
import { connectInfrastructure, type Infrastructure, type RunningService } from "@docex/kit/runtime";
import { authService } from "@docex/protos";
import { Counter } from "prom-client";
import { membershipOrganizations } from "./clients/membership.js";
import type { AuthConfig } from "./config.js";
import { ACCESS_TOKEN_TTL_SECONDS, AccessTokenIssuer } from "./domain/access-tokens.js";
import type { AuthDomain } from "./domain/auth-domain.js";
import { BackgroundWork } from "./domain/background-work.js";
import { ensureBootstrapOwner } from "./domain/bootstrap-owner.js";
import { addSeconds, type Clock, systemClock } from "./domain/clock.js";
import type { CredentialChecks } from "./domain/credential-checks.js";
import { Invitations } from "./domain/invitations.js";
import { Login } from "./domain/login.js";
import { LoginAttempts } from "./domain/login-attempts.js";
import { MailedTokens } from "./domain/mailed-tokens.js";
import type { MembershipOrganizations } from "./domain/membership-organizations.js";
import { SelfOnboarding } from "./domain/onboarding.js";
import { OneTimeSecrets } from "./domain/one-time-secrets.js";
import { PasswordChange } from "./domain/password-change.js";
import { PasswordHasher } from "./domain/passwords.js";
import { PersonalDataErasure } from "./domain/personal-data-erasure.js";
import { SealingKey } from "./domain/secrets.js";
import { Sessions } from "./domain/sessions.js";
import { SigningKeys } from "./domain/signing-keys.js";
import { SocialIdentityVerifier } from "./domain/social-identity.js";
import { Throttle } from "./domain/throttle.js";
import { TwoFactor } from "./domain/two-factor.js";
import { UserDirectory } from "./domain/user-directory.js";
import { authCallers, authHandlers } from "./grpc/auth-handlers.js";
import { authHttp } from "./http/routes.js";
import { MailDelivery } from "./mail/mail-delivery.js";
import { Mailer } from "./mail/mailer.js";
import { AuthStore } from "./store/auth-store.js";
import { deleteExpired } from "./store/housekeeping.js";
import { migrations } from "./store/migrations.js";

export { type AuthConfig, configSchema } from "./config.js";
export { ARGON2_PARAMETERS } from "./domain/passwords.js";

export interface AuthServiceOptions {
  logger?: Logger;
  /** Tests move time forward instead of waiting (token expiry, TOTP steps, lockouts). */
  clock?: Clock;
  /** Replaces the gRPC client of membership. */
  membership?: MembershipOrganizations;
}

const HOUSEKEEPING_INTERVAL_MS = 10 * 60_000;

/** Builds the auth service from its configuration and starts it; the handle stops it gracefully. */
export async function startAuthService(config: AuthConfig, options: AuthServiceOptions = {}): Promise<RunningService> {
  const clock = options.clock ?? systemClock;
  const infra = await connectInfrastructure("auth", config, { migrations, logger: options.logger });
  return infra.startOrClose(async () => {
    const store = new AuthStore(infra.sql);
    const membership = options.membership ?? membershipOrganizations(config.MEMBERSHIP_GRPC_ADDR, infra.grpcIdentity, infra.metrics);
    const mailDelivery = new MailDelivery(config.SMTP_URL, config.MAIL_FROM, infra.logger, mailCounter(infra));
    const background = new BackgroundWork(infra.logger);
    const domain = await buildDomain(config, infra, store, membership, mailDelivery, background, clock);
    // The first instance to start creates the signing key; doing it now keeps the first login fast.
    await domain.signingKeys.active();
    if (config.BOOTSTRAP_OWNER_EMAIL && config.BOOTSTRAP_OWNER_PASSWORD) {
      const outcome = await ensureBootstrapOwner(
        { sql: store.sql, users: store.users, hasher: domain.hasher, onboarding: domain.onboarding, clock },
        { email: config.BOOTSTRAP_OWNER_EMAIL, password: config.BOOTSTRAP_OWNER_PASSWORD },
      );
      infra.logger.info({ outcome }, "bootstrap owner checked");
    }

    const http = authHttp(domain, infra.verifier);
    const app = infra.httpApp(http);
    const grpc = infra.grpcServer();
    grpc.addService(authService.definition, authService.serviceName, authHandlers(domain.directory), authCallers);

    const housekeeping = setInterval(() => {
      const now = clock.now();
      deleteExpired(store.sql, now, addSeconds(now, -domain.signingKeys.publicationSeconds)).catch((error: unknown) =>
        infra.logger.warn({ err: error }, "housekeeping failed; next round retries"),
      );
    }, HOUSEKEEPING_INTERVAL_MS);
    housekeeping.unref();

    return infra.serve({
      app,
      grpc,
      subscriptions: [
        {
          durable: "auth__member_personal_data_erased",
          subject: "docex.member.personal_data_erased",
          handler: (payload) => domain.erasure.onMemberErased(parseEvent(payload, "member.personal_data_erased")),
        },
      ],
      onStop: async () => {
        clearInterval(housekeeping);
        await background.drain(Math.min(config.SHUTDOWN_TIMEOUT_MS, 5_000));
        await mailDelivery.close(Math.min(config.SHUTDOWN_TIMEOUT_MS, 5_000));
        membership.close();
      },
    });
  });
}

async function buildDomain(
  config: AuthConfig,
  infra: Infrastructure,
  store: AuthStore,
  membership: MembershipOrganizations,
  mailDelivery: MailDelivery,
  background: BackgroundWork,
  clock: Clock,
): Promise<AuthDomain & { hasher: PasswordHasher }> {
  const { sql, users } = store;
  const sealing = SealingKey.fromBase64(config.AUTH_KEY_ENCRYPTION_KEY);
  const credentialChecks = credentialCheckCounter(infra);
  const hasher = await PasswordHasher.create(credentialChecks);
  const events = infra.events;
  const mail = new Mailer(events, mailDelivery, config.AUTH_APP_URL, clock);
  const window = (limit: number, windowSeconds: number) => ({ limit, windowSeconds, maxLockoutSeconds: config.AUTH_LOCKOUT_MAX_SECONDS });
  const accountFromAddress = window(config.AUTH_ACCOUNT_FAILURE_LIMIT, config.AUTH_ACCOUNT_FAILURE_WINDOW_SECONDS);
  const address = window(config.AUTH_ADDRESS_FAILURE_LIMIT, config.AUTH_ADDRESS_FAILURE_WINDOW_SECONDS);
  const throttle = new Throttle(store.throttles, clock, {
    account_address: accountFromAddress,
    account: window(config.AUTH_ACCOUNT_TOTAL_FAILURE_LIMIT, config.AUTH_ACCOUNT_FAILURE_WINDOW_SECONDS),
    address,
    // The recovery paths have the same limits, counted apart from logins.
    recovery_account: accountFromAddress,
    recovery_address: address,
    mail_recipient: window(config.AUTH_MAIL_LIMIT_PER_RECIPIENT, config.AUTH_MAIL_WINDOW_SECONDS),
    mail_address: window(config.AUTH_MAIL_LIMIT_PER_ADDRESS, config.AUTH_MAIL_WINDOW_SECONDS),
  });
  const signingKeys = new SigningKeys(store.signingKeys, sealing, clock, {
    rotationIntervalSeconds: Math.round(config.AUTH_SIGNING_KEY_ROTATION_DAYS * 24 * 3600),
    tokenTtlSeconds: ACCESS_TOKEN_TTL_SECONDS,
  });
  const accessTokens = new AccessTokenIssuer(signingKeys, clock, { issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE });
  const sessions = new Sessions(sql, store.sessions, users, accessTokens, clock, config.AUTH_REFRESH_REUSE_GRACE_SECONDS);
  const secrets = new OneTimeSecrets(store.secrets, sealing, clock);
  const twoFactor = new TwoFactor(sql, users, store.sessions, sealing, throttle, clock, config.AUTH_TOTP_ISSUER, credentialChecks);
  const socialIdentity = new SocialIdentityVerifier(config.SOCIAL_OIDC_ISSUERS, clock);
  const attempts = new LoginAttempts(sql, events);
  const login = new Login(sql, users, hasher, secrets, twoFactor, sessions, socialIdentity, throttle, attempts, store.usedIdTokens);
  const onboarding = new SelfOnboarding(sql, users, secrets, mail, events, throttle, membership, clock, infra.logger, background);
  const invitations = new Invitations(sql, users, secrets, membership, throttle, infra.logger);
  const passwordChange = new PasswordChange(
    users,
    store.sessions,
    hasher,
    secrets,
    sessions,
    onboarding,
    login,
    throttle,
    clock,
    invitations,
  );
  return {
    login,
    sessions,
    mailedTokens: new MailedTokens(sql, users, secrets, mail, throttle, background),
    passwordChange,
    invitations,
    onboarding,
    twoFactor,
    directory: new UserDirectory(sql, users, secrets, mail, throttle, clock),
    erasure: new PersonalDataErasure(sql, users, sessions, events, clock),
    signingKeys,
    throttle,
    hasher,
  };
}

/** `auth_credential_checks_total{kind}`: passwords and TOTP codes actually verified (not those the throttle refused first). */
function credentialCheckCounter(infra: Infrastructure): CredentialChecks {
  const counter = new Counter({
    name: "auth_credential_checks_total",
    help: "Credentials verified, by kind (password: argon2id verifications, totp: codes checked); attempts the throttle refused are not counted",
    labelNames: ["kind"],
    registers: [infra.metrics.registry],
  });
  for (const kind of ["password", "totp"]) counter.inc({ kind }, 0);
  return { checked: (kind) => counter.inc({ kind }) };
}

function mailCounter(infra: Infrastructure): Counter<"template" | "outcome"> {
  return new Counter({
    name: "auth_mail_deliveries_total",
    help: "Mail handed to SMTP, by template and outcome (sent, failed, skipped without SMTP_URL)",
    labelNames: ["template", "outcome"],
    registers: [infra.metrics.registry],
  });
}
