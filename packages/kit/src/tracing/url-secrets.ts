/**
 * Secrets that travel in query strings (`?token=` of a password-change link, `code`, `pin`, a signed URL's
 * `X-Amz-Signature`) must reach neither a span nor a log line. A parameter is secret when a word of its name says
 * so; its value is replaced, its name and the other parameters are kept, so a trace still says what was asked.
 */

/** Words of a parameter's name that make it secret (`id_token` → `id`, `token`; `X-Amz-Signature` → `signature`). */
const SECRET_WORDS = new Set([
  "token",
  "code",
  "pin",
  "password",
  "passwd",
  "pwd",
  "secret",
  "key",
  "apikey",
  "signature",
  "sig",
  "credential",
  "credentials",
  "otp",
  "totp",
  "nonce",
  "jwt",
  "assertion",
  "auth",
  "authorization",
  "session",
  "ticket",
]);

/** Parts that make a name secret wherever they stand in it (`accesstoken`, `clientSecret`, `newpassword`). */
const SECRET_PARTS = ["token", "secret", "passw", "apikey"];

export const REDACTED_VALUE = "[redacted]";

/** Whether a query parameter's value is a secret, judged by its name (percent-encoded or not, any case or separator). */
export function isSecretQueryParameter(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name.replace(/\+/g, " "));
  } catch {}
  const words = decoded
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const whole = words.join("");
  return words.some((word) => SECRET_WORDS.has(word)) || SECRET_PARTS.some((part) => whole.includes(part));
}

/**
 * `name=value` after `?`, `&` or `;`. A value ends where a URL's query does in free text and in a JSON line: at
 * `&`, `#`, whitespace, a quote, a backslash (a JSON escape) or an angle bracket.
 */
const QUERY_PARAMETER = /([?&;])([^=&;?#\s"'\\<>]+)=([^&;#\s"'\\<>]*)/g;

/** `text` with the value of every secret query parameter replaced by `[redacted]`; the same string when it has none. */
export function redactUrlSecrets(text: string): string {
  if (!text.includes("=")) return text;
  return text.replace(QUERY_PARAMETER, (parameter, separator: string, name: string, value: string) =>
    value !== "" && value !== REDACTED_VALUE && isSecretQueryParameter(name) ? `${separator}${name}=${REDACTED_VALUE}` : parameter,
  );
}

/** A bare query string (`token=…&page=2`, as `url.query` holds it, with or without its `?`) with its secrets redacted. */
export function redactQueryString(query: string): string {
  if (query.startsWith("?")) return redactUrlSecrets(query);
  return redactUrlSecrets(`?${query}`).slice(1);
}
