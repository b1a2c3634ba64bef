import { randomUUID } from "node:crypto";
import { NotFoundError, ValidationError } from "@docex/kit/errors";
import { ANY_SERVICE, type GrpcIdentity, GrpcServer } from "@docex/kit/grpc";
import { createLogger } from "@docex/kit/logger";
import { type MembershipHandlers, membershipService, type Organization } from "@docex/protos";
import { testGrpcIdentity } from "@docex/testkit";

export type Role = "owner" | "supervisor" | "admin" | "editor" | "approver" | "viewer";

interface Member {
  role: Role;
  /** Null: every queue of the organization. */
  queueIds: string[] | null;
  fields: Array<{ key: string; hidden: boolean; readonly: boolean }>;
}

const LIMITED_ROLES = new Set<Role>(["admin", "editor", "approver", "viewer"]);

/** API.md "Roles": which role may do what. The real membership service is the one place this lives; this is its stand-in. */
const PERMISSIONS: Record<string, ReadonlySet<Role>> = {
  "document.read": new Set(["owner", "supervisor", "admin", "editor", "approver", "viewer"]),
  "document.edit": new Set(["owner", "supervisor", "admin", "editor"]),
  "document.approve": new Set(["owner", "supervisor", "admin", "editor", "approver"]),
  "workspace.create": new Set(["owner", "supervisor"]),
  "queue.manage": new Set(["owner", "supervisor", "admin"]),
  "signing_key.manage": new Set(["owner", "supervisor"]),
  "user.manage": new Set(["owner", "supervisor", "admin"]),
};

/**
 * A stand-in for the membership service over real gRPC on 127.0.0.1, for the tests of the services that ask
 * it who may do what: it answers CheckPermission, GetRoles, GetUserSchema, GetOrganization and
 * ListOrganizationsOfUser from a table of (user, organization) → role, queue_ids and user schema the test
 * fills, and records the CheckPermission calls it gets.
 */
export class MembershipDouble {
  readonly organizations = new Map<string, Organization & { members: Map<string, Member> }>();
  /** The CheckPermission questions asked, in order. */
  readonly permissionCalls: Array<{ permission: string; queue_id?: string | undefined }> = [];

  private constructor(
    private readonly server: GrpcServer,
    readonly address: string,
  ) {}

  get checkPermissionCalls(): number {
    return this.permissionCalls.length;
  }

  static async start(options: { identity?: GrpcIdentity } = {}): Promise<MembershipDouble> {
    const server = new GrpcServer(createLogger("membership-double", "silent"), {
      identity: options.identity ?? testGrpcIdentity("membership"),
    });
    let double: MembershipDouble | undefined;
    const member = (userId: string, organizationId: string) => double!.organizations.get(organizationId)?.members.get(userId);
    const handlers: MembershipHandlers = {
      async GetRoles(request) {
        const found = member(request.user_id, request.organization_id);
        return {
          role: found?.role ?? "",
          queue_ids: found?.queueIds ?? [],
          all_queues: found ? found.queueIds === null : false,
          status: found ? "active" : "",
        };
      },
      async CheckPermission(request) {
        double!.permissionCalls.push({ permission: request.permission, queue_id: request.queue_id });
        const allowedRoles = PERMISSIONS[request.permission];
        if (!allowedRoles) throw new ValidationError(`unknown permission ${request.permission}`);
        const found = member(request.user_id, request.organization_id);
        if (!found) return { allowed: false, is_member: false, role: "" };
        const withinQueues =
          !request.queue_id || !LIMITED_ROLES.has(found.role) || found.queueIds === null || found.queueIds.includes(request.queue_id);
        const adminCreatingQueues = request.permission === "queue.manage" && found.role === "admin" && !request.queue_id;
        const allowed = allowedRoles.has(found.role) && withinQueues && !(adminCreatingQueues && found.queueIds !== null);
        return { allowed, is_member: true, role: found.role };
      },
      async CreateOrganization() {
        throw new Error("the membership double does not create organizations; call addOrganization");
      },
      async GetUserSchema(request) {
        return { fields: member(request.user_id, request.organization_id)?.fields ?? [] };
      },
      async AcceptInvitation() {
        throw new Error("the membership double does not accept invitations");
      },
      async GetOrganization(request) {
        const ref = request.id_or_humanized.toLowerCase();
        const found = [...double!.organizations.values()].find(
          (organization) => organization.id === ref || organization.humanized_id === ref,
        );
        if (!found) throw new NotFoundError(`no organization ${request.id_or_humanized}`);
        const { id, humanized_id, name, created_at } = found;
        return { organization: { id, humanized_id, name, created_at } };
      },
      async ListOrganizationsOfUser(request) {
        const organizations = [...double!.organizations.values()].filter((organization) => organization.members.has(request.user_id));
        return { organizations: organizations.map(({ id, humanized_id, name, created_at }) => ({ id, humanized_id, name, created_at })) };
      },
    };
    server.addService(membershipService.definition, membershipService.serviceName, handlers, ANY_SERVICE);
    const port = await server.listen("127.0.0.1", 0);
    double = new MembershipDouble(server, `127.0.0.1:${port}`);
    return double;
  }

  addOrganization(humanizedId: string, ownerUserId: string): Organization {
    const organization = { id: randomUUID(), humanized_id: humanizedId, name: humanizedId, created_at: new Date().toISOString() };
    this.organizations.set(organization.id, { ...organization, members: new Map() });
    this.setRole(organization.id, ownerUserId, "owner");
    return organization;
  }

  /** Gives the user a role; an organization the test never added is created bare, named by its id. */
  setRole(organizationId: string, userId: string, role: Role, queueIds: string[] | null = null): void {
    let organization = this.organizations.get(organizationId);
    if (!organization) {
      organization = {
        id: organizationId,
        humanized_id: organizationId,
        name: organizationId,
        created_at: new Date().toISOString(),
        members: new Map(),
      };
      this.organizations.set(organizationId, organization);
    }
    const fields = organization.members.get(userId)?.fields ?? [];
    organization.members.set(userId, { role, queueIds, fields });
  }

  setUserSchema(organizationId: string, userId: string, fields: Member["fields"]): void {
    const found = this.organizations.get(organizationId)?.members.get(userId);
    if (!found) throw new Error(`${userId} is not a member of ${organizationId}`);
    found.fields = fields;
  }

  async stop(): Promise<void> {
    await this.server.shutdown(1_000);
  }
}
