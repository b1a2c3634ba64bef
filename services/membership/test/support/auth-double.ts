import { randomUUID } from "node:crypto";
import { NotFoundError, UpstreamError } from "@docex/kit/errors";
import { ANY_SERVICE, GrpcServer } from "@docex/kit/grpc";
import { createLogger } from "@docex/kit/logger";
import { type AuthHandlers, authService, type CreateInvitationRequest, type User } from "@docex/protos";
import { testGrpcIdentity } from "@docex/testkit";

/**
 * A stand-in for the auth service's gRPC API (GetUser, FindUserByEmail, CreateInvitation) on 127.0.0.1,
 * with users in memory. It fakes another service in the tests of this one: the invitation is recorded
 * instead of mailed, and a test accepts it by calling AcceptInvitation, as auth does when the token is used.
 * `lookups` counts GetUser calls (a pending invitation must not look its user up).
 */
export class AuthDouble {
  readonly users = new Map<string, User>();
  readonly invitations: CreateInvitationRequest[] = [];
  readonly lookups: string[] = [];
  available = true;

  private constructor(
    private readonly server: GrpcServer,
    readonly address: string,
  ) {}

  static async start(): Promise<AuthDouble> {
    const server = new GrpcServer(createLogger("auth-double", "silent"), { identity: testGrpcIdentity("auth") });
    let double: AuthDouble | undefined;
    const up = () => {
      if (!double!.available) throw new UpstreamError(503, "auth is down", "upstream_unavailable");
    };
    const handlers: AuthHandlers = {
      async GetUser(request) {
        up();
        double!.lookups.push(request.user_id);
        const user = double!.users.get(request.user_id);
        if (!user) throw new NotFoundError("No user has this id.", "user_not_found");
        return { user };
      },
      async FindUserByEmail(request) {
        up();
        const user = double!.byEmail(request.email);
        return user ? { found: true, user } : { found: false, user: null };
      },
      async CreateInvitation(request) {
        up();
        double!.invitations.push(request);
        const existing = double!.byEmail(request.email);
        if (existing) return { user_id: existing.id, created: false };
        const user = double!.addUser(request.email, "invited");
        return { user_id: user.id, created: true };
      },
    };
    server.addService(authService.definition, authService.serviceName, handlers, ANY_SERVICE);
    const port = await server.listen("127.0.0.1", 0);
    double = new AuthDouble(server, `127.0.0.1:${port}`);
    return double;
  }

  byEmail(email: string): User | undefined {
    return [...this.users.values()].find((user) => user.email === email.toLowerCase());
  }

  addUser(email: string, status: "active" | "invited" | "deactivated" = "active", name = ""): User {
    const user: User = {
      id: randomUUID(),
      email: email.toLowerCase(),
      name,
      status,
      totp_enabled: false,
      created_at: new Date().toISOString(),
    };
    this.users.set(user.id, user);
    return user;
  }

  setStatus(userId: string, status: "active" | "invited" | "deactivated"): void {
    const user = this.users.get(userId);
    if (!user) throw new Error(`no user ${userId}`);
    this.users.set(userId, { ...user, status });
  }

  async stop(): Promise<void> {
    await this.server.shutdown(1_000);
  }
}
