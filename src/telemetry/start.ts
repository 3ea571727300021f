/**
 * Sets up the telemetry of one query or client: decides whether the run is instrumented, builds
 * its {@link RunTelemetry}, and returns the options the backend gets (without `telemetry`, with
 * the trace context and `cliTelemetry` settings for the CLI, `canUseTool` reporting its decisions).
 */

import { basename } from "node:path";
import type { Meter, Tracer } from "@opentelemetry/api";
import { InvalidOptionsError } from "../errors.js";
import type { ResolvedOptions } from "../options/resolved.js";
import type { CanUseTool } from "../permissions.js";
import { isStreamedPrompt, type Prompt } from "../prompt.js";
import { describeError } from "../wire/safe-json.js";
import {
  cliTelemetryEnv,
  cliTelemetryIssues,
  codexOtelConfig,
  parseTraceparent,
  traceContextEnv,
  validTracestate,
} from "./cli-env.js";
import { loadOtelApi, type OtelApi } from "./load.js";
import { INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION, RunTelemetry } from "./run.js";
import type { TelemetryOptions, TraceContextCarrier } from "./types.js";

/** A run's options for its backend, and its telemetry when it has any. */
export interface PreparedRun {
  /** The options to open the session with: never holding `telemetry`. */
  options: ResolvedOptions;
  run: RunTelemetry | undefined;
}

/** How the session is opened, for what the CLI can be given. */
export interface PrepareParams {
  backend: string;
  /** The first turn's prompt, when it is sent with the start: that turn's span is opened now. */
  initialPrompt?: Prompt | undefined;
  /** The CLI process is started for this run (not taken from a warm pool): it gets the trace context. */
  spawns: boolean;
  /** The process serves this one turn (a one-shot query): its spans go under that turn's span. */
  oneTurn?: boolean;
  /** The context the run was created in (`activeContextSnapshot` in load.ts); default: the active one. */
  createdIn?: unknown;
}

/** The options without `telemetry` (what every backend validates). */
export function withoutTelemetry(options: ResolvedOptions): ResolvedOptions {
  if (!("telemetry" in options)) return options;
  const { telemetry: _telemetry, ...rest } = options;
  return rest;
}

/**
 * Call when `telemetryWanted` (load.ts) is true. Rejects with `InvalidOptionsError` for a malformed
 * `telemetry` option, or one that needs `@opentelemetry/api` where it is not installed.
 */
export async function prepareTelemetry(
  options: ResolvedOptions,
  params: PrepareParams,
): Promise<PreparedRun> {
  const telemetry = options.telemetry;
  const base = withoutTelemetry(options);
  const issues = telemetryIssues(telemetry);
  if (issues.length > 0) throw new InvalidOptionsError(issues);
  if (telemetry?.enabled === false) return { options: base, run: undefined };
  const api = await loadOtelApi().catch((error: unknown) => {
    // Asked for in the options: a failure. Only detected (a provider registered by a copy of the
    // API this package cannot import): the run goes on without telemetry, and says so once.
    if (telemetry !== undefined) throw error;
    warnUnavailable(error);
    return undefined;
  });
  if (!api) return { options: base, run: undefined };
  const tracer = fromProvider("tracerProvider", () =>
    (telemetry?.tracerProvider ?? api.trace.getTracerProvider()).getTracer(
      INSTRUMENTATION_NAME,
      INSTRUMENTATION_VERSION,
    ),
  ) as Tracer;
  const meter = fromProvider("meterProvider", () =>
    (telemetry?.meterProvider ?? api.metrics.getMeterProvider()).getMeter(
      INSTRUMENTATION_NAME,
      INSTRUMENTATION_VERSION,
    ),
  ) as Meter;
  const recordContent = telemetry?.recordContent === true;
  const run = new RunTelemetry(api, tracer, meter, parentContext(api, telemetry?.parent, params.createdIn), {
    backend: params.backend,
    provider: providerOf(params.backend, options),
    agentName: telemetry?.agentName ?? agentNameOf(params.backend, options),
    requestModel: typeof options.model === "string" ? options.model : undefined,
    systemInstructions: typeof options.systemPrompt === "string" ? options.systemPrompt : undefined,
    recordContent,
  });
  if (params.initialPrompt !== undefined && !isStreamedPrompt(params.initialPrompt))
    run.beginTurn(params.initialPrompt);

  let prepared: ResolvedOptions = base;
  if (options.canUseTool) prepared = { ...prepared, canUseTool: reportingDecisions(options.canUseTool, run) };
  if (params.spawns) {
    const env: Record<string, string> = {};
    if (telemetry?.propagate !== false)
      Object.assign(env, traceContextEnv(run.processSpanContext(params.oneTurn === true)));
    const cli = telemetry?.cliTelemetry;
    if (cli) Object.assign(env, cliTelemetryEnv(cli, recordContent));
    if (Object.keys(env).length > 0) prepared = { ...prepared, env: { ...prepared.env, ...env } };
    if (cli && params.backend === "codex")
      prepared = {
        ...prepared,
        codex: {
          ...prepared.codex,
          config: { ...codexOtelConfig(cli, recordContent), ...prepared.codex?.config },
        },
      };
  }
  return { options: prepared, run };
}

/** The active context, or `carrier`'s remote span context in its place (already validated). */
function parentContext(api: OtelApi, carrier: TraceContextCarrier | undefined, createdIn: unknown) {
  const active = isContext(createdIn) ? createdIn : api.context.active();
  const spanContext = carrier && parseTraceparent(carrier.traceparent);
  if (!spanContext) return active;
  return api.trace.setSpanContext(active, {
    ...spanContext,
    isRemote: true,
    ...(carrier.tracestate !== undefined ? { traceState: api.createTraceState(carrier.tracestate) } : {}),
  });
}

/** A `Context` of `@opentelemetry/api` (what a context manager's `active()` returns). */
function isContext(value: unknown): value is ReturnType<OtelApi["context"]["active"]> {
  const v = value as { getValue?: unknown; setValue?: unknown; deleteValue?: unknown } | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.getValue === "function" &&
    typeof v.setValue === "function" &&
    typeof v.deleteValue === "function"
  );
}

/**
 * The active span's W3C trace context, to hand to another process (a queued job's producer to its
 * worker, where it becomes `telemetry.parent`); `undefined` when there is no valid active span.
 * Loads `@opentelemetry/api` only when the host registered a tracer provider or context manager.
 */
export async function currentTraceContext(): Promise<TraceContextCarrier | undefined> {
  if (!globalApiRegistered()) return undefined;
  const api = await loadOtelApi().catch((error: unknown) => {
    warnUnavailable(error);
    return undefined;
  });
  if (!api) return undefined;
  const env = traceContextEnv(api.trace.getSpanContext(api.context.active()));
  if (env.TRACEPARENT === undefined) return undefined;
  return {
    traceparent: env.TRACEPARENT,
    ...(env.TRACESTATE !== undefined ? { tracestate: env.TRACESTATE } : {}),
  };
}

/** A tracer provider or context manager is registered with `@opentelemetry/api` 1.x (read without loading it). */
function globalApiRegistered(): boolean {
  const registry = (globalThis as Record<symbol, unknown>)[Symbol.for("opentelemetry.js.api.1")] as
    | { trace?: unknown; context?: unknown }
    | undefined;
  return (
    typeof registry === "object" &&
    registry !== null &&
    (registry.trace !== undefined || registry.context !== undefined)
  );
}

/** A tracer or meter from its provider; a provider that throws is an `InvalidOptionsError`. */
function fromProvider(what: string, get: () => unknown): unknown {
  try {
    return get();
  } catch (error) {
    throw new InvalidOptionsError([
      `telemetry.${what}: could not provide for ${INSTRUMENTATION_NAME}: ${describeError(error)}`,
    ]);
  }
}

let warned = false;

/** The process-wide warning that a registered provider is not used (once per process). */
function warnUnavailable(error: unknown): void {
  if (warned) return;
  warned = true;
  process.emitWarning(
    `A global OpenTelemetry provider is registered, but code-agent-sdk cannot import @opentelemetry/api, so its runs are not traced: ${describeError(error)}`,
    { code: "CODE_AGENT_SDK_TELEMETRY_UNAVAILABLE" },
  );
}

/** `canUseTool`, reporting each decision to the run's tool span. Answers and failures pass through unchanged. */
function reportingDecisions(canUseTool: CanUseTool, run: RunTelemetry): CanUseTool {
  return async (toolName, input, context) => {
    let result: Awaited<ReturnType<CanUseTool>>;
    try {
      result = await canUseTool(toolName, input, context);
    } catch (error) {
      run.decision(context?.toolUseId, "deny");
      throw error;
    }
    const behavior = (result as { behavior?: unknown } | null | undefined)?.behavior;
    run.decision(context?.toolUseId, typeof behavior === "string" ? behavior : "invalid");
    return result;
  };
}

function telemetryIssues(telemetry: unknown): string[] {
  if (telemetry === undefined) return [];
  if (typeof telemetry !== "object" || telemetry === null) return ["telemetry: must be an object"];
  const t = telemetry as Record<string, unknown>;
  const issues: string[] = [];
  const known = new Set([
    "enabled",
    "tracerProvider",
    "meterProvider",
    "recordContent",
    "agentName",
    "propagate",
    "cliTelemetry",
    "parent",
  ]);
  for (const key of Object.keys(t)) if (!known.has(key)) issues.push(`telemetry.${key}: unknown option`);
  for (const key of ["enabled", "recordContent", "propagate"])
    if (t[key] !== undefined && typeof t[key] !== "boolean")
      issues.push(`telemetry.${key}: must be a boolean`);
  if (t.agentName !== undefined && (typeof t.agentName !== "string" || t.agentName === ""))
    issues.push("telemetry.agentName: must be a non-empty string");
  if (
    t.tracerProvider !== undefined &&
    typeof (t.tracerProvider as { getTracer?: unknown })?.getTracer !== "function"
  )
    issues.push("telemetry.tracerProvider: must have getTracer()");
  if (
    t.meterProvider !== undefined &&
    typeof (t.meterProvider as { getMeter?: unknown })?.getMeter !== "function"
  )
    issues.push("telemetry.meterProvider: must have getMeter()");
  if (t.cliTelemetry !== undefined) issues.push(...cliTelemetryIssues(t.cliTelemetry));
  if (t.parent !== undefined) {
    const parent = t.parent as { traceparent?: unknown; tracestate?: unknown } | null;
    if (typeof parent !== "object" || parent === null || !parseTraceparent(parent.traceparent))
      issues.push("telemetry.parent.traceparent: must be a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>)");
    else if (parent.tracestate !== undefined && !validTracestate(parent.tracestate))
      issues.push("telemetry.parent.tracestate: must be a W3C tracestate of at most 512 characters");
  }
  return issues;
}

/** `gen_ai.provider.name` by backend (the ACP presets by the model provider they drive). */
function providerOf(backend: string, options: ResolvedOptions): string {
  if (backend === "claude") return "anthropic";
  if (backend === "codex") return "openai";
  if (backend === "cursor") return "cursor";
  const preset = options.acp?.agent;
  if (preset === "claude-code-acp") return "anthropic";
  if (preset === "codex-acp") return "openai";
  if (preset === "gemini") return "gcp.gemini";
  return "_OTHER";
}

/** `gen_ai.agent.name` by backend: the CLI, or the ACP preset or command. */
function agentNameOf(backend: string, options: ResolvedOptions): string {
  if (backend === "claude") return "claude-code";
  if (backend === "codex") return "codex";
  if (backend === "cursor") return "cursor-agent";
  const acp = options.acp;
  if (acp?.agent) return acp.agent;
  const command = acp?.command ?? options.cliPath;
  return typeof command === "string" && command !== "" ? basename(command) : "acp-agent";
}

export type { TelemetryOptions };
