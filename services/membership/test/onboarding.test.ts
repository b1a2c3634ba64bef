import { randomUUID } from "node:crypto";
import { createEvent, type DocexEvent } from "@docex/events";
import { ValidationError } from "@docex/kit/errors";
import { membershipService } from "@docex/protos";
import { eventually, testGrpcIdentity } from "@docex/testkit";
import * as grpc from "@grpc/grpc-js";
import { expect } from "chai";
import { MembershipHarness } from "./support/harness.js";

describe("organizations of new users: CreateOrganization (gRPC, idempotent) and the auth.user_onboarded consumer", () => {
  let h: MembershipHarness;

  before(async () => {
    h = await MembershipHarness.start();
  });

  after(async () => {
    await h?.stop();
  });

  function onboarded(userId: string, company: string | null, email = `${randomUUID()}@example.test`): DocexEvent<"auth.user_onboarded"> {
    return createEvent("auth.user_onboarded", {
      organization_id: null,
      data: { user_id: userId, email, company, vat_id: null, register_id: null, erp: null, invoice_count: null, ui_locale: "en" },
    });
  }

  /** Publishes to JetStream like auth's outbox relay; `msgId` differs from the event id to get past the stream's duplicate window. */
  const publish = (event: DocexEvent, msgId = event.id) => h.bus.publish("docex.auth.user_onboarded", event, { msgId });

  const organizationsOf = async (userId: string) => (await h.grpc.listOrganizationsOfUser({ user_id: userId })).organizations;

  /** Events are handled in order by one consumer: once a later event's organization exists, the earlier ones were handled. */
  async function handledUpTo(): Promise<void> {
    const marker = randomUUID();
    await publish(onboarded(marker, "Marker"));
    await eventually(async () => ((await organizationsOf(marker)).length ? true : undefined), 10_000);
  }

  it("creates the organization named by the company, with the new user as owner, from auth.user_onboarded", async () => {
    const userId = randomUUID();
    const event = onboarded(userId, "  Acme Invoices  ", "founder@acme.example");
    await publish(event);
    const [organization] = await eventually(async () => {
      const found = await organizationsOf(userId);
      return found.length ? found : undefined;
    });
    expect(organization).to.include({ name: "Acme Invoices" });
    expect(organization!.humanized_id).to.match(/^acme-invoices(-\d+)?$/);
    expect(await h.grpc.getRoles({ user_id: userId, organization_id: organization!.id })).to.deep.equal({
      role: "owner",
      queue_ids: [],
      all_queues: true,
      status: "active",
    });
    const created = await h.waitForEvent((e) => e.type === "organization.created" && e.organization_id === organization!.id);
    expect(created.data).to.include({ owner_user_id: userId, name: "Acme Invoices" });
  });

  it("creates nothing twice when the same event is delivered again", async () => {
    const userId = randomUUID();
    const event = onboarded(userId, "Redelivered Ltd");
    await publish(event);
    await eventually(async () => ((await organizationsOf(userId)).length ? true : undefined));
    await publish(event, `${event.id}:redelivery`);
    await handledUpTo();
    const organizations = await organizationsOf(userId);
    expect(organizations).to.have.length(1);
    expect(h.events.filter((e) => e.type === "organization.created" && e.data.owner_user_id === userId)).to.have.length(1);
  });

  it("shares one organization between auth's CreateOrganization call and the event, whichever comes first", async () => {
    // The call first (auth asks while the user waits for tokens), then the event.
    const first = randomUUID();
    const called = await h.grpc.createOrganization({ name: "Called First", owner_user_id: first, idempotency_key: `onboarding:${first}` });
    expect(called.created).to.equal(true);
    await publish(onboarded(first, "Called First"));
    await handledUpTo();
    expect((await organizationsOf(first)).map((o) => o.id)).to.deep.equal([called.organization!.id]);

    // The event first (membership was unreachable when auth called), then the call.
    const second = randomUUID();
    await publish(onboarded(second, "Event First"));
    await eventually(async () => ((await organizationsOf(second)).length ? true : undefined));
    const late = await h.grpc.createOrganization({ name: "Event First", owner_user_id: second, idempotency_key: `onboarding:${second}` });
    expect(late.created).to.equal(false);
    expect((await organizationsOf(second)).map((o) => o.id)).to.deep.equal([late.organization!.id]);
  });

  it("names the organization after the email when the company is missing", async () => {
    const userId = randomUUID();
    await publish(onboarded(userId, null, "solo@example.test"));
    const [organization] = await eventually(async () => {
      const found = await organizationsOf(userId);
      return found.length ? found : undefined;
    });
    expect(organization).to.include({ name: "solo@example.test" });
    expect(organization!.humanized_id).to.match(/^solo-example-test(-\d+)?$/);
  });

  it("BOOTSTRAP_OWNER_*: auth's onboarding event for the bootstrap owner creates the organization `bootstrap` owned by them, once", async () => {
    const userId = randomUUID();
    const event = onboarded(userId, "bootstrap", "admin@docex.example");
    await publish(event);
    await publish(event, `${event.id}:again`);
    await handledUpTo();
    const organizations = await organizationsOf(userId);
    expect(organizations).to.have.length(1);
    expect(organizations[0]).to.include({ name: "bootstrap", humanized_id: "bootstrap" });
  });

  it("CreateOrganization answers the first organization for a repeated key, ALREADY_EXISTS for a taken humanized id, INVALID_ARGUMENT without a key", async () => {
    const owner = randomUUID();
    const key = `test:${randomUUID()}`;
    const humanizedId = `grpc-${randomUUID().slice(0, 8)}`;
    const first = await h.grpc.createOrganization({
      name: "Via gRPC",
      humanized_id: humanizedId,
      owner_user_id: owner,
      idempotency_key: key,
    });
    expect(first.created).to.equal(true);
    expect(first.organization).to.include({ name: "Via gRPC", humanized_id: humanizedId });
    const repeated = await h.grpc.createOrganization({ name: "Another name", owner_user_id: randomUUID(), idempotency_key: key });
    expect(repeated).to.deep.equal({ organization: first.organization, created: false });

    const auth = testGrpcIdentity("auth");
    const raw = new membershipService.Client(
      `127.0.0.1:${h.running.grpcPort}`,
      auth.channelCredentials(),
      auth.channelOptions("membership"),
    );
    try {
      const code = await new Promise<number>((resolve) => {
        const request = { name: "Clash", humanized_id: humanizedId, owner_user_id: owner, idempotency_key: `test:${randomUUID()}` };
        (raw as unknown as Record<string, (r: unknown, cb: (e: grpc.ServiceError | null) => void) => void>).CreateOrganization!(
          request,
          (error) => resolve(error?.code ?? grpc.status.OK),
        );
      });
      expect(code).to.equal(grpc.status.ALREADY_EXISTS);
    } finally {
      raw.close();
    }
    const noKey = await h.grpc
      .createOrganization({ name: "x", owner_user_id: owner, idempotency_key: "" })
      .catch((error: unknown) => error);
    expect(noKey).to.be.instanceOf(ValidationError);
  });

  it("CreateOrganization takes only auth's certificate: another service is PERMISSION_DENIED, plaintext gets no answer", async () => {
    const request = { name: "Forged", humanized_id: "", owner_user_id: randomUUID(), idempotency_key: `test:${randomUUID()}` };
    const call = (credentials: grpc.ChannelCredentials, options: grpc.ChannelOptions = {}) => {
      const raw = new membershipService.Client(`127.0.0.1:${h.running.grpcPort}`, credentials, options);
      return new Promise<number>((resolve) => {
        (raw as unknown as Record<string, (r: unknown, o: grpc.CallOptions, cb: (e: grpc.ServiceError | null) => void) => void>)
          .CreateOrganization!(request, { deadline: Date.now() + 5_000 }, (error) => {
          raw.close();
          resolve(error?.code ?? grpc.status.OK);
        });
      });
    };
    for (const service of ["document", "webhook", "stranger"]) {
      const identity = testGrpcIdentity(service);
      expect(await call(identity.channelCredentials(), identity.channelOptions("membership")), service).to.equal(
        grpc.status.PERMISSION_DENIED,
      );
    }
    expect(await call(grpc.credentials.createInsecure())).to.equal(grpc.status.UNAVAILABLE);
    expect(await h.grpc.getOrganization({ id_or_humanized: request.owner_user_id }).catch((error: unknown) => error)).to.be.instanceOf(
      Error,
    );
  });
});
