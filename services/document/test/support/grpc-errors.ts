import { expect } from "chai";

/** The kit's gRPC client turns status codes back into domain errors; this checks which one arrived. */
export async function expectGrpcError(call: Promise<unknown>, code: "NOT_FOUND" | "INVALID_ARGUMENT"): Promise<void> {
  const names = { NOT_FOUND: "NotFoundError", INVALID_ARGUMENT: "ValidationError" };
  try {
    await call;
  } catch (error) {
    expect((error as Error).name).to.equal(names[code]);
    return;
  }
  expect.fail(`expected ${code}`);
}
