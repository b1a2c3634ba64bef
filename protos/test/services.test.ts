import { NotFoundError } from "@docex/kit/errors";
import { ANY_SERVICE, GrpcServer } from "@docex/kit/grpc";
import { createLogger } from "@docex/kit/logger";
import { testGrpcIdentity } from "@docex/testkit";
import * as grpc from "@grpc/grpc-js";
import { expect } from "chai";
import { service as healthService } from "grpc-health-check";
import {
  authService,
  automationService,
  createDocumentClient,
  createMembershipClient,
  type DocumentHandlers,
  documentService,
  type FileChunk,
  type MembershipClient,
  type MembershipHandlers,
  membershipService,
  registerService,
  type ServiceDescriptor,
  webhookService,
} from "../src/index.js";

/** The only methods that are not unary: server streams. */
const SERVER_STREAMS = ["docex.document.v1.Document/ReadDocumentFile"];

const expectedServices: [ServiceDescriptor<grpc.ServiceDefinition>, string, string[]][] = [
  [authService, "docex.auth.v1.Auth", ["CreateInvitation", "FindUserByEmail", "GetUser"]],
  [
    membershipService,
    "docex.membership.v1.Membership",
    [
      "AcceptInvitation",
      "CheckPermission",
      "CreateOrganization",
      "GetOrganization",
      "GetRoles",
      "GetUserSchema",
      "ListOrganizationsOfUser",
    ],
  ],
  [
    documentService,
    "docex.document.v1.Document",
    [
      "ApplyDocumentChanges",
      "GetDocument",
      "GetQueue",
      "HasValidationLink",
      "ReadDocumentFile",
      "ReceiveEmailDocument",
      "RecordExtraction",
      "RecordValidationWebhook",
      "ResolveEntity",
      "ResolveInbox",
    ],
  ],
  [automationService, "docex.automation.v1.Automation", ["GetQueueAutomation", "PlanApprovalRoute"]],
  [registerService, "docex.register.v1.Register", ["LookupItems"]],
  [
    webhookService,
    "docex.webhook.v1.Webhook",
    ["DeleteValidationWebhook", "DescribeValidationTargets", "RegisterValidationTarget", "Validate"],
  ],
];

describe("protos", () => {
  describe("service definitions", () => {
    for (const [service, name, methods] of expectedServices) {
      it(`${name} loads with exactly the methods ${methods.join(", ")}`, () => {
        expect(service.serviceName).to.equal(name);
        expect(Object.keys(service.definition).sort()).to.deep.equal(methods);
        for (const method of methods) {
          const definition = service.definition[method];
          expect(definition?.path).to.equal(`/${name}/${method}`);
          expect(definition?.requestStream).to.equal(false);
          expect(definition?.responseStream).to.equal(SERVER_STREAMS.includes(`${name}/${method}`));
        }
        expect(service.Client.service).to.equal(service.definition);
      });
    }

    it("fills absent fields with proto3 defaults but leaves `optional` fields out, so handlers can tell them apart", () => {
      const checkPermission = membershipService.definition.CheckPermission;
      const decoded = checkPermission.requestDeserialize(checkPermission.requestSerialize({ user_id: "u1", permission: "document.read" }));
      expect(decoded).to.deep.equal({ user_id: "u1", organization_id: "", permission: "document.read" });
    });

    it("keeps JSON string fields byte for byte", () => {
      const getDocument = documentService.definition.GetDocument;
      const annotations = JSON.stringify([
        { key: "total_due", value: "1 234,50", numericValue: 1234.5 },
        { key: "poznámka", value: "€ ✓" },
      ]);
      const decoded = getDocument.responseDeserialize(
        getDocument.responseSerialize({ document: { id: "d1", annotations_json: annotations, version: 7 } }),
      );
      expect(decoded.document?.annotations_json).to.equal(annotations);
      expect(decoded.document?.version).to.equal(7);
      expect(decoded.document?.confidence).to.equal(undefined);
    });
  });

  describe("a kit GrpcServer and a typed client in one process", () => {
    let server: GrpcServer;
    let client: MembershipClient;
    let address: string;
    const seenRequestIds: string[] = [];

    const handlers: MembershipHandlers = {
      async GetRoles(request, ctx) {
        seenRequestIds.push(ctx.requestId);
        return { role: "admin", queue_ids: [`queue-of-${request.user_id}`], all_queues: false, status: "active" };
      },
      async CheckPermission() {
        throw new NotFoundError("No such organization.");
      },
      async CreateOrganization(request) {
        return {
          organization: {
            id: "o1",
            humanized_id: request.humanized_id ?? "derived",
            name: request.name,
            created_at: "2025-01-01T00:00:00.000Z",
          },
          created: true,
        };
      },
      async GetUserSchema() {
        return { fields: [] };
      },
      async ListOrganizationsOfUser() {
        return { organizations: [] };
      },
      async GetOrganization() {
        throw new NotFoundError("no such organization");
      },
      async AcceptInvitation() {
        throw new NotFoundError("no such invitation");
      },
    };

    before(async () => {
      server = new GrpcServer(createLogger("protos-test", "silent"), { identity: testGrpcIdentity("membership") });
      server.addService(membershipService.definition, membershipService.serviceName, handlers, ANY_SERVICE);
      const port = await server.listen("127.0.0.1", 0);
      address = `127.0.0.1:${port}`;
      client = createMembershipClient(address, { identity: testGrpcIdentity("document"), deadlineMs: 5_000 });
    });

    after(async () => {
      client.close();
      await server.shutdown(1_000);
    });

    it("answers a call with the handler's response and passes the request id", async () => {
      const response = await client.getRoles({ user_id: "u1", organization_id: "o1" }, { requestId: "req-42" });
      expect(response).to.deep.equal({ role: "admin", queue_ids: ["queue-of-u1"], all_queues: false, status: "active" });
      expect(seenRequestIds).to.deep.equal(["req-42"]);
    });

    it("lets a handler see whether an optional field was sent", async () => {
      const withSlug = await client.createOrganization({ name: "Acme", humanized_id: "acme", owner_user_id: "u1", idempotency_key: "k1" });
      const withoutSlug = await client.createOrganization({ name: "Acme", owner_user_id: "u1", idempotency_key: "k2" });
      expect(withSlug.organization?.humanized_id).to.equal("acme");
      expect(withoutSlug.organization?.humanized_id).to.equal("derived");
    });

    it("delivers a NotFoundError thrown by the handler as a NotFoundError to the caller", async () => {
      const error = await client.checkPermission({ user_id: "u1", organization_id: "o1", permission: "document.read" }).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).to.be.instanceOf(NotFoundError);
      expect((error as NotFoundError).message).to.equal("No such organization.");
    });

    it("answers grpc.health.v1 Check with SERVING for the server and for the service", async () => {
      const checkMethod = healthService.Check;
      if (!checkMethod) throw new Error("grpc-health-check defines no Check method");
      const caller = testGrpcIdentity("document");
      const health = new grpc.Client(address, caller.channelCredentials(), caller.channelOptions("membership"));
      const check = (service: string) =>
        new Promise<unknown>((resolve, reject) => {
          health.makeUnaryRequest(
            checkMethod.path,
            checkMethod.requestSerialize,
            checkMethod.responseDeserialize,
            { service },
            (error, response) => (error ? reject(error) : resolve(response)),
          );
        });
      try {
        expect(await check("")).to.deep.include({ status: "SERVING" });
        expect(await check(membershipService.serviceName)).to.deep.include({ status: "SERVING" });
      } finally {
        health.close();
      }
    });
  });

  describe("a server-streaming method (Document/ReadDocumentFile)", () => {
    let server: GrpcServer;
    let address: string;
    let cancelled = 0;
    const CHUNKS = 50;

    before(async () => {
      const handlers: Partial<DocumentHandlers> = {
        async *ReadDocumentFile(request, ctx) {
          if (request.document_id !== "d1") throw new NotFoundError(`Document ${request.document_id} has no file.`);
          let sent = 0;
          try {
            for (; sent < CHUNKS && !ctx.signal?.aborted; sent++) {
              yield {
                data: Buffer.alloc(64 * 1024, sent),
                content_type: sent === 0 ? "application/pdf" : "",
                file_name: sent === 0 ? "a.pdf" : "",
                size: sent === 0 ? String(CHUNKS * 64 * 1024) : "0",
              };
              await new Promise((resolve) => setImmediate(resolve));
            }
          } finally {
            if (sent < CHUNKS) cancelled++;
          }
        },
      };
      server = new GrpcServer(createLogger("protos-test", "silent"), { identity: testGrpcIdentity("document") });
      server.addService(documentService.definition, documentService.serviceName, handlers as DocumentHandlers, ANY_SERVICE);
      address = `127.0.0.1:${await server.listen("127.0.0.1", 0)}`;
    });

    after(async () => {
      await server.shutdown(1_000);
    });

    it("delivers every message in order, the metadata on the first", async () => {
      const client = createDocumentClient(address, { identity: testGrpcIdentity("extraction"), deadlineMs: 10_000 });
      try {
        const chunks: FileChunk[] = [];
        for await (const chunk of client.readDocumentFile({ organization_id: "o1", document_id: "d1" })) chunks.push(chunk);
        expect(chunks).to.have.length(CHUNKS);
        expect(chunks[0]?.content_type).to.equal("application/pdf");
        expect(chunks[0]?.size).to.equal(String(CHUNKS * 64 * 1024));
        for (const [index, chunk] of chunks.entries()) expect(chunk.data.equals(Buffer.alloc(64 * 1024, index))).to.equal(true);
      } finally {
        client.close();
      }
    });

    it("throws the handler's NotFoundError from the iteration", async () => {
      const client = createDocumentClient(address, { identity: testGrpcIdentity("extraction"), deadlineMs: 10_000 });
      try {
        const error = await (async () => {
          for await (const _chunk of client.readDocumentFile({ organization_id: "o1", document_id: "nope" })) return undefined;
          return undefined;
        })().catch((reason: unknown) => reason);
        expect(error).to.be.instanceOf(NotFoundError);
        expect((error as NotFoundError).message).to.equal("Document nope has no file.");
      } finally {
        client.close();
      }
    });

    it("cancels the call on the server when the caller stops reading early", async () => {
      const client = createDocumentClient(address, { identity: testGrpcIdentity("extraction"), deadlineMs: 10_000 });
      try {
        for await (const _chunk of client.readDocumentFile({ organization_id: "o1", document_id: "d1" })) break;
        const until = Date.now() + 5_000;
        while (cancelled === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(cancelled).to.equal(1);
      } finally {
        client.close();
      }
    });
  });
});
