import type { RegisterCheck } from "./conditions.js";

/** The register service is down, slow, or its breaker is open: the lookup has no answer. */
export class RegisterUnavailableError extends Error {
  constructor(cause: unknown) {
    super("The register service did not answer.", { cause });
    this.name = "RegisterUnavailableError";
  }
}

export type LookupAnswer = { kind: "found"; values: Set<string> } | { kind: "no_such_register" };

/** What automation needs of the register service: exact lookups of values for the `in_register` condition. */
export interface RegisterLookup {
  /**
   * Which of `values` are items of the register. `no_such_register` when it does not exist in the organization;
   * RegisterUnavailableError when the register service cannot say.
   */
  lookup(registerId: string, organizationId: string, values: string[], ctx?: { requestId?: string }): Promise<LookupAnswer>;
  close(): void;
}

/**
 * The `in_register` check of one run or plan: each lookup asked once; an unavailable register service makes the
 * condition undecided ("unknown") rather than false.
 */
export function registerCheckOf(lookup: RegisterLookup, organizationId: string, ctx: { requestId?: string }): RegisterCheck {
  const answers = new Map<string, Promise<Set<string> | "unknown">>();
  return (registerId, values) => {
    const key = [registerId, ...values].join("\u0000");
    let answer = answers.get(key);
    if (!answer) {
      answer = lookup.lookup(registerId, organizationId, values, ctx).then(
        (found) => (found.kind === "found" ? found.values : new Set<string>()),
        (error: unknown) => {
          if (error instanceof RegisterUnavailableError) return "unknown" as const;
          throw error;
        },
      );
      answers.set(key, answer);
    }
    return answer;
  };
}
