import { createEvent, type LOGIN_METHODS } from "@docex/events";
import type { OutboxEvents } from "@docex/kit/bus";
import type { Tx, UnitOfWork } from "@docex/kit/db";
import { UnauthorizedError } from "@docex/kit/errors";
import type { RequestContext } from "./request-context.js";

export type LoginMethod = (typeof LOGIN_METHODS)[number];

export interface LoginAttempt {
  userId: string | null;
  /** As the client sent it (normalised); empty when the credential names no one, e.g. an unknown magic token. */
  email: string;
  method: LoginMethod;
}

/**
 * Publishes `auth.login_attempted` for the audit log: a success in the transaction that opens the session,
 * a refused credential in a transaction of its own. Attempts the throttle blocks before any credential is
 * looked at are not published, so a flood of them costs no writes.
 */
export class LoginAttempts {
  /** Refusals already published, so that nested `refusalsOf` publish each once. */
  private readonly published = new WeakSet<Error>();

  constructor(
    private readonly sql: UnitOfWork,
    private readonly events: OutboxEvents,
  ) {}

  async succeededIn(tx: Tx, attempt: LoginAttempt, ctx: RequestContext): Promise<void> {
    await this.events.add(tx, this.event(attempt, null, ctx));
  }

  /** Runs `login`; when it refuses the credential (401), publishes the failure and rethrows. */
  async refusalsOf<T>(attempt: () => LoginAttempt, ctx: RequestContext, login: () => Promise<T>): Promise<T> {
    try {
      return await login();
    } catch (error) {
      if (error instanceof UnauthorizedError && !this.published.has(error)) {
        this.published.add(error);
        const event = this.event(attempt(), error.code, ctx);
        await this.sql.transaction((tx) => this.events.add(tx, event));
      }
      throw error;
    }
  }

  private event(attempt: LoginAttempt, failure: string | null, ctx: RequestContext) {
    return createEvent("auth.login_attempted", {
      organization_id: null,
      data: {
        user_id: attempt.userId,
        email: attempt.email.slice(0, 320),
        method: attempt.method,
        succeeded: failure === null,
        failure,
      },
      ...(ctx.requestId ? { request_id: ctx.requestId } : {}),
      actor_user_id: attempt.userId,
    });
  }
}
