import { type FieldDefinition, locateKey } from "@docex/annotations";
import { ValidationError } from "@docex/kit/errors";
import { type AnnotationFields, type CellReplacement, checkAnnotations, replaceCells } from "./annotations.js";
import type { DocumentMessage, StoredDocument } from "./records.js";
import type { ValidationAnswer, ValidationChange } from "./validation.js";

type NewMessage = Omit<DocumentMessage, "source">;

/** As many as ApplyDocumentChanges takes, and as long. */
const MAX_MESSAGES = 500;
const MAX_MESSAGE_LENGTH = 2_000;
/** Problems named in the one warning about an answer's ignored parts; the rest are counted. */
const NAMED_PROBLEMS = 5;

const clip = (text: string) => (text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : text);

/**
 * A message about the validation itself (a warning; an error where the link's failure policy is `block`); it
 * replaces the previous one and leaves the last answer's messages.
 */
export function noticeChange(message: string, severity: "warning" | "error" = "warning"): ValidationChange {
  return {
    ...emptyChange(),
    messages: [{ key: null, message: clip(message), severity, notice: true }],
    replaceMessages: "notices",
  };
}

function emptyChange(): ValidationChange {
  return {
    source: "validation",
    annotations: [],
    cells: [],
    messages: [],
    replaceMessages: false,
    options: {},
    approvers: [],
    appliedRules: [],
  };
}

/**
 * The change an answer asks of a document, checked part by part against the queue's schema and the document
 * as it is: replacement values (a multi-value field keeps its other values), cells by row index, options of
 * fields, and messages that replace every earlier validation message. A part naming a key or row the document
 * does not have, or a value its field cannot hold, is left out and named in one `warning`; the rest applies.
 * Messages about an unknown key are kept as messages about the whole document (their key in front), so an
 * `error` still blocks.
 */
export function changeFromAnswer(schema: readonly FieldDefinition[], document: StoredDocument, answer: ValidationAnswer): ValidationChange {
  const problems: string[] = [];
  const change = emptyChange();
  change.replaceMessages = true;

  const current = new Map(document.annotations.map((annotation) => [annotation.key, annotation]));
  // Two replacements of one key: the later one counts.
  for (const [key, value] of new Map(answer.replacements.map(({ key, value }) => [key, value]))) {
    const location = locateKey(schema, key);
    if (!location) problems.push(`field "${key}" does not exist`);
    else if (location.kind === "column" || location.field.type === "table")
      problems.push(`"${key}" belongs to a table: its cells are replaced through results with rowIndex`);
    else if (current.get(key)?.value !== value) {
      const values = current.get(key)?.values?.map((extra) => ({ value: extra.value }));
      const replacement: AnnotationFields = { key, value, ...(values ? { values } : {}), source: "validation" };
      const problem = problemOf(() => checkAnnotations(schema, [replacement]));
      if (problem) problems.push(`${key}: ${problem}`);
      else change.annotations.push(replacement);
    }
  }

  for (const cell of answer.cells) {
    const problem = problemOf(() => replaceCells(schema, document.annotations, [cell], "validation"));
    if (problem) problems.push(problem);
    else if (cellValue(schema, document, cell) !== cell.value) change.cells.push(cell);
  }

  for (const [key, options] of Object.entries(answer.options)) {
    if (locateKey(schema, key)) change.options[key] = options;
    else problems.push(`options for field "${key}", which does not exist`);
  }

  const messages: NewMessage[] = answer.messages.map(({ key, message, severity }) =>
    key === null || locateKey(schema, key)
      ? { key, message: clip(message), severity }
      : { key: null, message: clip(`${key}: ${message}`), severity },
  );
  if (messages.length > MAX_MESSAGES) problems.push(`${messages.length - MAX_MESSAGES} messages beyond the first ${MAX_MESSAGES}`);
  change.messages = messages.slice(0, MAX_MESSAGES);
  if (problems.length) change.messages.push(ignoredPartsWarning(problems));
  return change;
}

function ignoredPartsWarning(problems: string[]): NewMessage {
  const named = problems.slice(0, NAMED_PROBLEMS).join("; ");
  const more = problems.length > NAMED_PROBLEMS ? `; and ${problems.length - NAMED_PROBLEMS} more` : "";
  return {
    key: null,
    message: clip(`Parts of the external validation's answer were ignored: ${named}${more}.`),
    severity: "warning",
    notice: true,
  };
}

/** The message of the first problem a check finds, or undefined when it finds none. */
function problemOf(check: () => unknown): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (error instanceof ValidationError) return error.errors[0]?.message ?? error.message;
    throw error;
  }
}

function cellValue(schema: readonly FieldDefinition[], document: StoredDocument, cell: CellReplacement): string | undefined {
  const location = locateKey(schema, cell.key);
  if (location?.kind !== "column") return undefined;
  return document.annotations.find((annotation) => annotation.key === location.table.key)?.rows?.[cell.rowIndex]?.[cell.key]?.value;
}
