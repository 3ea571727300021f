/**
 * The package's `currentTraceContext`: the telemetry code (`start.ts` and what it imports) is
 * loaded on its first call, not with the package, so a run without telemetry never loads it.
 */
import type { TraceContextCarrier } from "./types.js";

/**
 * The active span's W3C trace context, to hand to another process (a queued job's producer to its
 * worker, where it becomes `telemetry.parent`); `undefined` when there is no valid active span.
 * Loads `@opentelemetry/api` only when the host registered a tracer provider or context manager.
 */
export async function currentTraceContext(): Promise<TraceContextCarrier | undefined> {
  return (await import("./start.js")).currentTraceContext();
}
