import type {
  Annotation,
  ValidationAnswerObject,
  ValidationAnswerResults,
  ValidationMessage,
  ValidationRequestPayload,
} from "@docex/webhook-kit";

/**
 * The example's validation: what an integrator would check against its own systems, here the IBAN (written
 * compactly, with correct check digits) and the total due. One entry per field that has something to say;
 * an empty answer means "nothing to add", and clears the messages of the previous answer.
 */
export function checkInvoice(request: ValidationRequestPayload): ValidationAnswerResults {
  const field = (key: string) => request.annotations.find((annotation) => annotation.key === key);
  const results: ValidationAnswerObject[] = [];
  const iban = field("iban");
  const ibanEntry = iban && iban.value.trim() !== "" ? checkIban(iban) : undefined;
  if (ibanEntry) results.push(ibanEntry);
  const total = field("total_due");
  if (!total || total.value.trim() === "") {
    results.push({ key: "total_due", validationResults: [{ severity: "warning", message: "The total due is empty." }] });
  }
  return { results };
}

function checkIban(iban: Annotation): ValidationAnswerObject | undefined {
  const compact = iban.value.replace(/\s+/g, "").toUpperCase();
  const rewritten = compact !== iban.value;
  const messages: ValidationMessage[] = [];
  if (rewritten) messages.push({ severity: "info", message: "IBAN rewritten without spaces, in capitals." });
  if (!hasValidCheckDigits(compact)) {
    messages.push({ severity: "error", message: "The IBAN's check digits are wrong; correct it before the document is exported." });
  }
  if (messages.length === 0) return undefined;
  return { key: "iban", ...(rewritten ? { value: compact } : {}), validationResults: messages };
}

/** ISO 13616: the first four characters moved to the end, letters as numbers (A = 10 … Z = 35), modulo 97 is 1. */
export function hasValidCheckDigits(iban: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  let remainder = 0;
  for (const char of iban.slice(4) + iban.slice(0, 4)) {
    const digits = char >= "A" ? String(char.charCodeAt(0) - 55) : char;
    for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}
