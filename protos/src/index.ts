// The service modules are written from the .proto files by generate-services.mjs (npm run generate).
export * from "./document.js";
export * from "./generated/services/auth.js";
export * from "./generated/services/automation.js";
export * from "./generated/services/document.js";
export * from "./generated/services/membership.js";
export * from "./generated/services/register.js";
export * from "./generated/services/webhook.js";
export * from "./json-fields.js";
export {
  type Callers,
  type Handlers,
  identityOf,
  PROTO_DIR,
  PROTO_LOADER_OPTIONS,
  type PromiseClient,
  type ServiceDescriptor,
} from "./service-descriptor.js";
