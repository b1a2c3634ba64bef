// Original file: webhook.proto


export interface ValidateResponseInput {
  /**
   * "ok": the receiver answered and answer_json holds its answer.
   * "no_validator": no link or validation webhook applies to the document.
   * "unavailable": timeout, connection failure, non-2xx status, or an open circuit breaker.
   * "rejected": the answer was badly signed or not in either form of the spec.
   */
  'outcome'?: (string);
  /**
   * Why, for outcomes other than "ok"; safe to show to the user.
   */
  'reason'?: (string);
  /**
   * The answer normalised from either form of the spec, always complete (empty arrays when there is nothing):
   * {"replacements": [{"key", "value"}],
   * "messages": [{"key": string | null, "message", "severity": "error"|"warning"|"info"}],
   * "cells": [{"key", "row_index", "value"}],
   * "options": {"<field key>": [{"label", "value"}]}}
   * Contract: validationAnswerJson of src/json-fields.ts.
   */
  'answer_json'?: (string);
  /**
   * Time spent waiting for the receiver.
   */
  'duration_ms'?: (number);
  /**
   * The link's failure policy, for outcomes "unavailable" and "rejected": "allow" (the edit stands with a warning)
   * or "block" (an error message: the document cannot be exported until validation succeeds). Deprecated
   * validation webhooks are "allow"; an empty value (an older server) means "allow".
   */
  'failure_policy'?: (string);
  /**
   * For "unavailable" because the breaker of the queue's own link is open: how long (ms) until it lets a trial
   * call through; 0 otherwise. The document service no longer reads it (a validator's open breaker answers at once
   * here, and a queue's validators are in its cached queue record there); kept for older callers.
   */
  'link_open_for_ms'?: (number);
}

export interface ValidateResponse {
  /**
   * "ok": the receiver answered and answer_json holds its answer.
   * "no_validator": no link or validation webhook applies to the document.
   * "unavailable": timeout, connection failure, non-2xx status, or an open circuit breaker.
   * "rejected": the answer was badly signed or not in either form of the spec.
   */
  'outcome': (string);
  /**
   * Why, for outcomes other than "ok"; safe to show to the user.
   */
  'reason': (string);
  /**
   * The answer normalised from either form of the spec, always complete (empty arrays when there is nothing):
   * {"replacements": [{"key", "value"}],
   * "messages": [{"key": string | null, "message", "severity": "error"|"warning"|"info"}],
   * "cells": [{"key", "row_index", "value"}],
   * "options": {"<field key>": [{"label", "value"}]}}
   * Contract: validationAnswerJson of src/json-fields.ts.
   */
  'answer_json': (string);
  /**
   * Time spent waiting for the receiver.
   */
  'duration_ms': (number);
  /**
   * The link's failure policy, for outcomes "unavailable" and "rejected": "allow" (the edit stands with a warning)
   * or "block" (an error message: the document cannot be exported until validation succeeds). Deprecated
   * validation webhooks are "allow"; an empty value (an older server) means "allow".
   */
  'failure_policy': (string);
  /**
   * For "unavailable" because the breaker of the queue's own link is open: how long (ms) until it lets a trial
   * call through; 0 otherwise. The document service no longer reads it (a validator's open breaker answers at once
   * here, and a queue's validators are in its cached queue record there); kept for older callers.
   */
  'link_open_for_ms': (number);
}
