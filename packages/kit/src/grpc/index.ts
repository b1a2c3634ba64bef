/** gRPC clients and servers with mutual TLS: `@docex/kit/grpc`. */
export * from "./client.js";
export * from "./identity.js";
export * from "./server.js";
