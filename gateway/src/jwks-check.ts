/**
 * Whether the auth service's JWKS answers with at least one key: a dependency the gateway watches (/readyz lists
 * it, `dependency_up` measures it), not one its readiness waits for, as the keys fetched before keep verifying.
 */
export async function jwksAnswers(url: string, timeoutMs = 2_000): Promise<void> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`JWKS answered ${response.status}`);
  const body = (await response.json()) as { keys?: unknown[] };
  if (!Array.isArray(body.keys) || body.keys.length === 0) throw new Error("JWKS has no keys");
}
