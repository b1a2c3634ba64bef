import { type FieldError, ForbiddenError } from "@docex/kit/errors";
import { sameContent } from "./annotations.js";
import type { Annotation, StoredDocument } from "./records.js";

/** One entry of a user annotation schema (`manage-user-schema`); keys without an entry are visible and editable. */
export interface FieldRule {
  key: string;
  hidden: boolean;
  readonly: boolean;
}

type Row = NonNullable<Annotation["rows"]>[number];

/**
 * What one user may see and change of a queue's fields. Rules name field keys or table column keys
 * (keys are unique across both). A hidden field cannot be written either: nobody edits what they cannot see.
 */
export class UserFieldRules {
  private readonly hidden: Set<string>;
  private readonly readonly: Set<string>;

  constructor(rules: readonly FieldRule[]) {
    this.hidden = new Set(rules.filter((rule) => rule.hidden).map((rule) => rule.key));
    this.readonly = new Set(rules.filter((rule) => rule.readonly).map((rule) => rule.key));
  }

  static readonly none = new UserFieldRules([]);

  get isEmpty(): boolean {
    return this.hidden.size === 0 && this.readonly.size === 0;
  }

  private withoutHiddenColumns(row: Row): Row {
    return Object.fromEntries(Object.entries(row).filter(([column]) => !this.hidden.has(column)));
  }

  /** The annotations this user may see: hidden fields left out, hidden columns cut from table rows. */
  visibleAnnotations(annotations: readonly Annotation[]): Annotation[] {
    return annotations
      .filter((annotation) => !this.hidden.has(annotation.key))
      .map((annotation) =>
        annotation.rows ? { ...annotation, rows: annotation.rows.map((row) => this.withoutHiddenColumns(row)) } : annotation,
      );
  }

  /** The document as this user sees it: annotations, messages and options of hidden fields left out. */
  visibleDocument(document: StoredDocument): StoredDocument {
    if (this.isEmpty) return document;
    return {
      ...document,
      annotations: this.visibleAnnotations(document.annotations),
      messages: document.messages.filter((message) => message.key === null || !this.hidden.has(message.key)),
      options: Object.fromEntries(Object.entries(document.options).filter(([key]) => !this.hidden.has(key))),
    };
  }

  /** 403 naming every field this user may not change among `changes`; changes that leave a value as it was pass. */
  assertMayWrite(current: readonly Annotation[], changes: readonly Annotation[], path = "annotations"): void {
    if (this.isEmpty) return;
    const errors: FieldError[] = [];
    const fields = new Set<string>();
    const refuse = (key: string, path: string, why: "hidden from you" | "read-only for you") => {
      if (fields.has(key)) return;
      fields.add(key);
      errors.push({ path, message: `the field ${key} is ${why}` });
    };
    changes.forEach((change, index) => {
      const at = `${path}.${index}`;
      const before = current.find((annotation) => annotation.key === change.key);
      if (this.hidden.has(change.key)) refuse(change.key, `${at}.key`, "hidden from you");
      else if (this.readonly.has(change.key) && !sameContent(before, change)) refuse(change.key, `${at}.key`, "read-only for you");
      else if (change.rows) this.checkColumns(before?.rows ?? [], change.rows, at, refuse);
    });
    if (errors.length) throw new ForbiddenError(`You may not change ${[...fields].join(", ")}.`, "field_not_writable", errors);
  }

  private checkColumns(
    before: readonly Row[],
    after: readonly Row[],
    at: string,
    refuse: (key: string, path: string, why: "hidden from you" | "read-only for you") => void,
  ): void {
    const rowCount = Math.max(before.length, after.length);
    for (let index = 0; index < rowCount; index += 1) {
      const old = before[index] ?? {};
      const next = after[index] ?? {};
      for (const column of Object.keys(next)) {
        if (this.hidden.has(column)) refuse(column, `${at}.rows.${index}.${column}`, "hidden from you");
      }
      for (const column of this.readonly) {
        if (this.hidden.has(column)) continue;
        if ((old[column]?.value ?? "") !== (next[column]?.value ?? ""))
          refuse(column, `${at}.rows.${index}.${column}`, "read-only for you");
      }
    }
  }

  /** Hidden columns are not in what the user sent: keep their cells, row by row, from the current table. */
  keepHiddenCells(current: readonly Annotation[], changes: readonly Annotation[]): Annotation[] {
    if (this.hidden.size === 0) return [...changes];
    return changes.map((change) => {
      if (!change.rows) return change;
      const before = current.find((annotation) => annotation.key === change.key)?.rows ?? [];
      return {
        ...change,
        rows: change.rows.map((row, index) => {
          const kept = Object.entries(before[index] ?? {}).filter(([column]) => this.hidden.has(column));
          return { ...row, ...Object.fromEntries(kept) };
        }),
      };
    });
  }
}
