export * from "./auth.js";
export * from "./automation.js";
export * from "./document.js";
export * from "./json-fields.js";
export * from "./membership.js";
export * from "./register.js";
export {
  type Callers,
  type Handlers,
  identityOf,
  PROTO_DIR,
  PROTO_LOADER_OPTIONS,
  type PromiseClient,
  type ServiceDescriptor,
} from "./service-descriptor.js";
export * from "./webhook.js";
