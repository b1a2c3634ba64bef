import { type ValidationAnswer, validationAnswerSchema } from "@docex/events";
import type { ValidationAnswerJson } from "@docex/protos";

/**
 * A validation answer in one shape whatever form the receiver chose (`answer_json` of protos/webhook.proto, whose
 * contract this is): replacement values, messages (key null: about the whole document), table cells by row index
 * (key: the column), and register options by field key.
 */
export type NormalisedAnswer = ValidationAnswerJson;

export type AnswerReading = { ok: true; answer: NormalisedAnswer } | { ok: false; reason: string };

const [arrayForm, objectForm] = validationAnswerSchema.options;

/**
 * Reads a receiver's raw answer. An empty body is an answer with nothing to say (a 204 is a fair way to say
 * "all good"). Anything else must be JSON in one of the spec's two forms: an array of `{key, value}`, or an
 * object whose `results` are validation answer objects. An answer object with an empty `key` speaks about the
 * whole document (its messages get key null).
 */
export function readAnswer(body: Buffer | null): AnswerReading {
  const text = body?.toString("utf8") ?? "";
  if (text.trim() === "") return { ok: true, answer: normalise([]) };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: "the answer is not JSON" };
  }
  const parsed = validationAnswerSchema.safeParse(json);
  if (parsed.success) return { ok: true, answer: normalise(parsed.data) };
  // Report against the form the receiver evidently meant, rather than the union's "no branch matched".
  const meant = Array.isArray(json) ? arrayForm : objectForm;
  const issue = meant.safeParse(json).error?.issues[0];
  const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  return {
    ok: false,
    reason: `the answer is in neither form of the spec (an array of {key, value}, or an object with results)${issue ? `; ${where}${issue.message}` : ""}`,
  };
}

function normalise(answer: ValidationAnswer): NormalisedAnswer {
  const normalised: NormalisedAnswer = { replacements: [], messages: [], cells: [], options: {} };
  if (Array.isArray(answer)) {
    normalised.replacements = answer.map(({ key, value }) => ({ key, value }));
    return normalised;
  }
  for (const result of answer.results) {
    if (result.value !== undefined) normalised.replacements.push({ key: result.key, value: result.value });
    for (const { message, severity } of result.validationResults ?? []) {
      normalised.messages.push({ key: result.key === "" ? null : result.key, message, severity });
    }
    for (const cell of result.results ?? []) normalised.cells.push({ key: cell.key, row_index: cell.rowIndex, value: cell.value });
    if (result.options) {
      const named = result.options.map(({ label, value }) => ({ label, value }));
      normalised.options[result.key] = [...(normalised.options[result.key] ?? []), ...named];
    }
  }
  return normalised;
}
