import { stopSharedStack } from "./stack.js";

/** Mocha root hooks: whatever suite started the shared stack, it is removed at the end of the run. */
export const mochaHooks = {
  async afterAll(this: { timeout(ms: number): void }) {
    this.timeout(60_000);
    await stopSharedStack();
  },
};
