export * from "./grpc-identity.js";
export * from "./infra.js";
export * from "./issuer.js";
export * from "./probe.js";
export * from "./raw-http.js";
export * from "./receiver.js";
export * from "./smtp-sink.js";
export * from "./wait.js";
