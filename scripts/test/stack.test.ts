import { SERVICE_NAMES } from "@docex/kit/config";
import { eventually, tokenIn } from "@docex/testkit";
import { expect } from "chai";
import { type Stack, sharedStack } from "./support/stack.js";

// The shared stack is stopped with SIGINT after the run, and its clean stop checked, by the
// root hook in support/hooks.ts.

describe("the whole stack through the gateway (npm start, real Postgres and NATS)", function () {
  this.timeout(60_000);
  let stack: Stack;
  let owner: Stack["owner"];
  let mail: Stack["mail"];
  let namespace = "";
  let gateway = "";
  let ownerToken = "";
  const call = (...args: Parameters<Stack["call"]>) => stack.call(...args);
  const login = (email: string, password: string) => stack.login(email, password);
  let organizationId = "";

  before(async function () {
    this.timeout(180_000);
    stack = await sharedStack();
    owner = stack.owner;
    mail = stack.mail;
    namespace = stack.namespace;
    gateway = stack.gateway;
  });

  it("brings every service and the gateway to readiness and prints the base URL", async () => {
    expect(stack.output).to.include(`${gateway}/api/v2`);
    for (const name of SERVICE_NAMES) {
      const response = await fetch(`${stack.serviceUrl(name)}/readyz`);
      expect(response.status, name).to.equal(200);
    }
    expect((await fetch(`${gateway}/readyz`)).status).to.equal(200);
  });

  it("refuses a request without a valid token at the gateway, and an unknown path, with problem+json", async () => {
    const anonymous = await call("GET", "/organizations");
    expect(anonymous.status).to.equal(401);
    expect(anonymous.headers.get("content-type")).to.match(/^application\/problem\+json/);
    expect(anonymous.body.request_id).to.be.a("string");
    expect((await call("GET", "/organizations", { token: "not.a.token" })).status).to.equal(401);
    expect((await call("GET", "/no-such-thing")).status).to.equal(404);
  });

  it("lets the bootstrap owner log in through the gateway and find the organization `bootstrap`", async () => {
    ownerToken = (await login(owner.email, owner.password)).access_token;
    const organization = await eventually(async () => {
      const answer = await call("GET", "/organizations", { token: ownerToken });
      return answer.body?.data?.find((candidate: { humanized_id: string }) => candidate.humanized_id === "bootstrap");
    }, 20_000);
    organizationId = organization.id;
    const byHumanizedId = await call("GET", "/organizations/bootstrap", { token: ownerToken });
    expect(byHumanizedId.status).to.equal(200);
    expect(byHumanizedId.body.data.id).to.equal(organizationId);
  });

  it("rotates a session with the refresh token and refuses the rotated one", async () => {
    const session = await login(owner.email, owner.password);
    const refreshed = await call("POST", "/auth/refresh", { body: { refresh_token: session.refresh_token } });
    expect(refreshed.status).to.equal(200);
    expect(refreshed.body.data.refresh_token).not.to.equal(session.refresh_token);
    expect((await call("GET", "/organizations", { token: refreshed.body.data.access_token })).status).to.equal(200);
    const reused = await call("POST", "/auth/refresh", { body: { refresh_token: session.refresh_token } });
    expect(reused.status).to.equal(401);
    // A refresh token is no access token.
    expect((await call("GET", "/organizations", { token: refreshed.body.data.refresh_token })).status).to.equal(401);
  });

  let editor = { email: "", token: "" };

  it("invites a colleague who sets a password from the mailed token, logs in and becomes an active member", async () => {
    editor.email = `editor-${namespace}@example.test`;
    const invited = await call("POST", `/organizations/${organizationId}/assign-roles`, {
      token: ownerToken,
      body: [{ operation: "invite", email: editor.email, role: "editor" }],
    });
    expect(invited.status, JSON.stringify(invited.body)).to.equal(200);
    const token = tokenIn(await mail.waitForMail(editor.email, 1, 15_000));
    const purpose = await call("GET", `/auth/password-change-token?token=${encodeURIComponent(token)}`);
    expect(purpose.status).to.equal(200);
    expect(purpose.body.data.purpose).to.equal("invitation");
    const set = await call("POST", "/auth/change-password", { body: { token, password: "a long enough password" } });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    editor = { ...editor, token: (await login(editor.email, "a long enough password")).access_token };
    await eventually(async () => {
      const members = await call("GET", `/organizations/${organizationId}/raw-memberships`, { token: ownerToken });
      const entry = members.body.data.find((member: { email: string }) => member.email === editor.email);
      return entry?.status === "active" && entry.role === "editor" ? entry : undefined;
    }, 15_000);
  });

  it("takes a document from upload through extraction and validation to ready_to_export, with tenancy enforced", async () => {
    const workspace = await call("POST", "/workspaces", { token: ownerToken, body: { organization_id: "bootstrap", name: "Invoices" } });
    expect(workspace.status, JSON.stringify(workspace.body)).to.equal(201);
    const queue = await call("POST", "/queues", { token: ownerToken, body: { workspace_id: workspace.body.data.id, name: "Inbox" } });
    expect(queue.status, JSON.stringify(queue.body)).to.equal(201);
    expect(queue.body.data.accounting_automation).to.be.oneOf(["enabled", "disabled"]);

    const uploaded = await call("POST", `/queues/${queue.body.data.humanized_id}/documents`, {
      token: editor.token,
      body: { file_name: "invoice-1.pdf" },
    });
    expect(uploaded.status, JSON.stringify(uploaded.body)).to.equal(201);
    expect(uploaded.body.data.status).to.equal("received");
    const documentId = uploaded.body.data.id;

    const extracted = await call("POST", `/documents/${documentId}/extraction`, {
      token: editor.token,
      body: {
        annotations: [
          { key: "invoice_id", value: "INV-1" },
          { key: "total_due", value: "120.50" },
        ],
        confidence: 91,
      },
    });
    expect(extracted.status, JSON.stringify(extracted.body)).to.equal(200);
    expect(extracted.body.data.status).to.equal("to_validate");

    const edited = await call("PATCH", `/documents/${documentId}/annotations`, {
      token: editor.token,
      body: { annotations: [{ key: "total_due", value: "121.00" }] },
    });
    expect(edited.status, JSON.stringify(edited.body)).to.equal(200);
    const total = edited.body.data.annotations.find((annotation: { key: string }) => annotation.key === "total_due");
    expect(total.numericValue).to.equal(121);

    const badEdit = await call("PATCH", `/documents/${documentId}/annotations`, {
      token: editor.token,
      body: { annotations: [{ key: "total_due", value: "a lot" }] },
    });
    expect(badEdit.status).to.equal(400);

    const moved = await call("POST", `/documents/${documentId}/status`, { token: editor.token, body: { status: "ready_to_export" } });
    expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
    expect(moved.body.data.status).to.equal("ready_to_export");

    // Someone of another organization sees none of it.
    const stranger = `stranger-${namespace}@example.test`;
    const own = await call("POST", "/organizations", { token: editor.token, body: { name: `Editor's own ${namespace}` } });
    expect(own.status).to.equal(201);
    const invitedStranger = await call("POST", `/organizations/${own.body.data.id}/assign-roles`, {
      token: editor.token,
      body: [{ operation: "invite", email: stranger, role: "viewer" }],
    });
    expect(invitedStranger.status).to.equal(200);
    const strangerToken = tokenIn(await mail.waitForMail(stranger, 1, 15_000));
    await call("POST", "/auth/change-password", { body: { token: strangerToken, password: "another long password" } });
    const strangerAccess = (await login(stranger, "another long password")).access_token;
    expect((await call("GET", `/documents/${documentId}`, { token: strangerAccess })).status).to.equal(404);
    expect((await call("GET", `/queues/${queue.body.data.id}`, { token: strangerAccess })).status).to.equal(404);
    expect((await call("GET", `/organizations/${organizationId}/raw-memberships`, { token: strangerAccess })).status).to.equal(404);
  });
});
