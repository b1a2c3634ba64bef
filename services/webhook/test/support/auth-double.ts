import { randomUUID } from "node:crypto";
import { NotFoundError } from "@docex/kit/errors";
import { ANY_SERVICE, GrpcServer } from "@docex/kit/grpc";
import { createLogger } from "@docex/kit/logger";
import { type AuthHandlers, authService, type User } from "@docex/protos";
import { testGrpcIdentity } from "@docex/testkit";

/**
 * A stand-in for the auth service's gRPC API, which membership calls when an owner invites someone: users
 * live in memory and are active, so an invited user becomes a member at once and no mail is involved.
 */
export class AuthDouble {
  private readonly users = new Map<string, User>();

  private constructor(
    private readonly server: GrpcServer,
    readonly address: string,
  ) {}

  static async start(): Promise<AuthDouble> {
    const server = new GrpcServer(createLogger("auth-double", "silent"), { identity: testGrpcIdentity("auth") });
    let double: AuthDouble | undefined;
    const handlers: AuthHandlers = {
      async GetUser(request) {
        const user = double!.users.get(request.user_id);
        if (!user) throw new NotFoundError("No user has this id.", "user_not_found");
        return { user };
      },
      async FindUserByEmail(request) {
        const user = double!.byEmail(request.email);
        return user ? { found: true, user } : { found: false, user: null };
      },
      async CreateInvitation(request) {
        const user = double!.byEmail(request.email) ?? double!.addUser(request.email);
        return { user_id: user.id, created: false };
      },
    };
    server.addService(authService.definition, authService.serviceName, handlers, ANY_SERVICE);
    const port = await server.listen("127.0.0.1", 0);
    double = new AuthDouble(server, `127.0.0.1:${port}`);
    return double;
  }

  private byEmail(email: string): User | undefined {
    return [...this.users.values()].find((user) => user.email === email.toLowerCase());
  }

  addUser(email: string): User {
    const user: User = {
      id: randomUUID(),
      email: email.toLowerCase(),
      name: "",
      status: "active",
      totp_enabled: false,
      created_at: new Date().toISOString(),
    };
    this.users.set(user.id, user);
    return user;
  }

  async stop(): Promise<void> {
    await this.server.shutdown(1_000);
  }
}
