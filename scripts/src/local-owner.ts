import type { LocalSecrets } from "./local-secrets.js";

/** The first user of a local stack, owner of the organization `bootstrap` (auth's BOOTSTRAP_OWNER_*). */
export interface LocalOwner {
  email: string;
  password: string;
}

export const LOCAL_OWNER_EMAIL = "owner@docex.test";

/** BOOTSTRAP_OWNER_* when given, else the local owner, whose password is one of the server's local secrets. */
export function localOwner(env: NodeJS.ProcessEnv, secrets: LocalSecrets): LocalOwner {
  if (env.BOOTSTRAP_OWNER_EMAIL && env.BOOTSTRAP_OWNER_PASSWORD) {
    return { email: env.BOOTSTRAP_OWNER_EMAIL, password: env.BOOTSTRAP_OWNER_PASSWORD };
  }
  return { email: LOCAL_OWNER_EMAIL, password: secrets.LOCAL_OWNER_PASSWORD };
}

/** Shell words, quoted for bash: what a person pastes must mean exactly what was printed. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9@%+=:,./_-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * How to sign in, checked against the running stack: the owner signs in through the gateway and its organization is
 * listed. Waits a little for the organization, which membership makes from an event just after auth is ready.
 */
export async function signInInstructions(gatewayUrl: string, owner: LocalOwner, timeoutMs = 20_000): Promise<string[]> {
  const body = JSON.stringify({ email: owner.email, password: owner.password });
  const curl = `curl -s ${gatewayUrl}/api/v2/auth/login -H 'content-type: application/json' -d ${shellQuote(body)}`;
  const login = await fetch(`${gatewayUrl}/api/v2/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  if (login.status !== 200) {
    return [
      `the owner ${owner.email} does not sign in with the password this stack knows (${login.status}): it was changed since.`,
      `POST /api/v2/auth/password-reset {"email": "${owner.email}"} mails a reset link, which this log shows.`,
    ];
  }
  const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
  const organizations = await organizationsOf(gatewayUrl, token, timeoutMs);
  return [
    `sign in as ${owner.email}, password ${owner.password}`,
    `  owner of ${organizations.map((organization) => `"${organization.name}" (${organization.humanized_id}, ${organization.id})`).join(", ") || "no organization yet"}`,
    `  ${curl}`,
  ];
}

async function organizationsOf(
  gatewayUrl: string,
  token: string,
  timeoutMs: number,
): Promise<Array<{ id: string; name: string; humanized_id: string }>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await fetch(`${gatewayUrl}/api/v2/organizations`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(5_000),
    });
    const organizations =
      answer.status === 200 ? ((await answer.json()) as { data: Array<{ id: string; name: string; humanized_id: string }> }).data : [];
    if (organizations.length > 0 || Date.now() > deadline) return organizations;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
