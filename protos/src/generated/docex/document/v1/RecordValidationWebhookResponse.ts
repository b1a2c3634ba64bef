// Original file: document.proto


export interface RecordValidationWebhookResponseInput {
}

export interface RecordValidationWebhookResponse {
}
