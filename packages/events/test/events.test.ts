import { expect } from "chai";
import {
  createEvent,
  type DocexEvent,
  EVENT_TYPES,
  type EventData,
  type EventType,
  EventValidationError,
  eventDataSchemas,
  eventSubject,
  parseEvent,
  STREAM_NAME,
} from "../src/index.js";

const org = "6f1c2a3e-0b4d-4c5e-8f60-718293a4b5c6";
const user = "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d";
const queue = "11111111-2222-4333-8444-555555555555";
const workspace = "99999999-8888-4777-8666-555555555555";
const documentId = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
const rule = "12345678-1234-4234-8234-123456789abc";
const register = "87654321-4321-4321-8321-cba987654321";

const annotations = [
  { key: "total_due", value: "1 234,50", numericValue: 1234.5, confidence: 97.5, source: "ai" },
  { key: "due_date", value: "1. 2. 2025", isoDateValue: "2025-02-01" },
  { key: "bank_account", value: "123/0100", values: [{ value: "456/0800" }] },
  {
    key: "line_items",
    value: "",
    rows: [{ activity: { value: "Consulting" }, total_incl_tax: { value: "1 234,50", numericValue: 1234.5 } }],
  },
];

const samples: { [T in EventType]: EventData<T> } = {
  "auth.user_onboarded": {
    user_id: user,
    email: "jana@example.com",
    company: "Acme s.r.o.",
    vat_id: "CZ12345678",
    register_id: null,
    erp: null,
    invoice_count: 120,
    ui_locale: "cs_CZ",
  },
  "auth.mail_requested": { recipient: "jana@example.com", template: "invitation", locale: "en", user_id: user },
  "auth.login_attempted": { user_id: null, email: "nobody@example.com", method: "pwd", succeeded: false, failure: "invalid_credentials" },
  "membership.changed": {
    organization_id: org,
    user_id: user,
    role: "editor",
    previous_role: null,
    queue_ids: [queue],
    status: "invited",
  },
  "organization.created": { organization_id: org, humanized_id: "acme", name: "Acme", owner_user_id: user },
  "queue.created": { workspace_id: workspace, queue_id: queue, organization_id: org },
  "document.created": {
    document_id: documentId,
    queue_id: queue,
    workspace_id: workspace,
    organization_id: org,
    file_name: "invoice.pdf",
    file_sha256: "a".repeat(64),
  },
  "document.extracted": {
    document_id: documentId,
    queue_id: queue,
    workspace_id: workspace,
    organization_id: org,
    annotations,
    confidence: 88,
    version: 2,
  },
  "document.annotations_changed": {
    document_id: documentId,
    queue_id: queue,
    workspace_id: workspace,
    user_id: user,
    previous_annotations: annotations.slice(0, 1),
    annotations,
    version: 3,
  },
  "document.status_changed": {
    document_id: documentId,
    queue_id: queue,
    workspace_id: workspace,
    status: "ready_to_export",
    previous_status: "to_validate",
    user_id: null,
  },
  "queue.deleted": { workspace_id: workspace, queue_id: queue, organization_id: org },
  "workspace.deleted": { workspace_id: workspace, organization_id: org },
  "document.approved": {
    document_id: documentId,
    queue_id: queue,
    workspace_id: workspace,
    user_id: user,
    stage: 1,
    stages: 2,
    approvals: 2,
    min_approvals: 2,
    stage_completed: true,
  },
  "automation.applied": { document_id: documentId, queue_id: queue, applied_rules: [rule], status: "in_approval" },
  "learning.feedback": {
    queue_id: queue,
    document_id: null,
    kind: "relearn",
    supplier: { tax_id: "CZ12345678", register_id: null, name: null },
    payload: { field_key: "contract", value: null },
  },
  "register.updated": { register_id: register, queue_id: queue, name: "suppliers", method: "upsert", item_count: 3 },
  "configuration.changed": {
    resource: "webhook",
    resource_id: rule,
    queue_id: queue,
    change: "updated",
    previous: { active: true },
    current: { active: false },
  },
  "user.personal_data_erased": { user_id: user },
  "member.personal_data_erased": { organization_id: org, user_id: user, account_erased: false },
  "documents.purged": { organization_id: org, workspace_id: workspace, queue_id: queue, document_ids: [documentId] },
};

function rejection(action: () => unknown): EventValidationError {
  try {
    action();
  } catch (error) {
    expect(error).to.be.instanceOf(EventValidationError);
    return error as EventValidationError;
  }
  throw new Error("expected an EventValidationError");
}

describe("events", () => {
  it("has a data schema for every event type and nothing else", () => {
    expect(Object.keys(eventDataSchemas).sort()).to.deep.equal([...EVENT_TYPES].sort());
    expect(Object.keys(samples).sort()).to.deep.equal([...EVENT_TYPES].sort());
  });

  describe("round trip through createEvent, JSON and parseEvent", () => {
    for (const type of EVENT_TYPES) {
      it(`keeps every field of ${type}`, () => {
        const event = createEvent(type, { organization_id: org, data: samples[type], request_id: "req-1" });
        expect(event.type).to.equal(type);
        expect(event.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(Date.parse(event.occurred_at)).to.be.closeTo(Date.now(), 5_000);
        const parsed = parseEvent(JSON.parse(JSON.stringify(event)), type);
        expect(parsed).to.deep.equal(event);
        expect(parsed.data).to.deep.equal(samples[type]);
        expect(parsed.request_id).to.equal("req-1");
      });
    }
  });

  it("carries a learn feedback with its annotation set and visibilities", () => {
    const data: EventData<"learning.feedback"> = {
      queue_id: queue,
      document_id: documentId,
      kind: "learn",
      supplier: { tax_id: null, register_id: "12345678", name: "Acme" },
      payload: {
        annotations: { total_due: [{ value: "10", numeric_value: 10 }], line_items: [{ activity: [{ value: "A" }] }] },
        line_items_visibility: "visible",
        tax_detail_visibility: null,
      },
    };
    const event = parseEvent(JSON.parse(JSON.stringify(createEvent("learning.feedback", { organization_id: org, data }))));
    expect(event.data).to.deep.equal(data);
  });

  it("gives each event a new id and omits request_id when none is given", () => {
    const first = createEvent("queue.created", { organization_id: org, data: samples["queue.created"] });
    const second = createEvent("queue.created", { organization_id: org, data: samples["queue.created"] });
    expect(first.id).to.not.equal(second.id);
    expect(first).to.not.have.property("request_id");
  });

  it("carries the acting user, and rejects an actor that is not a user id", () => {
    const event = createEvent("queue.created", { organization_id: org, data: samples["queue.created"], actor_user_id: user });
    expect(parseEvent(JSON.parse(JSON.stringify(event))).actor_user_id).to.equal(user);
    expect(createEvent("queue.created", { organization_id: org, data: samples["queue.created"] })).to.not.have.property("actor_user_id");
    const bad = rejection(() => parseEvent({ ...event, actor_user_id: "someone" }));
    expect(bad.issues.map((issue) => issue.path)).to.deep.equal(["actor_user_id"]);
  });

  it("keeps secrets out of login events: no field beyond the schema", () => {
    const error = rejection(() =>
      createEvent("auth.login_attempted", {
        organization_id: null,
        data: { ...samples["auth.login_attempted"], password: "hunter2" } as never,
      }),
    );
    expect(error.issues.map((issue) => issue.path)).to.deep.equal(["data"]);
  });

  it("accepts events outside any organization", () => {
    const event = createEvent("auth.mail_requested", {
      organization_id: null,
      data: { recipient: "jana@example.com", template: "magic_link", locale: "cs" },
    });
    expect(parseEvent(event).organization_id).to.equal(null);
  });

  it("narrows the data by type when parsed without an expected type", () => {
    const event: DocexEvent = parseEvent(
      createEvent("document.status_changed", { organization_id: org, data: samples["document.status_changed"] }),
    );
    if (event.type !== "document.status_changed") throw new Error("wrong type");
    expect(event.data.previous_status).to.equal("to_validate");
  });

  describe("rejects bad events and names the bad field", () => {
    it("a status that is not a document status", () => {
      const error = rejection(() =>
        createEvent("document.status_changed", {
          organization_id: org,
          data: { ...samples["document.status_changed"], status: "done" as "exported" },
        }),
      );
      expect(error.eventType).to.equal("document.status_changed");
      expect(error.issues.map((issue) => issue.path)).to.deep.equal(["data.status"]);
      expect(error.message).to.contain("data.status");
    });

    it("a missing field and a malformed id inside data, all listed", () => {
      const { queue_id: _dropped, ...data } = samples["queue.created"];
      const error = rejection(() =>
        parseEvent({
          ...createEvent("queue.created", { organization_id: org, data: samples["queue.created"] }),
          data: { ...data, workspace_id: "ws-1" },
        }),
      );
      expect(error.issues.map((issue) => issue.path).sort()).to.deep.equal(["data.queue_id", "data.workspace_id"]);
    });

    it("a secret added to auth.mail_requested", () => {
      const error = rejection(() =>
        createEvent("auth.mail_requested", {
          organization_id: null,
          data: { ...samples["auth.mail_requested"], token: "s3cret" } as EventData<"auth.mail_requested">,
        }),
      );
      expect(error.message).to.contain("token");
      expect(error.message).to.not.contain("s3cret");
    });

    it("an annotation without its key inside document.extracted", () => {
      const error = rejection(() =>
        createEvent("document.extracted", {
          organization_id: org,
          data: { ...samples["document.extracted"], annotations: [{ value: "x" } as (typeof annotations)[number]] },
        }),
      );
      expect(error.issues.map((issue) => issue.path)).to.deep.equal(["data.annotations.0.key"]);
    });

    it("an unknown type, a bad timestamp and a missing id in the envelope", () => {
      const error = rejection(() => parseEvent({ type: "document.printed", occurred_at: "yesterday", organization_id: null, data: {} }));
      expect(error.issues.map((issue) => issue.path).sort()).to.deep.equal(["id", "occurred_at", "type"]);
    });

    it("an event of another type than the consumer expects", () => {
      const event = createEvent("queue.created", { organization_id: org, data: samples["queue.created"] });
      const error = rejection(() => parseEvent(event, "document.status_changed"));
      expect(error.issues).to.deep.equal([{ path: "type", message: "expected document.status_changed" }]);
    });

    it("something that is not an object", () => {
      expect(rejection(() => parseEvent("hello")).issues).to.have.length(1);
    });
  });

  describe("subjects", () => {
    it("publishes each type on docex.<type> in the DOCEX stream", () => {
      expect(STREAM_NAME).to.equal("DOCEX");
      expect(eventSubject("document.status_changed")).to.equal("docex.document.status_changed");
      for (const type of EVENT_TYPES) expect(eventSubject(type)).to.equal(`docex.${type}`);
    });
  });
});
