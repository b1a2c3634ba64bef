import { randomUUID } from "node:crypto";
import { eventually, tokenIn } from "@docex/testkit";
import { expect } from "chai";
import { type Answer, type Stack, sharedStack } from "./support/stack.js";

interface DescribedOperation {
  operationId: string;
  security?: unknown[];
  requestBody?: unknown;
}

/** Bodies that would be accepted from a member, so that the stranger's request reaches the access check. */
const PLAUSIBLE_BODIES: Record<string, unknown> = {
  editDocumentAnnotations: { annotations: [{ key: "invoice_id", value: "X" }] },
  changeDocumentStatus: { status: "postponed" },
  recordDocumentExtraction: { annotations: [], confidence: 50 },
  uploadDocument: { file_name: "stranger.pdf" },
  createExport: { name: "Stranger's", format: "json", trigger: "manual" },
  updateExport: { name: "Stranger's" },
  runExport: { document_ids: ["00000000-0000-4000-8000-000000000000"] },
  recordExportResult: { status: "exported", external_id: "STRANGER" },
  createPaymentBatch: { format: "abo", debtor_account: "2400123456/2010", execution_date: "2024-05-01", status: "exported" },
  learnFromDocument: { annotations: { invoice_id: [{ value: "X" }] } },
  relearnForDocument: { name: "Acme", register_id: null, tax_id: null, value: "X", field_key: "invoice_id" },
  relearnForQueue: { name: "Acme", register_id: null, tax_id: null, value: "X", field_key: "invoice_id" },
  updateWebhook: { url: "http://127.0.0.1:9/stranger" },
  saveExternalValidationLink: { url: "http://127.0.0.1:9/stranger", type: "document_validation", signature_verification: "disabled" },
  assignRoles: [{ operation: "invite", email: "stranger-invitee@example.test", role: "viewer" }],
  manageUserSchema: { user_id: randomUUID(), fields: [{ key: "iban", hidden: true }] },
  renameOrganization: { name: "Taken over" },
  renameWorkspace: { name: "Taken over" },
  updateQueue: { name: "Taken over", extraction_engine: "external" },
};

/**
 * Two organizations: everything the first one owns, asked for by a member of the second only,
 * answers exactly as an id that does not exist would (404 where the request is well formed),
 * for every operation of the OpenAPI document; and nothing of the first changes.
 */
describe("tenancy across every operation, through the gateway", function () {
  this.timeout(300_000);
  let stack: Stack;
  let owner = "";
  let stranger = "";
  const ids: Record<string, string> = {};

  const as = (token: string) => (method: string, path: string, body?: unknown) => stack.call(method, path, { token, body });

  async function mustCreate(answer: Promise<Answer>): Promise<Answer> {
    const settled = await answer;
    if (settled.status >= 300) throw new Error(`${settled.status} ${JSON.stringify(settled.body)}`);
    return settled;
  }

  const stateOfOrganization = async () => {
    const read = async (path: string) => {
      const answer = await stack.call("GET", path, { token: owner });
      return { status: answer.status, body: answer.body };
    };
    return Promise.all(
      [
        `/organizations/${ids.organization_id}`,
        `/organizations/${ids.organization_id}/raw-memberships`,
        `/organizations/${ids.organization_id}/webhooks`,
        `/organizations/${ids.organization_id}/webhook-signing-key`,
        `/organizations/${ids.organization_id}/workspaces`,
        `/workspaces/${ids.workspace_id}`,
        `/workspaces/${ids.workspace_id}/queues`,
        `/queues/${ids.queue_id}`,
        `/queues/${ids.queue_id}/documents`,
        `/queues/${ids.queue_id}/webhooks`,
        `/queues/${ids.queue_id}/external-validation-links`,
        `/queues/${ids.queue_id}/accounting-automation-rules`,
        `/queues/${ids.queue_id}/approval-automation`,
        `/queues/${ids.queue_id}/exports`,
        `/documents/${ids.document_id}`,
        `/documents/${ids.document_id}/webhooks`,
        `/webhooks/${ids.webhook_id}`,
        `/webhooks/${ids.webhook_id}/deliveries`,
      ].map(read),
    );
  };

  before(async function () {
    this.timeout(200_000);
    stack = await sharedStack();
    owner = (await stack.login(stack.owner.email, stack.owner.password)).access_token;
    const call = as(owner);
    const organization = await eventually(async () => {
      const answer = await call("GET", "/organizations");
      return answer.body?.data?.find((candidate: { humanized_id: string }) => candidate.humanized_id === "bootstrap");
    }, 20_000);
    ids.organization_id = organization.id;
    ids.workspace_id = (
      await mustCreate(call("POST", "/workspaces", { organization_id: ids.organization_id, name: "Tenancy" }))
    ).body.data.id;
    ids.queue_id = (await mustCreate(call("POST", "/queues", { workspace_id: ids.workspace_id, name: "Tenancy" }))).body.data.id;
    ids.document_id = (await mustCreate(call("POST", `/queues/${ids.queue_id}/documents`, { file_name: "a.pdf" }))).body.data.id;
    await mustCreate(call("POST", `/documents/${ids.document_id}/extraction`, { annotations: [], confidence: 70 }));
    ids.webhook_id = (
      await mustCreate(call("POST", "/webhooks", { url: "http://127.0.0.1:9/a", entity_type: "queue", entity_id: ids.queue_id }))
    ).body.data.id;
    await mustCreate(call("POST", `/organizations/${ids.organization_id}/webhook-signing-key`));
    await mustCreate(
      call("POST", `/queues/${ids.queue_id}/external-validation-links`, {
        url: "http://127.0.0.1:9/v",
        type: "document_validation",
        signature_verification: "disabled",
      }),
    );
    ids.automation_rule_id = (
      await mustCreate(
        call("POST", `/queues/${ids.queue_id}/accounting-automation-rules`, {
          name: "Tenancy rule",
          action: "apply_accounting_automation",
          params: { set: { contract: "C-1" } },
          conditions: { match: "all", rules: [] },
        }),
      )
    ).body.data.id;
    ids.export_id = (
      await mustCreate(call("POST", `/queues/${ids.queue_id}/exports`, { name: "Tenancy", format: "json", trigger: "manual" }))
    ).body.data.id;
    ids.run_id = (await mustCreate(call("POST", `/exports/${ids.export_id}/runs`, { document_ids: [ids.document_id] }))).body.data.id;
    ids.batch_id = (
      await mustCreate(
        call("POST", `/queues/${ids.queue_id}/payment-batches`, {
          format: "abo",
          debtor_account: "2400123456/2010",
          execution_date: "2024-05-01",
          status: "exported",
        }),
      )
    ).body.data.id;
    ids.type = "document_validation";
    ids.delivery_id = randomUUID();
    ids.register_id = randomUUID();

    // The stranger owns an organization of their own and belongs to no other.
    const theirs = (await mustCreate(call("POST", "/organizations", { name: `Strangers ${stack.namespace}` }))).body.data.id;
    const email = `tenancy-stranger-${stack.namespace}@example.test`;
    await mustCreate(call("POST", `/organizations/${theirs}/assign-roles`, [{ operation: "invite", email, role: "owner" }]));
    const invitation = tokenIn(await stack.mail.waitForMail(email, 1, 15_000));
    await mustCreate(stack.call("POST", "/auth/change-password", { body: { token: invitation, password: "a stranger's password" } }));
    stranger = (await stack.login(email, "a stranger's password")).access_token;
  });

  it("answers a member of another organization as if nothing of the first existed, for every operation", async () => {
    const document = (await stack.call("GET", "/openapi.json")).body;
    const before = await stateOfOrganization();
    const leaks: string[] = [];
    let checked = 0;
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, DescribedOperation>>)) {
      const names = [...path.matchAll(/\{([a-z_]+)\}/g)].map((match) => match[1]!);
      if (names.length === 0) continue;
      for (const [method, operation] of Object.entries(methods)) {
        if (Array.isArray(operation.security) && operation.security.length === 0) continue;
        const body = operation.requestBody ? (PLAUSIBLE_BODIES[operation.operationId] ?? {}) : undefined;
        const fill = (real: boolean) =>
          path
            .replace("/api/v2", "")
            .replace(/\{([a-z_]+)\}/g, (_match, name: string) =>
              name === "type" ? "document_validation" : name === "page" ? "1" : real ? ids[name]! : randomUUID(),
            );
        const theirs = await stack.call(method.toUpperCase(), fill(true), { token: stranger, body });
        const nobodys = await stack.call(method.toUpperCase(), fill(false), { token: stranger, body });
        checked += 1;
        const label = `${method.toUpperCase()} ${path} (${operation.operationId})`;
        if (theirs.status !== nobodys.status || theirs.body?.code !== nobodys.body?.code) {
          leaks.push(
            `${label}: ${theirs.status} ${theirs.body?.code} for the other organization's ids, ${nobodys.status} ${nobodys.body?.code} for unknown ones`,
          );
        } else if (theirs.status !== 404 && !(theirs.status === 400 && operation.requestBody && !PLAUSIBLE_BODIES[operation.operationId])) {
          leaks.push(`${label}: ${theirs.status} ${theirs.body?.code}, expected 404`);
        }
      }
    }
    expect(checked).to.be.greaterThan(40);
    expect(leaks, leaks.join("\n")).to.deep.equal([]);
    expect(await stateOfOrganization()).to.deep.equal(before);
  });

  it("never lists the other organization's documents across queues, and its queue and workspace filters answer 404 as unknown ones", async () => {
    const listed = await stack.call("GET", "/documents?page_size=100&status=received,to_validate", { token: stranger });
    expect(listed.status).to.equal(200);
    expect(
      listed.body.data.filter((document: { organization_id: string }) => document.organization_id === ids.organization_id),
    ).to.deep.equal([]);
    for (const name of ["queue_id", "workspace_id"]) {
      const theirs = await stack.call("GET", `/documents?${name}=${ids[name]}`, { token: stranger });
      const nobodys = await stack.call("GET", `/documents?${name}=${randomUUID()}`, { token: stranger });
      expect(theirs.status, name).to.equal(404);
      expect(theirs.body.code, name).to.equal(nobodys.body.code);
    }
  });

  it("refuses to create anything under the other organization's workspace, queue or entities", async () => {
    const call = as(stranger);
    const attempts = [
      call("POST", "/workspaces", { organization_id: ids.organization_id, name: "Intruder" }),
      call("POST", "/workspaces", { organization_id: "bootstrap", name: "Intruder" }),
      call("POST", "/queues", { workspace_id: ids.workspace_id, name: "Intruder" }),
      call("POST", `/queues/${ids.queue_id}/inbox-email`),
      call("PATCH", `/queues/${ids.queue_id}`, { inbox_allowed_senders: ["intruder@elsewhere.test"] }),
      call("POST", "/webhooks", { url: "http://127.0.0.1:9/i", entity_type: "queue", entity_id: ids.queue_id }),
      call("POST", "/webhooks", { url: "http://127.0.0.1:9/i", entity_type: "organization", entity_id: ids.organization_id }),
      call("POST", "/webhooks", { url: "http://127.0.0.1:9/i", entity_type: "document", entity_id: ids.document_id }),
      call("POST", "/registers", [{ queue_id: ids.queue_id, method: "append", name: "Intruders", items: [{ value: "x" }] }]),
    ];
    for (const answer of await Promise.all(attempts)) expect(answer.status, JSON.stringify(answer.body)).to.equal(404);
  });
});
