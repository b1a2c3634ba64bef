/**
 * Whether `sender` may mail an inbox restricted to `allowed` (addresses and `@domain`s, lowercase): an empty list lets
 * anyone in; a domain entry takes that domain only (not its subdomains). The null sender (`<>`, bounces) passes
 * only an unrestricted inbox.
 */
export function senderAllowed(sender: string, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return true;
  const address = sender.trim().toLowerCase();
  const at = address.lastIndexOf("@");
  if (at <= 0) return false;
  const domain = address.slice(at);
  return allowed.some((entry) => (entry.startsWith("@") ? entry === domain : entry === address));
}
