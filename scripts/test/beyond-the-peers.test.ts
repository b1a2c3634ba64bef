import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eventually, tokenIn } from "@docex/testkit";
import { signResponse, verifySignature, verifyStandardWebhook, WebhookSignatureError } from "@docex/webhook-kit";
import { expect } from "chai";
import { type Answer, type Stack, sharedStack } from "./support/stack.js";

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A receiver on 127.0.0.1 that records every request, raw. `/events` answers 204; `/validate` answers an empty
 * validation result signed with `validationKey`; `/down` answers 503.
 */
class RecordingEndpoint {
  readonly received: Received[] = [];
  validationKey = "";
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<RecordingEndpoint> {
    let endpoint: RecordingEndpoint | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const path = req.url ?? "/";
        endpoint!.received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
        if (path.startsWith("/validate")) {
          const answer = signResponse([], endpoint!.validationKey);
          res.writeHead(200, answer.headers).end(answer.body);
        } else if (path.startsWith("/down")) res.writeHead(503).end();
        else res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    endpoint = new RecordingEndpoint(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return endpoint;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

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
    queueId = dataOf(
      await call("POST", "/queues", { token, body: { workspace_id: workspaceId, name: "Invoices", extraction_engine: "external" } }),
      201,
    ).id;
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

  describe("webhooks: Standard Webhooks signatures, key rotation grace, failure policy, receiver health", () => {
    let endpoint: RecordingEndpoint;
    let keys: Array<{ key: string; standard_webhooks_secret: string; previous_key_valid_until: string | null }> = [];
    let documentId = "";

    before(async () => {
      endpoint = await RecordingEndpoint.start();
    });
    after(async () => {
      await endpoint?.stop();
    });

    const rotate = async () => {
      // The webhook service learns of a new organization from organization.created, a moment after it exists.
      const answer = await eventually(async () => {
        const created = await call("POST", `/organizations/${organizationId}/webhook-signing-key`, { token });
        return created.status === 404 ? undefined : created;
      }, 10_000);
      keys.push(dataOf(answer, keys.length === 0 ? 201 : 200));
      return keys[keys.length - 1]!;
    };
    const extracted = async (id: string) =>
      dataOf(
        await call("POST", `/documents/${id}/extraction`, {
          token,
          body: { annotations: [{ key: "invoice_id", value: "X" }], confidence: 90 },
        }),
        200,
      );
    const moveTo = async (status: string) =>
      dataOf(await call("POST", `/documents/${documentId}/status`, { token, body: { status } }), 200);
    /** The first delivery of `status` that arrived after the `since`-th request the endpoint got. */
    const deliveryOf = (status: string, since = 0) =>
      eventually(
        () => endpoint.received.slice(since).find((request) => request.path === "/events" && JSON.parse(request.body).status === status),
        20_000,
      );

    it("signs every delivery both ways with the organization's key, and with the new and the previous key for a day after a rotation", async () => {
      keys = [];
      const first = await rotate();
      expect(first.standard_webhooks_secret).to.match(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(first.previous_key_valid_until).to.equal(null);
      dataOf(
        await call("POST", "/webhooks", {
          token,
          body: { url: `${endpoint.url}/events`, entity_type: "queue", entity_id: queueId, signature_verification: "enabled" },
        }),
        201,
      );
      documentId = dataOf(await call("POST", `/queues/${queueId}/documents`, { token, body: { file_name: "signed.pdf" } }), 201).id;
      await extracted(documentId);
      await moveTo("postponed");
      const before = await deliveryOf("postponed");
      expect(verifySignature(before.body, String(before.headers["x-service-signature"]), first.key)).to.equal(true);
      const verified = verifyStandardWebhook(before.body, before.headers, first.standard_webhooks_secret);
      expect(verified.id).to.equal(before.headers["x-service-delivery-id"]);
      expect(String(before.headers["webhook-signature"]).split(" ")).to.have.length(1);
      // A replay ten minutes later is refused.
      expect(() => verifyStandardWebhook(before.body, before.headers, first.standard_webhooks_secret, { now: Date.now() + 600_000 }))
        .to.throw(WebhookSignatureError)
        .with.property("reason", "expired");

      const second = await rotate();
      const sinceRotation = endpoint.received.length;
      expect(Date.parse(second.previous_key_valid_until!)).to.be.closeTo(Date.now() + 24 * 3600 * 1000, 120_000);
      await moveTo("to_validate");
      const after = await deliveryOf("to_validate", sinceRotation);
      expect(String(after.headers["webhook-signature"]).split(" ")).to.have.length(2);
      // A receiver still holding the old key and one already holding the new key both accept it.
      verifyStandardWebhook(after.body, after.headers, first.standard_webhooks_secret);
      verifyStandardWebhook(after.body, after.headers, second.standard_webhooks_secret);
      expect(verifySignature(after.body, String(after.headers["x-service-signature"]), second.key)).to.equal(true);
      expect(verifySignature(after.body, String(after.headers["x-service-signature"]), first.key)).to.equal(false);
    });

    it("accepts validation answers signed with the previous key during the grace window", async () => {
      const [previous] = keys;
      endpoint.validationKey = previous!.key;
      dataOf(
        await call("POST", `/queues/${queueId}/external-validation-links`, {
          token,
          body: { url: `${endpoint.url}/validate`, type: "document_validation", signature_verification: "enabled" },
        }),
        201,
      );
      const edited = dataOf(
        await call("PATCH", `/documents/${documentId}/annotations`, {
          token,
          body: { annotations: [{ key: "invoice_id", value: "G-1" }] },
        }),
        200,
      );
      expect(endpoint.received.some((request) => request.path === "/validate")).to.equal(true);
      expect(edited.messages, JSON.stringify(edited.messages)).to.deep.equal([]);
      expect((await call("DELETE", `/queues/${queueId}/external-validation-links/document_validation`, { token })).status).to.equal(204);
    });

    it("a queue's validation webhook of the deprecated API validates the next edit at once; the queue's link replaces it (200), and one beside the link is 409", async () => {
      const created = await call("POST", "/webhooks", {
        token,
        body: { url: `${endpoint.url}/validate/deprecated`, entity_type: "queue", entity_id: queueId, type: "document_validation" },
      });
      const deprecated = dataOf(created, 201);
      expect(created.headers.get("deprecation")).to.equal("true");
      const before = endpoint.received.length;
      dataOf(
        await call("PATCH", `/documents/${documentId}/annotations`, {
          token,
          body: { annotations: [{ key: "invoice_id", value: "D-1" }] },
        }),
        200,
      );
      expect(endpoint.received.slice(before).some((request) => request.path === "/validate/deprecated")).to.equal(true);

      const link = { url: `${endpoint.url}/validate/link`, type: "document_validation" };
      dataOf(await call("POST", `/queues/${queueId}/external-validation-links`, { token, body: link }), 200);
      expect((await call("GET", `/webhooks/${deprecated.id}`, { token })).status).to.equal(404);
      const beside = await call("POST", "/webhooks", {
        token,
        body: { url: `${endpoint.url}/validate/beside`, entity_type: "queue", entity_id: queueId, type: "document_validation" },
      });
      expect(beside.status).to.equal(409);
      expect(beside.body.code).to.equal("validation_link_exists");
      expect((await call("DELETE", `/queues/${queueId}/external-validation-links/document_validation`, { token })).status).to.equal(204);
    });

    it("with failure_policy block, an unavailable validator leaves an error that stops export; allow leaves a warning", async () => {
      const strictQueue = dataOf(await call("POST", "/queues", { token, body: { workspace_id: workspaceId, name: "Blocked" } }), 201).id;
      const bad = await call("POST", `/queues/${strictQueue}/external-validation-links`, {
        token,
        body: { url: `${endpoint.url}/down`, type: "document_validation", failure_policy: "sometimes" },
      });
      expect(bad.status).to.equal(400);
      expect(bad.body.errors.map((error: { path: string }) => error.path)).to.include("failure_policy");
      const link = dataOf(
        await call("POST", `/queues/${strictQueue}/external-validation-links`, {
          token,
          body: { url: `${endpoint.url}/down`, type: "document_validation", failure_policy: "block" },
        }),
        201,
      );
      expect(link.failure_policy).to.equal("block");
      const blocked = dataOf(await call("POST", `/queues/${strictQueue}/documents`, { token, body: { file_name: "blocked.pdf" } }), 201).id;
      await extracted(blocked);
      const edited = dataOf(
        await call("PATCH", `/documents/${blocked}/annotations`, { token, body: { annotations: [{ key: "invoice_id", value: "B-1" }] } }),
        200,
      );
      expect(edited.messages.map((message: { severity: string }) => message.severity)).to.include("error");
      const refused = await call("POST", `/documents/${blocked}/status`, { token, body: { status: "ready_to_export" } });
      expect(refused.status).to.equal(409);
      expect(refused.body.code).to.equal("blocked_by_error_messages");

      const lenientQueue = dataOf(await call("POST", "/queues", { token, body: { workspace_id: workspaceId, name: "Lenient" } }), 201).id;
      dataOf(
        await call("POST", `/queues/${lenientQueue}/external-validation-links`, {
          token,
          body: { url: `${endpoint.url}/down`, type: "document_validation" },
        }),
        201,
      );
      const lenient = dataOf(
        await call("POST", `/queues/${lenientQueue}/documents`, { token, body: { file_name: "lenient.pdf" } }),
        201,
      ).id;
      const warned = dataOf(
        await call("PATCH", `/documents/${lenient}/annotations`, { token, body: { annotations: [{ key: "invoice_id", value: "L-1" }] } }),
        200,
      );
      const severities = warned.messages.map((message: { severity: string }) => message.severity);
      expect(severities).to.include("warning");
      expect(severities).to.not.include("error");
    });

    it("puts webhook, validation-link and signing-key changes in the audit log, without any key material", async () => {
      const entries = await eventually(async () => {
        const answer = await call("GET", `/organizations/${organizationId}/audit-log?type=configuration&page_size=100`, { token });
        const found = answer.body.data ?? [];
        const resources = new Set(found.map((entry: { details: { resource: string } }) => entry.details.resource));
        return ["webhook", "validation_link", "signing_key"].every((resource) => resources.has(resource)) ? found : undefined;
      }, 15_000);
      const rotations = entries.filter((entry: { details: { resource: string } }) => entry.details.resource === "signing_key");
      expect(rotations.map((entry: { details: { change: string } }) => entry.details.change).sort()).to.deep.equal(["created", "rotated"]);
      expect(rotations.every((entry: { user_id: string }) => entry.user_id === ownerId)).to.equal(true);
      const text = JSON.stringify(entries);
      for (const key of keys) {
        expect(text).to.not.include(key.key);
        expect(text).to.not.include(key.standard_webhooks_secret.slice("whsec_".length));
      }
    });

    it("reports a webhook's health over the last hour, 404 for another organization's webhook", async () => {
      const failing = dataOf(
        await call("POST", "/webhooks", { token, body: { url: `${endpoint.url}/down`, entity_type: "document", entity_id: documentId } }),
        201,
      );
      await moveTo("postponed");
      const health = await eventually(async () => {
        const answer = await call("GET", `/webhooks/${failing.id}/health`, { token });
        return answer.status === 200 && answer.body.data.attempts > 0 ? answer.body.data : undefined;
      }, 20_000);
      expect(health).to.include({ window: "1h", success_rate: 0, last_success_at: null });
      expect(health.failing_since).to.be.a("string");
      expect(["closed", "open", "half_open"]).to.include(health.breaker_state);

      const elsewhere = dataOf(
        await call("POST", "/organizations", { token, body: { name: `Health elsewhere ${randomUUID().slice(0, 6)}` } }),
        201,
      );
      const outsider = await member("supervisor", elsewhere.id);
      expect((await call("GET", `/webhooks/${failing.id}/health`, { token: outsider.token })).status).to.equal(404);
      expect((await call("GET", `/webhooks/${randomUUID()}/health`, { token })).status).to.equal(404);
      expect((await call("GET", "/webhooks/not-a-uuid/health", { token })).status).to.equal(404);
    });
  });
});
