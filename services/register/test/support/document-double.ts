import { randomUUID } from "node:crypto";
import { NotFoundError } from "@docex/kit/errors";
import { ANY_SERVICE, GrpcServer } from "@docex/kit/grpc";
import { createLogger } from "@docex/kit/logger";
import { type DocumentHandlers, documentService } from "@docex/protos";
import { testGrpcIdentity } from "@docex/testkit";

export interface QueueRow {
  id: string;
  humanizedId: string;
  organizationId: string;
  workspaceId: string;
}

/**
 * A test double of the document service (another context): ResolveEntity for queues, answered from a
 * table the test fills, over real gRPC on 127.0.0.1. The register service calls nothing else of it.
 */
export class DocumentServiceDouble {
  readonly queues: QueueRow[] = [];
  resolveCalls = 0;

  private constructor(
    private readonly server: GrpcServer,
    readonly address: string,
  ) {}

  static async start(): Promise<DocumentServiceDouble> {
    const server = new GrpcServer(createLogger("document-double", "silent"), { identity: testGrpcIdentity("document") });
    let double: DocumentServiceDouble | undefined;
    const unused = async (): Promise<never> => {
      throw new Error("the register service does not call this method");
    };
    const handlers: DocumentHandlers = {
      async ResolveEntity(request) {
        double!.resolveCalls += 1;
        const ref = request.id_or_humanized.toLowerCase();
        const queue = request.entity_type === "queue" ? double!.queues.find((row) => row.id === ref || row.humanizedId === ref) : undefined;
        if (!queue || (request.organization_id && request.organization_id !== queue.organizationId)) {
          throw new NotFoundError(`No ${request.entity_type} ${request.id_or_humanized}.`);
        }
        return {
          entity_type: "queue",
          id: queue.id,
          humanized_id: queue.humanizedId,
          organization_id: queue.organizationId,
          workspace_id: queue.workspaceId,
          queue_id: queue.id,
          document_id: "",
        };
      },
      GetQueue: unused,
      GetDocument: unused,
      ApplyDocumentChanges: unused,
      ReadDocumentFile: async function* () {
        yield await unused();
      },
      RecordExtraction: unused,
      RecordValidationWebhook: unused,
      HasValidationLink: unused,
      ResolveInbox: unused,
      ReceiveEmailDocument: unused,
    };
    server.addService(documentService.definition, documentService.serviceName, handlers, ANY_SERVICE);
    const port = await server.listen("127.0.0.1", 0);
    double = new DocumentServiceDouble(server, `127.0.0.1:${port}`);
    return double;
  }

  addQueue(organizationId: string, humanizedId = `queue-${randomUUID().slice(0, 8)}`): QueueRow {
    const queue = { id: randomUUID(), humanizedId, organizationId, workspaceId: randomUUID() };
    this.queues.push(queue);
    return queue;
  }

  async stop(): Promise<void> {
    await this.server.shutdown(1_000);
  }
}
