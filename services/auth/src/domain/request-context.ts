import type { SecondFactorProof } from "./two-factor.js";

/** What the edge knows about a request that the rules need. */
export interface RequestContext {
  /** The client's address as the trusted proxies report it; keys the per-address limits. */
  clientAddress: string;
  requestId?: string;
  /** `x-totp` and `x-otp-trusted-source`. */
  proof?: SecondFactorProof;
}
