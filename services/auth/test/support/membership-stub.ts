import { NotFoundError, UpstreamError } from "@docex/kit/errors";
import { ANY_SERVICE, GrpcServer } from "@docex/kit/grpc";
import { createLogger } from "@docex/kit/logger";
import {
  type AcceptInvitationRequest,
  type CreateOrganizationRequest,
  type MembershipHandlers,
  membershipService,
  type Organization,
} from "@docex/protos";
import { testGrpcIdentity } from "@docex/testkit";

/**
 * A membership gRPC server on 127.0.0.1 that answers CreateOrganization like the real one, or is down, and
 * AcceptInvitation for the invitations the test opened (`openInvitation`); NOT_FOUND for any other.
 */
export class MembershipStub {
  readonly calls: CreateOrganizationRequest[] = [];
  readonly organizations = new Map<string, Organization>();
  readonly acceptances: AcceptInvitationRequest[] = [];
  /** `<organization_id>/<user_id>` of open invitations; accepted ones stay (accepting twice is fine). */
  readonly openInvitations = new Set<string>();
  available = true;

  private constructor(
    private readonly server: GrpcServer,
    readonly address: string,
  ) {}

  static async start(): Promise<MembershipStub> {
    const server = new GrpcServer(createLogger("membership-stub", "silent"), { identity: testGrpcIdentity("membership") });
    let stub: MembershipStub | undefined;
    const unused = async (): Promise<never> => {
      throw new Error("auth does not call this method");
    };
    const handlers: MembershipHandlers = {
      async CreateOrganization(request) {
        stub!.calls.push(request);
        if (!stub!.available) throw new UpstreamError(503, "membership is down", "upstream_unavailable");
        const existing = stub!.organizations.get(request.idempotency_key);
        if (existing) return { organization: existing, created: false };
        const organization: Organization = {
          id: crypto.randomUUID(),
          humanized_id: request.name.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
          name: request.name,
          created_at: new Date().toISOString(),
        };
        stub!.organizations.set(request.idempotency_key, organization);
        return { organization, created: true };
      },
      async AcceptInvitation(request) {
        if (!stub!.available) throw new UpstreamError(503, "membership is down", "upstream_unavailable");
        if (!stub!.openInvitations.has(`${request.organization_id}/${request.user_id}`)) {
          throw new NotFoundError("There is no open invitation of this user to this organization.", "invitation_not_found");
        }
        stub!.acceptances.push(request);
        const organization = {
          id: request.organization_id,
          humanized_id: "inviting",
          name: "Inviting",
          created_at: new Date().toISOString(),
        };
        return { organization, accepted: true };
      },
      GetRoles: unused,
      CheckPermission: unused,
      GetUserSchema: unused,
      ListOrganizationsOfUser: unused,
      GetOrganization: unused,
    };
    server.addService(membershipService.definition, membershipService.serviceName, handlers, ANY_SERVICE);
    const port = await server.listen("127.0.0.1", 0);
    stub = new MembershipStub(server, `127.0.0.1:${port}`);
    return stub;
  }

  openInvitation(organizationId: string, userId: string): void {
    this.openInvitations.add(`${organizationId}/${userId}`);
  }

  async stop(): Promise<void> {
    await this.server.shutdown(1_000);
  }
}
