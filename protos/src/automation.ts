import type { GrpcClientOptions } from "@docex/kit/grpc";
import type { AutomationDefinition } from "./generated/docex/automation/v1/Automation.js";
import { type Callers, createPromiseClient, type Handlers, loadService, type PromiseClient } from "./service-descriptor.js";

export type { GetQueueAutomationRequest } from "./generated/docex/automation/v1/GetQueueAutomationRequest.js";
export type { GetQueueAutomationResponse } from "./generated/docex/automation/v1/GetQueueAutomationResponse.js";
export type { PlanApprovalRouteRequest } from "./generated/docex/automation/v1/PlanApprovalRouteRequest.js";
export type { PlanApprovalRouteResponse } from "./generated/docex/automation/v1/PlanApprovalRouteResponse.js";

export const automationService = loadService<AutomationDefinition>("automation.proto", "docex.automation.v1.Automation");

export type AutomationHandlers = Handlers<AutomationDefinition>;
export type AutomationCallers = Callers<AutomationDefinition>;
export type AutomationClient = PromiseClient<AutomationDefinition>;

export function createAutomationClient(address: string, options: GrpcClientOptions): AutomationClient {
  return createPromiseClient(automationService, address, options);
}
