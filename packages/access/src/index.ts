export * from "./membership-permissions.js";
export * from "./permission-cache.js";
export * from "./rule.js";
