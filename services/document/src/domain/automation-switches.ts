import type { QueueSwitches } from "@docex/queue-dto";

/** Automation's switches of a queue, as document's projection of `configuration.changed` knows them. */
export interface AutomationSwitches {
  /** The defaults (QUEUE_SWITCH_DEFAULTS) for a switch the projection has not seen. */
  of(queueId: string): Promise<QueueSwitches>;
}

/** Automation's own answer for one queue: the one-time seed of the projection asks it (GetQueueAutomation). */
export interface AutomationSettingsSource {
  /** Throws when automation does not answer: the seed tries again later rather than record a guess. */
  settingsOf(queueId: string, ctx?: { requestId?: string }): Promise<QueueSwitches>;
}
