import { NotFoundError, UpstreamError } from "@docex/kit/errors";
import { ANY_SERVICE, GrpcServer } from "@docex/kit/grpc";
import { createLogger } from "@docex/kit/logger";
import { type RegisterHandlers, registerService } from "@docex/protos";
import { testGrpcIdentity } from "@docex/testkit";

/**
 * The register service's LookupItems on 127.0.0.1, until the real one lands (issue 10): registers with item
 * values, and a switch that makes it answer UNAVAILABLE.
 */
export class RegisterDouble {
  readonly registers = new Map<string, { organizationId: string; values: Set<string> }>();
  available = true;
  calls = 0;

  private constructor(
    private readonly server: GrpcServer,
    readonly address: string,
  ) {}

  static async start(): Promise<RegisterDouble> {
    const server = new GrpcServer(createLogger("register-double", "silent"), { identity: testGrpcIdentity("register") });
    let double: RegisterDouble | undefined;
    const handlers: RegisterHandlers = {
      async LookupItems(request) {
        const self = double!;
        self.calls += 1;
        if (!self.available) throw new UpstreamError(503, "register store unreachable", "unavailable");
        const register = self.registers.get(request.register_id);
        if (!register || register.organizationId !== request.organization_id) throw new NotFoundError("no such register");
        const items = request.values
          .filter((value) => register.values.has(value))
          .map((value) => ({ id: value, value, label: "", name: "", register_id: "", tax_id: "", data_json: "{}" }));
        return { items, missing: request.values.filter((value) => !register.values.has(value)) };
      },
    };
    server.addService(registerService.definition, registerService.serviceName, handlers, ANY_SERVICE);
    double = new RegisterDouble(server, `127.0.0.1:${await server.listen("127.0.0.1", 0)}`);
    return double;
  }

  async stop(): Promise<void> {
    await this.server.shutdown(500);
  }
}
