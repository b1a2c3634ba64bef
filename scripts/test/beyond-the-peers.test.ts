import { randomUUID } from "node:crypto";
import { eventually, tokenIn } from "@docex/testkit";
import { expect } from "chai";
import { type Answer, type Stack, sharedStack } from "./support/stack.js";

/**
 * The features of "Beyond the peers" end to end: the whole stack as `npm start` runs it, driven through the
 * gateway as a customer's users and an integrator's receivers would.
 */
describe("beyond the peers: audit log, duplicates, Standard Webhooks, key rotation, failure policy, receiver health", function () {
  this.timeout(60_000);
  let stack: Stack;
  let token = "";
  let ownerId = "";
  let organizationId = "";
  let workspaceId = "";
  let queueId = "";
  const call = (...args: Parameters<Stack["call"]>) => stack.call(...args);
  const dataOf = (answer: Answer, status: number) => {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(status);
    return answer.body.data;
  };
  const subjectOf = (accessToken: string) => JSON.parse(Buffer.from(accessToken.split(".")[1]!, "base64url").toString("utf8")).sub;

  /** A new user invited by the stack's owner into `organization` with `role`, who set a password from the mail. */
  async function member(role: string, organization: string): Promise<{ email: string; token: string; id: string }> {
    const email = `${role}-${randomUUID().slice(0, 8)}@example.test`;
    dataOf(await call("POST", `/organizations/${organization}/assign-roles`, { token, body: [{ operation: "invite", email, role }] }), 200);
    const invitation = tokenIn(await stack.mail.waitForMail(email, 1, 15_000));
    const password = "another correct horse battery";
    const tokens = dataOf(await call("POST", "/auth/change-password", { body: { token: invitation, password } }), 200);
    return { email, token: tokens.access_token, id: subjectOf(tokens.access_token) };
  }

  before(async function () {
    this.timeout(200_000);
    stack = await sharedStack();
    token = (await stack.login(stack.owner.email, stack.owner.password)).access_token;
    ownerId = subjectOf(token);
    organizationId = dataOf(await call("POST", "/organizations", { token, body: { name: `Beyond ${stack.namespace}` } }), 201).id;
    // document learns of the new organization from organization.created, a moment after it exists.
    const workspace = await eventually(async () => {
      const answer = await call("POST", "/workspaces", { token, body: { organization_id: organizationId, name: "Beyond" } });
      return answer.status === 201 ? answer : undefined;
    }, 10_000);
    workspaceId = dataOf(workspace, 201).id;
    queueId = dataOf(await call("POST", "/queues", { token, body: { workspace_id: workspaceId, name: "Invoices" } }), 201).id;
  });

  describe("audit log", () => {
    const auditOf = async (path: string, accessToken = token) => {
      const answer = await call("GET", path, { token: accessToken });
      return answer;
    };

    it("records a document's upload, edit (values before and after) and status change with who and the request id", async () => {
      const documentId = dataOf(
        await call("POST", `/queues/${queueId}/documents`, {
          token,
          body: { file_name: "audit.pdf" },
          headers: { "x-request-id": "audit-upload" },
        }),
        201,
      ).id;
      dataOf(
        await call("POST", `/documents/${documentId}/extraction`, {
          token,
          body: { annotations: [{ key: "invoice_id", value: "A-1", confidence: 90 }], confidence: 90 },
        }),
        200,
      );
      dataOf(
        await call("PATCH", `/documents/${documentId}/annotations`, {
          token,
          body: { annotations: [{ key: "invoice_id", value: "A-2" }] },
          headers: { "x-request-id": "audit-edit" },
        }),
        200,
      );

      const entries = await eventually(async () => {
        const answer = await auditOf(`/documents/${documentId}/audit-log?order=asc`);
        const types = answer.status === 200 ? answer.body.data.map((entry: { type: string }) => entry.type) : [];
        return types.includes("document.annotations_changed") && types.includes("document.created") ? answer.body.data : undefined;
      }, 15_000);
      const created = entries.find((entry: { type: string }) => entry.type === "document.created");
      expect(created).to.deep.include({ user_id: ownerId, request_id: "audit-upload", document_id: documentId, queue_id: queueId });
      expect(created.details.file_name).to.equal("audit.pdf");
      const edit = entries.find((entry: { type: string }) => entry.type === "document.annotations_changed");
      expect(edit).to.deep.include({ user_id: ownerId, request_id: "audit-edit" });
      const change = edit.details.changes.find((candidate: { key: string }) => candidate.key === "invoice_id");
      expect(change.before.value).to.equal("A-1");
      expect(change.after.value).to.equal("A-2");
    });

    it("shows failed and successful logins of members, role changes, and filters by type and user", async () => {
      const viewer = await member("viewer", organizationId);
      expect((await call("POST", "/auth/login", { body: { email: viewer.email, password: "not the password at all" } })).status).to.equal(
        401,
      );

      const logins = await eventually(async () => {
        const answer = await auditOf(`/organizations/${organizationId}/audit-log?type=auth&user_id=${viewer.id}`);
        const found = answer.body.data ?? [];
        return found.some((entry: { details: { succeeded: boolean } }) => !entry.details.succeeded) ? found : undefined;
      }, 15_000);
      expect(logins.every((entry: { user_id: string }) => entry.user_id === viewer.id)).to.equal(true);
      const failed = logins.find((entry: { details: { succeeded: boolean } }) => !entry.details.succeeded);
      expect(failed.details).to.deep.equal({ email: viewer.email, method: "pwd", succeeded: false, failure: "invalid_credentials" });

      const roles = await eventually(async () => {
        const answer = await auditOf(`/organizations/${organizationId}/audit-log?type=membership.changed&user_id=${ownerId}`);
        return answer.body.data?.find((entry: { details: { member_user_id: string } }) => entry.details.member_user_id === viewer.id);
      }, 15_000);
      expect(roles.details.role).to.equal("viewer");

      // A viewer may not read it; another organization's owner gets 404 for this one.
      expect((await auditOf(`/organizations/${organizationId}/audit-log`, viewer.token)).status).to.equal(403);
    });

    it("answers 404 for another organization's audit log and documents, 400 for bad filters", async () => {
      // A member of another organization only.
      const elsewhere = dataOf(await call("POST", "/organizations", { token, body: { name: `Outside ${randomUUID().slice(0, 6)}` } }), 201);
      const outsider = await member("supervisor", elsewhere.id);
      expect((await auditOf(`/organizations/${organizationId}/audit-log`, outsider.token)).status).to.equal(404);
      const documentId = dataOf(await call("POST", `/queues/${queueId}/documents`, { token, body: { file_name: "tenancy.pdf" } }), 201).id;
      await eventually(async () => ((await auditOf(`/documents/${documentId}/audit-log`)).status === 200 ? true : undefined), 15_000);
      const foreign = await auditOf(`/documents/${documentId}/audit-log`, outsider.token);
      expect(foreign.status).to.equal(404);
      expect(foreign.headers.get("content-type")).to.match(/^application\/problem\+json/);

      const bad = await auditOf(`/organizations/${organizationId}/audit-log?type=secrets&from=yesterday`);
      expect(bad.status).to.equal(400);
      expect(bad.body.errors.map((error: { path: string }) => error.path)).to.include.members(["type", "from"]);
    });
  });

  describe("duplicate detection", () => {
    const upload = (queue: string, fileName: string, content: string) =>
      call("POST", `/queues/${queue}/documents`, {
        token,
        body: { file_name: fileName, content: Buffer.from(content).toString("base64") },
      });
    const extract = (documentId: string, annotations: Array<{ key: string; value: string }>) =>
      call("POST", `/documents/${documentId}/extraction`, { token, body: { annotations, confidence: 90 } });

    it("flags the same file and the same supplier + invoice_id both ways, with a warning, within the organization only", async () => {
      const file = `%PDF-1.7 invoice ${randomUUID()}`;
      const first = dataOf(await upload(queueId, "first.pdf", file), 201);
      const second = dataOf(await upload(queueId, "second.pdf", file), 201);
      const again = dataOf(await call("GET", `/documents/${second.id}`, { token }), 200);
      expect(again.duplicates).to.deep.equal([first.id]);
      expect(
        again.messages.some(
          (message: { severity: string; message: string }) => message.severity === "warning" && message.message.includes(first.id),
        ),
      ).to.equal(true);
      expect(dataOf(await call("GET", `/documents/${first.id}`, { token }), 200).duplicates).to.deep.equal([second.id]);

      const invoiceId = `INV-${randomUUID().slice(0, 8)}`;
      const a = dataOf(await upload(queueId, "a.pdf", `a ${randomUUID()}`), 201);
      const b = dataOf(await upload(queueId, "b.pdf", `b ${randomUUID()}`), 201);
      dataOf(
        await extract(a.id, [
          { key: "supplier_tax_id", value: "CZ12345678" },
          { key: "invoice_id", value: invoiceId },
        ]),
        200,
      );
      dataOf(
        await extract(b.id, [
          { key: "supplier_tax_id", value: "cz 1234 5678" },
          { key: "invoice_id", value: ` ${invoiceId.toLowerCase()} ` },
        ]),
        200,
      );
      expect(dataOf(await call("GET", `/documents/${b.id}`, { token }), 200).duplicates).to.deep.equal([a.id]);

      // The same file in another organization is no duplicate.
      const elsewhere = dataOf(
        await call("POST", "/organizations", { token, body: { name: `Dup elsewhere ${randomUUID().slice(0, 6)}` } }),
        201,
      );
      const workspace = await eventually(async () => {
        const answer = await call("POST", "/workspaces", { token, body: { organization_id: elsewhere.id, name: "Other" } });
        return answer.status === 201 ? answer.body.data : undefined;
      }, 10_000);
      const otherQueue = dataOf(await call("POST", "/queues", { token, body: { workspace_id: workspace.id, name: "Other" } }), 201);
      expect(dataOf(await upload(otherQueue.id, "first.pdf", file), 201).duplicates).to.deep.equal([]);
    });

    it("rejects an exact duplicate at upload with 409 when the queue says so, and changes nothing", async () => {
      const strict = dataOf(
        await call("POST", "/queues", { token, body: { workspace_id: workspaceId, name: "Strict", duplicate_file_rejection: "enabled" } }),
        201,
      );
      expect(dataOf(await call("GET", `/queues/${strict.id}`, { token }), 200).duplicate_file_rejection).to.equal("enabled");
      const file = `%PDF strict ${randomUUID()}`;
      const original = dataOf(await upload(strict.id, "original.pdf", file), 201);
      const before = dataOf(await call("GET", `/queues/${strict.id}/documents`, { token }), 200).length;
      const rejected = await upload(strict.id, "copy.pdf", file);
      expect(rejected.status).to.equal(409);
      expect(rejected.headers.get("content-type")).to.match(/^application\/problem\+json/);
      expect(rejected.body).to.include({ code: "duplicate_document", duplicate_of: original.id });
      expect(dataOf(await call("GET", `/queues/${strict.id}/documents`, { token }), 200).length).to.equal(before);

      const bad = await call("POST", "/queues", {
        token,
        body: { workspace_id: workspaceId, name: "Bad", duplicate_file_rejection: true },
      });
      expect(bad.status).to.equal(400);
      expect(bad.body.errors.map((error: { path: string }) => error.path)).to.include("duplicate_file_rejection");
    });
  });
});
