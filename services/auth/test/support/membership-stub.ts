import { createLogger, GrpcServer, UpstreamError } from "@docex/kit";
import { type CreateOrganizationRequest, type MembershipHandlers, membershipService, type Organization } from "@docex/protos";

/** A membership gRPC server on 127.0.0.1 that answers CreateOrganization like the real one, or is down. */
export class MembershipStub {
  readonly calls: CreateOrganizationRequest[] = [];
  readonly organizations = new Map<string, Organization>();
  available = true;

  private constructor(
    private readonly server: GrpcServer,
    readonly address: string,
  ) {}

  static async start(): Promise<MembershipStub> {
    const server = new GrpcServer(createLogger("membership-stub", "silent"));
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
      GetRoles: unused,
      CheckPermission: unused,
      GetUserSchema: unused,
      ListOrganizationsOfUser: unused,
      GetOrganization: unused,
    };
    server.addService(membershipService.definition, membershipService.serviceName, handlers);
    const port = await server.listen("127.0.0.1", 0);
    stub = new MembershipStub(server, `127.0.0.1:${port}`);
    return stub;
  }

  async stop(): Promise<void> {
    await this.server.shutdown(1_000);
  }
}
