import { randomUUID } from "node:crypto";
import { NotFoundError, ValidationError } from "@docex/kit/errors";
import { ANY_SERVICE, GrpcServer } from "@docex/kit/grpc";
import { createLogger } from "@docex/kit/logger";
import { type DocumentHandlers, type DocumentRecord, documentService } from "@docex/protos";
import { testGrpcIdentity } from "@docex/testkit";

interface Entity {
  type: "organization" | "workspace" | "queue" | "document";
  id: string;
  humanizedId: string;
  organizationId: string;
  workspaceId: string;
  queueId: string;
  approvers: string[];
}

/**
 * A stand-in for the document service's gRPC API (ResolveEntity, GetDocument, RecordValidationWebhook, HasValidationLink) answering from a small table
 * that tests fill. It replaces another service in these tests; the webhook service itself, membership,
 * Postgres, NATS and the receivers are real.
 */
export class DocumentDouble {
  private readonly entities = new Map<string, Entity>();
  /** The validation webhooks the webhook service told of (RecordValidationWebhook), in order. */
  readonly recordedWebhooks: Array<{ webhookId: string; entityType: string; entityId: string; type: string; present: boolean }> = [];
  /** Runs inside RecordValidationWebhook before it answers: a test looks at the caller's state then, or throws to refuse. */
  onRecordValidationWebhook: (() => Promise<void>) | undefined;
  /** The queues' links, as `<queue_id>/<type>` (HasValidationLink answers from them). */
  readonly links = new Set<string>();

  private constructor(
    private readonly server: GrpcServer,
    readonly address: string,
  ) {}

  static async start(): Promise<DocumentDouble> {
    const server = new GrpcServer(createLogger("document-double", "silent"), { identity: testGrpcIdentity("document") });
    let double: DocumentDouble | undefined;
    const handlers: DocumentHandlers = {
      async ResolveEntity(request) {
        if (!["organization", "workspace", "queue", "document"].includes(request.entity_type)) {
          throw new ValidationError("entity_type must be organization, workspace, queue or document.");
        }
        const key = request.id_or_humanized.toLowerCase();
        const entity = [...double!.entities.values()].find(
          (candidate) =>
            candidate.type === request.entity_type && (candidate.id === key || (candidate.humanizedId && candidate.humanizedId === key)),
        );
        if (!entity || (request.organization_id && request.organization_id !== entity.organizationId)) {
          throw new NotFoundError(`No ${request.entity_type} ${request.id_or_humanized}.`);
        }
        return {
          entity_type: entity.type,
          id: entity.id,
          humanized_id: entity.humanizedId,
          organization_id: entity.organizationId,
          workspace_id: entity.workspaceId,
          queue_id: entity.queueId,
          document_id: entity.type === "document" ? entity.id : "",
        };
      },
      async GetDocument(request) {
        const entity = double!.entities.get(request.document_id);
        if (entity?.type !== "document") throw new NotFoundError(`No document ${request.document_id}.`);
        return { document: documentRecord(entity) };
      },
      async GetQueue() {
        throw new NotFoundError("The document double serves ResolveEntity and GetDocument only.");
      },
      async ApplyDocumentChanges() {
        throw new NotFoundError("The document double serves ResolveEntity and GetDocument only.");
      },
      async *ReadDocumentFile() {
        yield await Promise.reject(new NotFoundError("The document double serves ResolveEntity and GetDocument only."));
      },
      async RecordValidationWebhook(request) {
        await double!.onRecordValidationWebhook?.();
        double!.recordedWebhooks.push({
          webhookId: request.webhook_id,
          entityType: request.entity_type,
          entityId: request.entity_id,
          type: request.type,
          present: request.present,
        });
        return {};
      },
      async HasValidationLink(request) {
        return { exists: double!.links.has(`${request.queue_id}/${request.type}`) };
      },
      async RecordExtraction() {
        throw new NotFoundError("The document double serves ResolveEntity and GetDocument only.");
      },
      async ResolveInbox() {
        throw new NotFoundError("The document double serves ResolveEntity and GetDocument only.");
      },
      async ReceiveEmailDocument() {
        throw new NotFoundError("The document double serves ResolveEntity and GetDocument only.");
      },
    };
    server.addService(documentService.definition, documentService.serviceName, handlers, ANY_SERVICE);
    const port = await server.listen("127.0.0.1", 0);
    double = new DocumentDouble(server, `127.0.0.1:${port}`);
    return double;
  }

  /** An organization membership created: the document service learns of it from `organization.created`. */
  addOrganization(id: string, humanizedId: string): void {
    this.entities.set(id, { type: "organization", id, humanizedId, organizationId: id, workspaceId: "", queueId: "", approvers: [] });
  }

  addWorkspace(organizationId: string, humanizedId = ""): string {
    const id = randomUUID();
    this.entities.set(id, { type: "workspace", id, humanizedId, organizationId, workspaceId: id, queueId: "", approvers: [] });
    return id;
  }

  addQueue(workspaceId: string, humanizedId = ""): string {
    const workspace = this.entities.get(workspaceId)!;
    const id = randomUUID();
    this.entities.set(id, {
      type: "queue",
      id,
      humanizedId,
      organizationId: workspace.organizationId,
      workspaceId,
      queueId: id,
      approvers: [],
    });
    return id;
  }

  addDocument(queueId: string, approvers: string[] = []): string {
    const queue = this.entities.get(queueId)!;
    const id = randomUUID();
    this.entities.set(id, {
      type: "document",
      id,
      humanizedId: "",
      organizationId: queue.organizationId,
      workspaceId: queue.workspaceId,
      queueId,
      approvers,
    });
    return id;
  }

  async stop(): Promise<void> {
    await this.server.shutdown(1_000);
  }
}

function documentRecord(entity: Entity): DocumentRecord {
  const now = new Date().toISOString();
  return {
    id: entity.id,
    queue_id: entity.queueId,
    workspace_id: entity.workspaceId,
    organization_id: entity.organizationId,
    file_name: "invoice.pdf",
    status: "to_validate",
    annotations_json: "[]",
    messages_json: "[]",
    options_json: "{}",
    approvers: entity.approvers,
    version: 1,
    created_at: now,
    updated_at: now,
  };
}
