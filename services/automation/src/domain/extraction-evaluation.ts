import { type FieldDefinition, locateKey } from "@docex/annotations";
import type { Annotation, ExtractionEvaluation } from "./records.js";

/** Why a document was kept for manual validation: the field a threshold names (null for the document as a whole) and why. */
export interface AutomationBlocker {
  key: string | null;
  reason: string;
}

export interface EvaluationVerdict {
  met: boolean;
  /** Why not, one entry per threshold missed; empty when met. */
  blockers: AutomationBlocker[];
}

const hasText = (value: { value: string } | undefined) => value !== undefined && value.value.trim() !== "";

/**
 * Whether an extraction is good enough to skip manual validation: the document's confidence reaches
 * `document_confidence`, every required field has a value, and every field with a value reaches its
 * `min_confidence`. A value set by an automation rule in this run counts as certain; any other value
 * without a confidence (learned, typed by a person) does not reach a threshold. A table column is judged by
 * its table's confidence and is present when a row has a value in it.
 */
export function evaluateExtraction(
  evaluation: ExtractionEvaluation,
  schema: readonly FieldDefinition[],
  annotations: readonly Annotation[],
  documentConfidence: number | null,
  setByRules: ReadonlySet<string>,
): EvaluationVerdict {
  const blockers: AutomationBlocker[] = [];
  const block = (key: string | null, reason: string) => blockers.push({ key, reason });
  if (evaluation.documentConfidence === null) block(null, "document_confidence is not set");
  else if (documentConfidence === null) block(null, "the document has no confidence");
  else if (documentConfidence < evaluation.documentConfidence)
    block(null, `document confidence ${documentConfidence} is below ${evaluation.documentConfidence}`);

  for (const field of evaluation.fields) {
    const location = locateKey(schema, field.key);
    if (!location) {
      block(field.key, `${field.key} is not in the queue's schema`);
      continue;
    }
    const holderKey = location.kind === "column" ? location.table.key : location.field.key;
    const annotation = annotations.find((candidate) => candidate.key === holderKey);
    const present =
      location.kind === "column"
        ? (annotation?.rows ?? []).some((row) => hasText(row[field.key]))
        : location.field.type === "table"
          ? (annotation?.rows ?? []).length > 0
          : hasText(annotation) || (annotation?.values ?? []).some(hasText);
    if (!present) {
      if (field.required) block(field.key, `${field.key} is required and empty`);
      continue;
    }
    const confidence = setByRules.has(holderKey) ? 100 : annotation?.confidence;
    if (confidence === undefined) block(field.key, `${field.key} has no confidence`);
    else if (confidence < field.min_confidence) block(field.key, `${field.key} confidence ${confidence} is below ${field.min_confidence}`);
  }
  return { met: blockers.length === 0, blockers };
}
