/** The HTTP edge of a service: app, problems, pagination, readiness: `@docex/kit/http`. */
export * from "./app.js";
export * from "./client-address.js";
export * from "./operations.js";
export * from "./pagination.js";
export * from "./problem.js";
export * from "./readiness.js";
export * from "./request-id.js";
