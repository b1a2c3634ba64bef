import type { Response } from "express";
import { DomainError, type FieldError, RateLimitedError } from "../errors.js";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors: FieldError[];
  request_id: string;
  [extension: string]: unknown;
}

/** The problem+json body of an error, as API.md "Conventions" fixes it. Unknown errors leak nothing. */
export function toProblem(error: unknown, requestId: string): Problem {
  if (error instanceof DomainError) {
    return {
      ...error.extra,
      type: `/problems/${error.code}`,
      title: error.title,
      status: error.status,
      detail: error.message,
      code: error.code,
      errors: error.errors,
      request_id: requestId,
    };
  }
  return {
    type: "/problems/internal_error",
    title: "Internal Server Error",
    status: 500,
    detail: "Something went wrong on our side; the request id identifies it in our logs.",
    code: "internal_error",
    errors: [],
    request_id: requestId,
  };
}

export function sendProblem(res: Response, error: unknown, requestId: string): void {
  const problem = toProblem(error, requestId);
  if (error instanceof RateLimitedError) res.setHeader("retry-after", String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
  res.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}
