import { ANY_SERVICE, createLogger, GrpcServer, ValidationError } from "@docex/kit";
import { type MembershipHandlers, membershipService } from "@docex/protos";
import { testGrpcIdentity } from "@docex/testkit";

export type Role = "owner" | "supervisor" | "admin" | "editor" | "approver" | "viewer";

export interface MembershipRow {
  organizationId: string;
  userId: string;
  role: Role;
  /** null: every queue of the organization. */
  queueIds: string[] | null;
}

/**
 * A test double of the membership service (another context): CheckPermission and GetRoles answered from a
 * table the test fills, following the roles table of API.md, over real gRPC on 127.0.0.1.
 */
export class MembershipServiceDouble {
  readonly memberships: MembershipRow[] = [];
  readonly permissionCalls: { permission: string; queue_id?: string | undefined }[] = [];

  private constructor(
    private readonly server: GrpcServer,
    readonly address: string,
  ) {}

  static async start(): Promise<MembershipServiceDouble> {
    const server = new GrpcServer(createLogger("membership-double", "silent"), { identity: testGrpcIdentity("membership") });
    let double: MembershipServiceDouble | undefined;
    const unused = async (): Promise<never> => {
      throw new Error("the register service does not call this method");
    };
    const find = (organizationId: string, userId: string) =>
      double!.memberships.find((row) => row.organizationId === organizationId && row.userId === userId);
    const handlers: MembershipHandlers = {
      async CheckPermission(request) {
        double!.permissionCalls.push({ permission: request.permission, queue_id: request.queue_id });
        const membership = find(request.organization_id, request.user_id);
        if (!membership) return { allowed: false, is_member: false, role: "" };
        const wholeOrganization = membership.role === "owner" || membership.role === "supervisor";
        const inQueues = !request.queue_id || membership.queueIds === null || membership.queueIds.includes(request.queue_id);
        let allowed: boolean;
        switch (request.permission) {
          case "document.read":
            allowed = wholeOrganization || inQueues;
            break;
          case "queue.manage":
            allowed = wholeOrganization || (membership.role === "admin" && inQueues);
            break;
          default:
            throw new ValidationError(`The register service does not ask about ${request.permission}.`);
        }
        return { allowed, is_member: true, role: membership.role };
      },
      async GetRoles(request) {
        const membership = find(request.organization_id, request.user_id);
        if (!membership) return { role: "", queue_ids: [], all_queues: false, status: "" };
        return { role: membership.role, queue_ids: membership.queueIds ?? [], all_queues: membership.queueIds === null, status: "active" };
      },
      CreateOrganization: unused,
      GetUserSchema: unused,
      ListOrganizationsOfUser: unused,
      GetOrganization: unused,
      AcceptInvitation: unused,
    };
    server.addService(membershipService.definition, membershipService.serviceName, handlers, ANY_SERVICE);
    const port = await server.listen("127.0.0.1", 0);
    double = new MembershipServiceDouble(server, `127.0.0.1:${port}`);
    return double;
  }

  async stop(): Promise<void> {
    await this.server.shutdown(1_000);
  }
}
