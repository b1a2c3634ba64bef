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
