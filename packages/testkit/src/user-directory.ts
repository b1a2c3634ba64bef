import { randomUUID } from "node:crypto";

interface DirectoryUser {
  id: string;
  email: string;
  name: string | null;
  status: "active" | "invited";
}

/**
 * auth's user directory as membership sees it over gRPC (membership's `userDirectory` option), for tests that
 * run the real membership service without auth: invitations create users with ids the test can mint tokens for.
 */
export class UserDirectoryStub {
  private readonly users = new Map<string, DirectoryUser>();

  async findByEmail(email: string): Promise<DirectoryUser | undefined> {
    return this.users.get(email);
  }

  async get(userId: string): Promise<DirectoryUser | undefined> {
    return [...this.users.values()].find((user) => user.id === userId);
  }

  async invite(invitation: { email: string }): Promise<{ userId: string; created: boolean }> {
    const existing = this.users.get(invitation.email);
    if (existing) return { userId: existing.id, created: false };
    const user: DirectoryUser = { id: randomUUID(), email: invitation.email, name: null, status: "invited" };
    this.users.set(invitation.email, user);
    return { userId: user.id, created: true };
  }

  /** A user auth already knows (active, with a name): invitations of their email find them. */
  add(user: { id: string; email: string; name: string }): void {
    this.users.set(user.email, { ...user, status: "active" });
  }

  /** The id an invitation gave `email`. */
  idOf(email: string): string {
    const user = this.users.get(email);
    if (!user) throw new Error(`nobody invited ${email}`);
    return user.id;
  }

  close(): void {}
}
