/**
 * Whether a run is instrumented, decided without loading `@opentelemetry/api`; and loading it,
 * lazily, once a run is.
 */
import { InvalidOptionsError } from "../errors.js";
import { describeError } from "../wire/safe-json.js";
import type { TelemetryOptions } from "./types.js";

/** The `@opentelemetry/api` module. */
export type OtelApi = typeof import("@opentelemetry/api");

/**
 * Where `@opentelemetry/api` 1.x keeps the registered providers (its `global-utils`): a host that
 * registered a tracer or meter provider has set `trace` or `metrics` there.
 */
const GLOBAL_KEY = Symbol.for("opentelemetry.js.api.1");

/** A global tracer or meter provider is registered (read without loading the API). */
export function globalProviderRegistered(): boolean {
  const registry = (globalThis as Record<symbol, unknown>)[GLOBAL_KEY];
  if (typeof registry !== "object" || registry === null) return false;
  const { trace, metrics } = registry as { trace?: unknown; metrics?: unknown };
  return trace !== undefined || metrics !== undefined;
}

/**
 * Whether a run with these options needs the telemetry code at all: the option is given, or a
 * global provider is registered. A property read and a symbol lookup: the cost of a run without.
 */
export function telemetryWanted(options: { telemetry?: TelemetryOptions | false | undefined }): boolean {
  return options.telemetry !== undefined || globalProviderRegistered();
}

/**
 * The context active now, read from the registered context manager without loading the API
 * (`undefined` when none is registered): a query remembers where it was created, since it starts
 * at its first `next()`, which may run elsewhere (a stream's first pull).
 */
export function activeContextSnapshot(): unknown {
  try {
    const registry = (globalThis as Record<symbol, unknown>)[GLOBAL_KEY] as
      | { context?: { active?: () => unknown } }
      | undefined;
    return registry?.context?.active?.();
  } catch {
    return undefined;
  }
}

let loading: Promise<OtelApi> | undefined;

/** `@opentelemetry/api`, imported on first use. Rejects with `InvalidOptionsError` when it is not installed. */
export function loadOtelApi(): Promise<OtelApi> {
  loading ??= import("@opentelemetry/api").catch((error: unknown) => {
    loading = undefined;
    throw new InvalidOptionsError([
      `telemetry: needs the optional peer dependency @opentelemetry/api (npm install @opentelemetry/api): ${describeError(error)}`,
    ]);
  });
  return loading;
}
