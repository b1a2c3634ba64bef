export * from "./app.js";
export * from "./cached-token-verifier.js";
export * from "./config.js";
export * from "./jwks-check.js";
export * from "./route-matcher.js";
export * from "./routes.js";
export * from "./service-proxy.js";
export * from "./upstream-pool.js";
