// Written by generate-services.mjs from automation.proto (npm run generate): do not edit.
import type { GrpcClientOptions } from "@docex/kit/grpc";
import { type Callers, createPromiseClient, type Handlers, loadService, type PromiseClient } from "../../service-descriptor.js";
import type { AutomationDefinition } from "../docex/automation/v1/Automation.js";

export type { GetQueueAutomationRequest } from "../docex/automation/v1/GetQueueAutomationRequest.js";
export type { GetQueueAutomationResponse } from "../docex/automation/v1/GetQueueAutomationResponse.js";
export type { PlanApprovalRouteRequest } from "../docex/automation/v1/PlanApprovalRouteRequest.js";
export type { PlanApprovalRouteResponse } from "../docex/automation/v1/PlanApprovalRouteResponse.js";

export const automationService = loadService<AutomationDefinition>("automation.proto", "docex.automation.v1.Automation");

export type AutomationHandlers = Handlers<AutomationDefinition>;
export type AutomationCallers = Callers<AutomationDefinition>;
export type AutomationClient = PromiseClient<AutomationDefinition>;

export function createAutomationClient(address: string, options: GrpcClientOptions): AutomationClient {
  return createPromiseClient<AutomationDefinition>(automationService, address, options);
}
