/**
 * Readiness of the gateway: the auth service's JWKS answers with at least one key. Without
 * it no access token can be verified, so the gateway is of no use to a client.
 */
export async function jwksAnswers(url: string, timeoutMs = 2_000): Promise<void> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`JWKS answered ${response.status}`);
  const body = (await response.json()) as { keys?: unknown[] };
  if (!Array.isArray(body.keys) || body.keys.length === 0) throw new Error("JWKS has no keys");
}
