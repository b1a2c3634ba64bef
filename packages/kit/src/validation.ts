import type { z } from "zod";
import { type FieldError, ValidationError } from "./errors.js";

/** Turns a zod issue path into the `errors[].path` form: `items.3.value`, or `""` for the root. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.map(String).join(".");
}

export function fieldErrorsOf(error: z.ZodError, prefix = ""): FieldError[] {
  return error.issues.map((issue) => ({
    path: [prefix, issuePath(issue.path)].filter(Boolean).join("."),
    message: issue.message,
  }));
}

/** Parses input with a schema; on failure throws a 400 listing every bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what = "request body"): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ValidationError(`The ${what} is invalid.`, fieldErrorsOf(result.error));
}
