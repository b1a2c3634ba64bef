import { RateLimitedError } from "@docex/kit/errors";
import { Counter, Gauge, type Registry } from "prom-client";

export interface UploadBounds {
  /** Streamed uploads this process reads at once. */
  perProcess: number;
  /** Streamed uploads of one organization this process reads at once. */
  perOrganization: number;
  /** What `Retry-After` tells a refused client. */
  retryAfterSeconds: number;
}

/** 429 for an upload past a bound of uploads in flight; `bound` says which (process or organization). */
export class UploadsBusyError extends RateLimitedError {
  override readonly code = "too_many_uploads";
  override readonly extra: Record<string, unknown>;

  constructor(bound: "process" | "organization", limit: number, retryAfterSeconds: number) {
    super(
      retryAfterSeconds,
      bound === "process"
        ? `This service is reading ${limit} uploads already (DOCUMENT_MAX_CONCURRENT_UPLOADS); try again in ${retryAfterSeconds} s.`
        : `Your organization has ${limit} uploads in progress here already (DOCUMENT_MAX_CONCURRENT_UPLOADS_PER_ORGANIZATION); ` +
            `try again in ${retryAfterSeconds} s.`,
    );
    this.extra = { bound, limit };
  }
}

/**
 * Counts the streamed uploads in flight, in this process and per organization, and refuses (429) one past either
 * bound before a byte of it is read. What an upload in flight costs (a file's worth of spool at most, a store write)
 * is then bounded, and one organization cannot take every slot.
 */
export class UploadSlots {
  private inFlight = 0;
  private readonly byOrganization = new Map<string, number>();
  private readonly refusals: Counter<"bound">;

  constructor(
    readonly bounds: UploadBounds,
    registry: Registry,
  ) {
    this.refusals = new Counter({
      name: "document_upload_refusals_total",
      help: "Uploads refused (429) because the process or the organization had as many uploads in flight as allowed",
      labelNames: ["bound"],
      registers: [registry],
    });
    const slots = this;
    new Gauge({
      name: "document_uploads_in_flight",
      help: "Streamed uploads being read or stored by this process",
      registers: [registry],
      collect() {
        this.set(slots.inFlight);
      },
    });
  }

  /** A slot for one upload of `organizationId`, or UploadsBusyError; the answer frees it (once, however often called). */
  take(organizationId: string): () => void {
    const { perProcess, perOrganization, retryAfterSeconds } = this.bounds;
    const ofOrganization = this.byOrganization.get(organizationId) ?? 0;
    if (this.inFlight >= perProcess) {
      this.refusals.inc({ bound: "process" });
      throw new UploadsBusyError("process", perProcess, retryAfterSeconds);
    }
    if (ofOrganization >= perOrganization) {
      this.refusals.inc({ bound: "organization" });
      throw new UploadsBusyError("organization", perOrganization, retryAfterSeconds);
    }
    this.inFlight++;
    this.byOrganization.set(organizationId, ofOrganization + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      const left = (this.byOrganization.get(organizationId) ?? 1) - 1;
      if (left > 0) this.byOrganization.set(organizationId, left);
      else this.byOrganization.delete(organizationId);
    };
  }
}
