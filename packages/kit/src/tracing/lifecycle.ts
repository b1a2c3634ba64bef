let shutdown: (() => Promise<void>) | undefined;

/** Set by the SDK's start: how to flush and stop it. */
export function onTracingShutdown(stop: () => Promise<void>): void {
  shutdown = stop;
}

/** Whether this process exports traces (it was started with the kit's tracing register and an endpoint). */
export function tracingEnabled(): boolean {
  return shutdown !== undefined;
}

/** Sends the spans still buffered and stops the SDK; at once when tracing is off. Never throws. */
export async function stopTracing(): Promise<void> {
  const stop = shutdown;
  shutdown = undefined;
  await stop?.().catch(() => undefined);
}
