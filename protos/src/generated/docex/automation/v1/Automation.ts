// Original file: automation.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { GetQueueAutomationRequestInput as _docex_automation_v1_GetQueueAutomationRequestInput, GetQueueAutomationRequest as _docex_automation_v1_GetQueueAutomationRequest } from '../../../docex/automation/v1/GetQueueAutomationRequest.js';
import type { GetQueueAutomationResponseInput as _docex_automation_v1_GetQueueAutomationResponseInput, GetQueueAutomationResponse as _docex_automation_v1_GetQueueAutomationResponse } from '../../../docex/automation/v1/GetQueueAutomationResponse.js';
import type { PlanApprovalRouteRequestInput as _docex_automation_v1_PlanApprovalRouteRequestInput, PlanApprovalRouteRequest as _docex_automation_v1_PlanApprovalRouteRequest } from '../../../docex/automation/v1/PlanApprovalRouteRequest.js';
import type { PlanApprovalRouteResponseInput as _docex_automation_v1_PlanApprovalRouteResponseInput, PlanApprovalRouteResponse as _docex_automation_v1_PlanApprovalRouteResponse } from '../../../docex/automation/v1/PlanApprovalRouteResponse.js';

/**
 * Automation: per-queue switches, accounting and approval rules, extraction evaluation.
 */
export interface AutomationClient extends grpc.Client {
  /**
   * A queue automation has no settings for answers the defaults: everything disabled, no fields. Document asks it
   * only once per queue that predates its projection of the switches (at start); queue reads use the projection.
   */
  GetQueueAutomation(argument: _docex_automation_v1_GetQueueAutomationRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_automation_v1_GetQueueAutomationResponse>): grpc.ClientUnaryCall;
  GetQueueAutomation(argument: _docex_automation_v1_GetQueueAutomationRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_automation_v1_GetQueueAutomationResponse>): grpc.ClientUnaryCall;
  GetQueueAutomation(argument: _docex_automation_v1_GetQueueAutomationRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_automation_v1_GetQueueAutomationResponse>): grpc.ClientUnaryCall;
  GetQueueAutomation(argument: _docex_automation_v1_GetQueueAutomationRequestInput, callback: grpc.requestCallback<_docex_automation_v1_GetQueueAutomationResponse>): grpc.ClientUnaryCall;
  /**
   * A queue automation has no settings for answers the defaults: everything disabled, no fields. Document asks it
   * only once per queue that predates its projection of the switches (at start); queue reads use the projection.
   */
  getQueueAutomation(argument: _docex_automation_v1_GetQueueAutomationRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_automation_v1_GetQueueAutomationResponse>): grpc.ClientUnaryCall;
  getQueueAutomation(argument: _docex_automation_v1_GetQueueAutomationRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_automation_v1_GetQueueAutomationResponse>): grpc.ClientUnaryCall;
  getQueueAutomation(argument: _docex_automation_v1_GetQueueAutomationRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_automation_v1_GetQueueAutomationResponse>): grpc.ClientUnaryCall;
  getQueueAutomation(argument: _docex_automation_v1_GetQueueAutomationRequestInput, callback: grpc.requestCallback<_docex_automation_v1_GetQueueAutomationResponse>): grpc.ClientUnaryCall;
  
  /**
   * The approval route the queue's approval rules give a document with these annotations, worked out as a run on
   * document.extracted would (the automation_rules switch, rules in order, conditions on the annotations sent). Document
   * asks when a person moves a document to in_approval. UNAVAILABLE when a rule's condition could not be decided (the
   * register service did not answer).
   */
  PlanApprovalRoute(argument: _docex_automation_v1_PlanApprovalRouteRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_automation_v1_PlanApprovalRouteResponse>): grpc.ClientUnaryCall;
  PlanApprovalRoute(argument: _docex_automation_v1_PlanApprovalRouteRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_automation_v1_PlanApprovalRouteResponse>): grpc.ClientUnaryCall;
  PlanApprovalRoute(argument: _docex_automation_v1_PlanApprovalRouteRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_automation_v1_PlanApprovalRouteResponse>): grpc.ClientUnaryCall;
  PlanApprovalRoute(argument: _docex_automation_v1_PlanApprovalRouteRequestInput, callback: grpc.requestCallback<_docex_automation_v1_PlanApprovalRouteResponse>): grpc.ClientUnaryCall;
  /**
   * The approval route the queue's approval rules give a document with these annotations, worked out as a run on
   * document.extracted would (the automation_rules switch, rules in order, conditions on the annotations sent). Document
   * asks when a person moves a document to in_approval. UNAVAILABLE when a rule's condition could not be decided (the
   * register service did not answer).
   */
  planApprovalRoute(argument: _docex_automation_v1_PlanApprovalRouteRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_automation_v1_PlanApprovalRouteResponse>): grpc.ClientUnaryCall;
  planApprovalRoute(argument: _docex_automation_v1_PlanApprovalRouteRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_docex_automation_v1_PlanApprovalRouteResponse>): grpc.ClientUnaryCall;
  planApprovalRoute(argument: _docex_automation_v1_PlanApprovalRouteRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_docex_automation_v1_PlanApprovalRouteResponse>): grpc.ClientUnaryCall;
  planApprovalRoute(argument: _docex_automation_v1_PlanApprovalRouteRequestInput, callback: grpc.requestCallback<_docex_automation_v1_PlanApprovalRouteResponse>): grpc.ClientUnaryCall;
  
}

/**
 * Automation: per-queue switches, accounting and approval rules, extraction evaluation.
 */
export interface AutomationHandlers extends grpc.UntypedServiceImplementation {
  /**
   * A queue automation has no settings for answers the defaults: everything disabled, no fields. Document asks it
   * only once per queue that predates its projection of the switches (at start); queue reads use the projection.
   */
  GetQueueAutomation: grpc.handleUnaryCall<_docex_automation_v1_GetQueueAutomationRequest, _docex_automation_v1_GetQueueAutomationResponseInput>;
  
  /**
   * The approval route the queue's approval rules give a document with these annotations, worked out as a run on
   * document.extracted would (the automation_rules switch, rules in order, conditions on the annotations sent). Document
   * asks when a person moves a document to in_approval. UNAVAILABLE when a rule's condition could not be decided (the
   * register service did not answer).
   */
  PlanApprovalRoute: grpc.handleUnaryCall<_docex_automation_v1_PlanApprovalRouteRequest, _docex_automation_v1_PlanApprovalRouteResponseInput>;
  
}

export interface AutomationDefinition extends grpc.ServiceDefinition {
  GetQueueAutomation: MethodDefinition<_docex_automation_v1_GetQueueAutomationRequestInput, _docex_automation_v1_GetQueueAutomationResponseInput, _docex_automation_v1_GetQueueAutomationRequest, _docex_automation_v1_GetQueueAutomationResponse>
  PlanApprovalRoute: MethodDefinition<_docex_automation_v1_PlanApprovalRouteRequestInput, _docex_automation_v1_PlanApprovalRouteResponseInput, _docex_automation_v1_PlanApprovalRouteRequest, _docex_automation_v1_PlanApprovalRouteResponse>
}
