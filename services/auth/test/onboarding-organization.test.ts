import { createLogger } from "@docex/kit/logger";
import { expect } from "chai";
import type { MembershipOrganizations } from "../src/domain/membership-organizations.js";
import { SelfOnboarding } from "../src/domain/onboarding.js";
import type { Onboarding } from "../src/domain/users.js";
import type { UserStore } from "../src/store/user-store.js";
import { TestClock } from "./support/test-clock.js";

const user = { id: "5b4f3c1e-9d7a-4e2b-8c6f-1a2b3c4d5e6f", email: "owner@example.test" };

function onboardingOf(changes: Partial<Onboarding>): Onboarding {
  return {
    userId: user.id,
    phone: "1",
    uiLocale: "en",
    company: "Acme",
    registerId: null,
    vatId: null,
    erp: null,
    invoiceCount: null,
    registeredAt: new Date(),
    completedAt: new Date(),
    organizationId: null,
    ...changes,
  };
}

/** SelfOnboarding.ensureOrganization alone, with membership and the store replaced. */
function subject(onboarding: Onboarding | undefined, membership: MembershipOrganizations) {
  const recorded: string[] = [];
  const logs: string[] = [];
  const users = {
    findOnboarding: async () => onboarding,
    setOnboardingOrganization: async (_userId: string, organizationId: string) => {
      recorded.push(organizationId);
    },
  } as unknown as UserStore;
  const logger = createLogger("auth", "warn", { write: (line: string) => logs.push(line) });
  const never = {} as never;
  const onboardingFlow = new SelfOnboarding(never, users, never, never, never, never, membership, new TestClock(), logger, never);
  return { onboardingFlow, recorded, logs };
}

function fakeMembership(answer: () => Promise<{ organizationId: string }>) {
  const calls: Array<{ ownerUserId: string; name: string }> = [];
  const membership: MembershipOrganizations = {
    createForOnboarding: async (input) => {
      calls.push(input);
      return answer();
    },
    acceptInvitation: async () => false,
    close: () => undefined,
  };
  return { membership, calls };
}

describe("onboarding asks membership for the organization", () => {
  it("creates it named after the company and remembers its id", async () => {
    const { membership, calls } = fakeMembership(async () => ({ organizationId: "org-1" }));
    const { onboardingFlow, recorded } = subject(onboardingOf({}), membership);
    expect(await onboardingFlow.ensureOrganization(user, "req-1")).to.equal("org-1");
    expect(calls).to.deep.equal([{ ownerUserId: user.id, name: "Acme" }]);
    expect(recorded).to.deep.equal(["org-1"]);
  });

  it("names it after the owner's email when no company was given", async () => {
    const { membership, calls } = fakeMembership(async () => ({ organizationId: "org-2" }));
    await subject(onboardingOf({ company: null }), membership).onboardingFlow.ensureOrganization(user, undefined);
    expect(calls[0]?.name).to.equal(user.email);
  });

  it("does not fail the onboarding when membership is unreachable, and says so in the log", async () => {
    const { membership } = fakeMembership(async () => {
      throw new Error("membership:9082 is unavailable");
    });
    const { onboardingFlow, recorded, logs } = subject(onboardingOf({}), membership);
    expect(await onboardingFlow.ensureOrganization(user, "req-2")).to.equal(undefined);
    expect(recorded).to.deep.equal([]);
    expect(logs.join("\n")).to.include("auth.user_onboarded consumer will");
  });

  it("asks nothing when the onboarding is not complete or already has its organization", async () => {
    const { membership, calls } = fakeMembership(async () => ({ organizationId: "org-3" }));
    await subject(onboardingOf({ completedAt: null }), membership).onboardingFlow.ensureOrganization(user, undefined);
    await subject(onboardingOf({ organizationId: "org-0" }), membership).onboardingFlow.ensureOrganization(user, undefined);
    await subject(undefined, membership).onboardingFlow.ensureOrganization(user, undefined);
    expect(calls).to.have.length(0);
  });
});
