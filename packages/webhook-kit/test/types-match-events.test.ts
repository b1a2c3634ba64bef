import { fileURLToPath } from "node:url";
import {
  documentStatusChangedPayloadSchema,
  SEVERITIES as EVENTS_SEVERITIES,
  queueCreatedPayloadSchema,
  validationAnswerSchema,
  validationRequestPayloadSchema,
  WEBHOOK_TYPES,
} from "@docex/events";
import { expect } from "chai";
import ts from "typescript";
import {
  type DocumentStatusChangedPayload,
  type QueueCreatedPayload,
  SEVERITIES,
  type ValidationAnswerList,
  type ValidationAnswerResults,
  type ValidationRequestPayload,
  WEBHOOK_EVENTS,
} from "../src/index.js";

/*
 * The kit declares its types itself so that the published package depends on nothing; these tests keep
 * them equal to the zod schemas docex validates with (@docex/events).
 */
describe("the kit's types and docex's own schemas (@docex/events)", () => {
  it("are the same types, as the TypeScript compiler sees them (exactOptionalPropertyTypes on)", function () {
    this.timeout(60_000);
    const file = fileURLToPath(new URL("./type-checks/types-match-events.ts", import.meta.url));
    const config = ts.getParsedCommandLineOfConfigFile(
      fileURLToPath(new URL("../tsconfig.json", import.meta.url)),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
          throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
        },
      },
    );
    const { rootDir: _rootDir, outDir: _outDir, ...options } = config!.options;
    const program = ts.createProgram([file], { ...options, noEmit: true, exactOptionalPropertyTypes: true });
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const where = diagnostic.file?.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      return `${diagnostic.file?.fileName ?? ""}:${(where?.line ?? 0) + 1} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")}`;
    });
    expect(problems).to.deep.equal([]);
  });

  it("list the same webhook events and severities, in the same order", () => {
    expect(WEBHOOK_EVENTS).to.deep.equal(WEBHOOK_TYPES);
    expect(SEVERITIES).to.deep.equal(EVENTS_SEVERITIES);
  });

  it("describe payloads and answers that docex's schemas accept", () => {
    const status: DocumentStatusChangedPayload = {
      document_id: "5b0f3c1e-7a2d-4e8b-9c6f-1d2e3f4a5b6c",
      queue_id: "0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b",
      status: "to_validate",
      webhook_event: "document_status_changed",
    };
    const queue: QueueCreatedPayload = { workspace_id: status.queue_id, queue_id: status.document_id, webhook_event: "queue_created" };
    const validation: ValidationRequestPayload = {
      document_id: status.document_id,
      queue_id: status.queue_id,
      user_id: null,
      previous_annotations: [],
      annotations: [
        { key: "total_due", value: "1 234,50", numericValue: 1234.5, confidence: 97, source: "ai" },
        { key: "bank_account", value: "123/0100", values: [{ value: "456/0800" }] },
        { key: "line_items", value: "", rows: [{ activity: { value: "Consulting" }, total_incl_tax: { value: "10", numericValue: 10 } }] },
      ],
      webhook_event: "initial_document_validation",
    };
    const list: ValidationAnswerList = [{ key: "iban", value: "CZ6508000000192000145399" }];
    const results: ValidationAnswerResults = {
      results: [
        {
          key: "line_items",
          validationResults: [{ message: "Row 1 has no VAT rate", severity: "warning" }],
          results: [{ key: "activity", rowIndex: 0, value: "Consulting services" }],
        },
        { key: "supplier_name", value: "Acme s.r.o.", options: [{ label: "Acme", value: "acme" }] },
      ],
    };
    expect(documentStatusChangedPayloadSchema.parse(status)).to.deep.equal(status);
    expect(queueCreatedPayloadSchema.parse(queue)).to.deep.equal(queue);
    expect(validationRequestPayloadSchema.parse(validation)).to.deep.equal(validation);
    expect(validationAnswerSchema.parse(list)).to.deep.equal(list);
    expect(validationAnswerSchema.parse(results)).to.deep.equal(results);
  });
});
