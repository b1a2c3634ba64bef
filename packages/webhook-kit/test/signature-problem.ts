import { expect } from "chai";
import { WebhookSignatureError } from "../src/index.js";

/** The reason of the WebhookSignatureError that `run` throws; fails the test when it throws nothing or something else. */
export function signatureProblem(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(WebhookSignatureError);
    return (error as WebhookSignatureError).reason;
  }
  throw new Error("expected a WebhookSignatureError");
}
