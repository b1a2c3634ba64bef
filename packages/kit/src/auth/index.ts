/** Verifying access tokens: `@docex/kit/auth`. */
export * from "./cached-token-verifier.js";
export * from "./jwks-key-set.js";
export * from "./token-verifier.js";
