import type { Invitations } from "./invitations.js";
import type { Login } from "./login.js";
import type { MailedTokens } from "./mailed-tokens.js";
import type { SelfOnboarding } from "./onboarding.js";
import type { PasswordChange } from "./password-change.js";
import type { PersonalDataErasure } from "./personal-data-erasure.js";
import type { Sessions } from "./sessions.js";
import type { SigningKeys } from "./signing-keys.js";
import type { Throttle } from "./throttle.js";
import type { TwoFactor } from "./two-factor.js";
import type { UserDirectory } from "./user-directory.js";

/** The use cases of the identity context, as the HTTP and gRPC edges call them. */
export interface AuthDomain {
  login: Login;
  sessions: Sessions;
  mailedTokens: MailedTokens;
  passwordChange: PasswordChange;
  invitations: Invitations;
  onboarding: SelfOnboarding;
  twoFactor: TwoFactor;
  directory: UserDirectory;
  erasure: PersonalDataErasure;
  signingKeys: SigningKeys;
  throttle: Throttle;
}
