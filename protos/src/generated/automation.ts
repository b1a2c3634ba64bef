import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AutomationClient as _docex_automation_v1_AutomationClient, AutomationDefinition as _docex_automation_v1_AutomationDefinition } from './docex/automation/v1/Automation.js';
import type { GetQueueAutomationRequestInput as _docex_automation_v1_GetQueueAutomationRequestInput, GetQueueAutomationRequest as _docex_automation_v1_GetQueueAutomationRequest } from './docex/automation/v1/GetQueueAutomationRequest.js';
import type { GetQueueAutomationResponseInput as _docex_automation_v1_GetQueueAutomationResponseInput, GetQueueAutomationResponse as _docex_automation_v1_GetQueueAutomationResponse } from './docex/automation/v1/GetQueueAutomationResponse.js';
import type { PlanApprovalRouteRequestInput as _docex_automation_v1_PlanApprovalRouteRequestInput, PlanApprovalRouteRequest as _docex_automation_v1_PlanApprovalRouteRequest } from './docex/automation/v1/PlanApprovalRouteRequest.js';
import type { PlanApprovalRouteResponseInput as _docex_automation_v1_PlanApprovalRouteResponseInput, PlanApprovalRouteResponse as _docex_automation_v1_PlanApprovalRouteResponse } from './docex/automation/v1/PlanApprovalRouteResponse.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  docex: {
    automation: {
      v1: {
        /**
         * Automation: per-queue switches, accounting and approval rules, extraction evaluation.
         */
        Automation: SubtypeConstructor<typeof grpc.Client, _docex_automation_v1_AutomationClient> & { service: _docex_automation_v1_AutomationDefinition }
        GetQueueAutomationRequest: MessageTypeDefinition<_docex_automation_v1_GetQueueAutomationRequestInput, _docex_automation_v1_GetQueueAutomationRequest>
        GetQueueAutomationResponse: MessageTypeDefinition<_docex_automation_v1_GetQueueAutomationResponseInput, _docex_automation_v1_GetQueueAutomationResponse>
        PlanApprovalRouteRequest: MessageTypeDefinition<_docex_automation_v1_PlanApprovalRouteRequestInput, _docex_automation_v1_PlanApprovalRouteRequest>
        PlanApprovalRouteResponse: MessageTypeDefinition<_docex_automation_v1_PlanApprovalRouteResponseInput, _docex_automation_v1_PlanApprovalRouteResponse>
      }
    }
  }
}

