import { ValidationError } from "@docex/kit/errors";
import type { TargetPolicy } from "./target-policy.js";

/** 400 `url_not_allowed` when the URL would reach an address the policy refuses. */
export async function requireAllowedTarget(policy: TargetPolicy, url: string): Promise<void> {
  const verdict = await policy.check(new URL(url));
  if (!verdict.allowed) {
    throw new ValidationError(
      "The url must reach a public address: loopback, private, link-local and reserved addresses are refused.",
      [{ path: "url", message: verdict.reason }],
      "url_not_allowed",
    );
  }
}
