import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AutomationClient as _docex_automation_v1_AutomationClient, AutomationDefinition as _docex_automation_v1_AutomationDefinition } from './docex/automation/v1/Automation.js';
import type { GetQueueAutomationRequestInput as _docex_automation_v1_GetQueueAutomationRequestInput, GetQueueAutomationRequest as _docex_automation_v1_GetQueueAutomationRequest } from './docex/automation/v1/GetQueueAutomationRequest.js';
import type { GetQueueAutomationResponseInput as _docex_automation_v1_GetQueueAutomationResponseInput, GetQueueAutomationResponse as _docex_automation_v1_GetQueueAutomationResponse } from './docex/automation/v1/GetQueueAutomationResponse.js';

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
      }
    }
  }
}

