import { z } from "zod";
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

/** Spec: "Must be a valid HTTP URL": http or https, a host, no credentials (they would show in every listing). */
export const httpUrl = z
  .string()
  .trim()
  .min(1)
  .max(2_048)
  .superRefine((text, ctx) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      ctx.addIssue({ code: "custom", message: "Must be a valid HTTP URL." });
      return;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") ctx.addIssue({ code: "custom", message: "Must be an http or https URL." });
    else if (!url.hostname) ctx.addIssue({ code: "custom", message: "Must name a host." });
    else if (url.username || url.password) ctx.addIssue({ code: "custom", message: "Must not carry credentials." });
  });
