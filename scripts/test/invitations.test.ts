import { eventually, tokenIn } from "@docex/testkit";
import { expect } from "chai";
import { type Answer, type Stack, sharedStack } from "./support/stack.js";

/**
 * Issue 24, item 7, through the gateway on the whole stack: an invitation tells the inviter nothing about whether
 * the email is registered, nobody joins an organization without accepting, and each organization has invitation
 * quotas (50 pending, 100 a day: the defaults).
 */
describe("invitations through the gateway: no enumeration, acceptance required, quotas", function () {
  this.timeout(180_000);
  let stack: Stack;
  let ownerToken = "";
  let organizationId = "";
  let counter = 0;

  const email = (label: string) => {
    counter += 1;
    return `inv-${label}-${counter}-${stack.namespace}@example.test`;
  };
  const asOwner = (method: string, path: string, body?: unknown) => stack.call(method, path, { token: ownerToken, body });
  const invite = (organization: string, entries: Array<{ email: string; role?: string }>) =>
    asOwner(
      "POST",
      `/organizations/${organization}/assign-roles`,
      entries.map((entry) => ({ operation: "invite", email: entry.email, role: entry.role ?? "viewer" })),
    );
  const mailCount = (address: string) => stack.mail.mailsTo(address).length;
  const nextToken = async (address: string, before: number) => tokenIn(await stack.mail.waitForMail(address, before + 1, 20_000));

  /** A user with a password: invited into an organization of their own elsewhere, who set it from the mail. */
  const registeredUser = async (label: string) => {
    const address = email(label);
    const elsewhere = await asOwner("POST", "/organizations", { name: `Elsewhere ${label} ${stack.namespace}` });
    expect(elsewhere.status).to.equal(201);
    expect((await invite(elsewhere.body.data.id, [{ email: address }])).status).to.equal(200);
    const token = await nextToken(address, 0);
    const password = `${label} has a password`;
    const set = await stack.call("POST", "/auth/change-password", { body: { token, password } });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    return { email: address, token: set.body.data.access_token as string };
  };

  const entryOf = (answer: Answer, address: string) => answer.body.data.find((member: { email: string }) => member.email === address);

  before(async function () {
    this.timeout(200_000);
    stack = await sharedStack();
    ownerToken = (await stack.login(stack.owner.email, stack.owner.password)).access_token;
    const created = await asOwner("POST", "/organizations", { name: `Invitations ${stack.namespace}` });
    expect(created.status).to.equal(201);
    organizationId = created.body.data.id;
  });

  it("answers an invitation of a registered email exactly as one of an unregistered email, and mails both", async () => {
    const registered = await Promise.all([registeredUser("known-a"), registeredUser("known-b"), registeredUser("known-c")]);
    const unknown = [email("unknown-a"), email("unknown-b"), email("unknown-c")];
    const timings = { registered: [] as number[], unregistered: [] as number[] };
    const entries: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 3; i += 1) {
      for (const [kind, address] of [
        ["registered", registered[i]!.email],
        ["unregistered", unknown[i]!],
      ] as const) {
        const before = mailCount(address);
        const started = performance.now();
        const answer = await invite(organizationId, [{ email: address }]);
        timings[kind].push(performance.now() - started);
        expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
        const { user_id, ...entry } = entryOf(answer, address);
        expect(user_id).to.be.a("string");
        entries.push({ ...entry, email: "(the invited email)" });
        expect(entry.email).to.equal(address);
        // Both get a mail with a token (what it offers is the mailbox owner's business only).
        expect(tokenIn(await stack.mail.waitForMail(address, before + 1, 20_000))).to.be.a("string");
      }
    }
    for (const entry of entries) {
      expect(entry).to.deep.equal({
        email: "(the invited email)",
        name: null,
        role: "viewer",
        queue_ids: null,
        status: "invited",
        is_manageable: true,
      });
    }
    // The member list read later says no more.
    const listed = await asOwner("GET", `/organizations/${organizationId}/raw-memberships`);
    for (const address of [...registered.map((user) => user.email), ...unknown]) {
      expect(entryOf(listed, address)).to.include({ name: null, status: "invited" });
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    console.log(
      `    invite latency, median of 3: registered ${median(timings.registered).toFixed(1)} ms, ` +
        `unregistered ${median(timings.unregistered).toFixed(1)} ms`,
    );
    // The same calls either way; only noise separates them (a loose bound: the machine is shared).
    expect(Math.abs(median(timings.registered) - median(timings.unregistered))).to.be.below(250);
  });

  it("keeps a registered user out until they accept with accept-invitation; the token works once", async () => {
    const user = await registeredUser("consent");
    const before = mailCount(user.email);
    expect((await invite(organizationId, [{ email: user.email, role: "editor" }])).status).to.equal(200);
    const token = await nextToken(user.email, before);

    const theirs = (method: string, path: string) => stack.call(method, path, { token: user.token });
    const listed = await theirs("GET", "/organizations?page_size=100");
    expect(listed.body.data.map((organization: { id: string }) => organization.id)).not.to.include(organizationId);
    expect((await theirs("GET", `/organizations/${organizationId}`)).status).to.equal(404);

    const accepted = await stack.call("POST", "/auth/accept-invitation", { body: { token } });
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
    expect(accepted.body.data).to.deep.equal({ organization_id: organizationId });
    await eventually(async () => ((await theirs("GET", `/organizations/${organizationId}`)).status === 200 ? true : undefined), 10_000);
    const members = await asOwner("GET", `/organizations/${organizationId}/raw-memberships`);
    expect(entryOf(members, user.email)).to.include({ status: "active", role: "editor" });
    const workspace = await stack.call("POST", "/workspaces", {
      token: user.token,
      body: { organization_id: organizationId, name: "editor may not" },
    });
    expect(workspace.status).to.equal(403);

    const again = await stack.call("POST", "/auth/accept-invitation", { body: { token } });
    expect(again.status).to.equal(401);
    expect(again.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(again.body.code).to.equal("invalid_token");
    // The invitation token of a user with a password is no password reset.
    const other = await registeredUser("no-reset");
    const count = mailCount(other.email);
    await invite(organizationId, [{ email: other.email }]);
    const otherToken = await nextToken(other.email, count);
    const takeover = await stack.call("POST", "/auth/change-password", { body: { token: otherToken, password: "taken over password" } });
    expect(takeover.status).to.equal(401);
  });

  it("lets a new user accept by setting a password (change-password), and refuses the token of a withdrawn invitation", async () => {
    const newcomer = email("newcomer");
    expect((await invite(organizationId, [{ email: newcomer, role: "approver" }])).status).to.equal(200);
    const token = await nextToken(newcomer, 0);
    const set = await stack.call("POST", "/auth/change-password", { body: { token, password: "newcomer password" } });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    const members = await asOwner("GET", `/organizations/${organizationId}/raw-memberships`);
    expect(entryOf(members, newcomer)).to.include({ status: "active", role: "approver" });

    const withdrawn = await registeredUser("withdrawn");
    const before = mailCount(withdrawn.email);
    const invited = await invite(organizationId, [{ email: withdrawn.email }]);
    const withdrawnToken = await nextToken(withdrawn.email, before);
    const userId = entryOf(invited, withdrawn.email).user_id;
    const removed = await asOwner("POST", `/organizations/${organizationId}/assign-roles`, [{ operation: "remove", user_id: userId }]);
    expect(removed.status).to.equal(200);
    const refused = await stack.call("POST", "/auth/accept-invitation", { body: { token: withdrawnToken } });
    expect(refused.status).to.equal(401);
    expect((await stack.call("GET", `/organizations/${organizationId}`, { token: withdrawn.token })).status).to.equal(404);
    expect((await stack.call("POST", "/auth/accept-invitation", { body: { token: "x".repeat(43) } })).status).to.equal(401);
  });

  it("allows 50 pending invitations per organization (409 beyond) and 100 invitations a day (429 with Retry-After)", async () => {
    const created = await asOwner("POST", "/organizations", { name: `Quota ${stack.namespace}` });
    const quota = created.body.data.id as string;
    const fifty = Array.from({ length: 50 }, () => ({ email: email("quota") }));
    const first = await invite(quota, fifty);
    expect(first.status, JSON.stringify(first.body).slice(0, 300)).to.equal(200);

    const beyond = await invite(quota, [{ email: email("one-too-many") }]);
    expect(beyond.status).to.equal(409);
    expect(beyond.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(beyond.body).to.include({ code: "invitation_quota_exceeded", status: 409 });

    // Inviting the fifty again sends fifty more: a hundred today, and still fifty pending.
    const again = await invite(quota, fifty);
    expect(again.status, JSON.stringify(again.body).slice(0, 300)).to.equal(200);
    const daily = await invite(quota, [fifty[0]!]);
    expect(daily.status).to.equal(429);
    expect(daily.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(daily.body.status).to.equal(429);
    expect(Number(daily.headers.get("retry-after"))).to.be.within(86_000, 86_400);
    const members = await asOwner("GET", `/organizations/${quota}/raw-memberships`);
    expect(members.body.data).to.have.length(51);
  });
});
