// Original file: document.proto


export interface ExpectValidatorResponseInput {
}

export interface ExpectValidatorResponse {
}
