import type { GrpcClientOptions } from "@docex/kit";
import type { LearningDefinition } from "./generated/docex/learning/v1/Learning.js";
import { type Callers, createPromiseClient, type Handlers, loadService, type PromiseClient } from "./service-descriptor.js";

export type { SuggestedField } from "./generated/docex/learning/v1/SuggestedField.js";
export type { SuggestRequest } from "./generated/docex/learning/v1/SuggestRequest.js";
export type { SuggestResponse } from "./generated/docex/learning/v1/SuggestResponse.js";
export type { Supplier } from "./generated/docex/learning/v1/Supplier.js";

export const learningService = loadService<LearningDefinition>("learning.proto", "docex.learning.v1.Learning");

export type LearningHandlers = Handlers<LearningDefinition>;
export type LearningCallers = Callers<LearningDefinition>;
export type LearningClient = PromiseClient<LearningDefinition>;

export function createLearningClient(address: string, options: GrpcClientOptions): LearningClient {
  return createPromiseClient(learningService, address, options);
}
