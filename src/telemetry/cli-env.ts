/**
 * What the CLI process is given so its own telemetry joins ours: the W3C trace context
 * (`TRACEPARENT` / `TRACESTATE`), and with `cliTelemetry` the settings that make it export over
 * OTLP/HTTP. Never the console exporter: the CLI's stdout carries the protocol.
 */
import type { CodexConfigValue } from "../options.js";
import type { CliTelemetryOptions } from "./types.js";

/** The fields of a span context this module reads (`SpanContext` of `@opentelemetry/api`). */
export interface SpanContextLike {
  traceId: string;
  spanId: string;
  traceFlags: number;
  traceState?: { serialize(): string } | undefined;
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/** `TRACEPARENT` (and `TRACESTATE` when there is one) of a valid span context; `{}` otherwise. */
export function traceContextEnv(context: SpanContextLike | undefined): Record<string, string> {
  if (!context || !TRACE_ID.test(context.traceId) || !SPAN_ID.test(context.spanId)) return {};
  if (/^0+$/.test(context.traceId) || /^0+$/.test(context.spanId)) return {};
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, "0");
  const env: Record<string, string> = { TRACEPARENT: `00-${context.traceId}-${context.spanId}-${flags}` };
  let state = "";
  try {
    state = context.traceState?.serialize() ?? "";
  } catch {
    // A trace state that cannot serialise is left out; the trace itself still joins.
  }
  if (state !== "") env.TRACESTATE = state;
  return env;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The span context a W3C `traceparent` (and `tracestate`) carries, or `undefined` when malformed. */
export function parseTraceparent(
  traceparent: unknown,
): { traceId: string; spanId: string; traceFlags: number } | undefined {
  if (typeof traceparent !== "string") return undefined;
  const m = TRACEPARENT.exec(traceparent);
  if (!m || /^0+$/.test(m[1] as string) || /^0+$/.test(m[2] as string)) return undefined;
  return { traceId: m[1] as string, spanId: m[2] as string, traceFlags: Number.parseInt(m[3] as string, 16) };
}

/** A `tracestate` header value: list members `key=value`, bounded (W3C: 32 members, 512 chars here). */
export function validTracestate(value: unknown): value is string {
  return (
    typeof value === "string" &&
    value.length <= 512 &&
    /^[a-z0-9_\-*/@]+=[\x20-\x2b\x2d-\x3c\x3e-\x7e]*(,[ \t]*[a-z0-9_\-*/@]+=[\x20-\x2b\x2d-\x3c\x3e-\x7e]*)*$/.test(
      value,
    )
  );
}

/** What is wrong with a `cliTelemetry` setting, one line per problem (empty when nothing is). */
export function cliTelemetryIssues(cli: unknown): string[] {
  if (typeof cli !== "object" || cli === null) return ["telemetry.cliTelemetry: must be an object"];
  const c = cli as Record<string, unknown>;
  const issues: string[] = [];
  let url: URL | undefined;
  try {
    url = typeof c.endpoint === "string" ? new URL(c.endpoint) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
    issues.push("telemetry.cliTelemetry.endpoint: must be an http(s) URL, e.g. http://127.0.0.1:4318");
  else if (url.username !== "" || url.password !== "")
    issues.push("telemetry.cliTelemetry.endpoint: put credentials in `headers`, not in the URL");
  if (c.protocol !== undefined && c.protocol !== "http/json" && c.protocol !== "http/protobuf")
    issues.push('telemetry.cliTelemetry.protocol: must be "http/json" or "http/protobuf"');
  if (c.headers !== undefined) {
    if (typeof c.headers !== "object" || c.headers === null)
      issues.push("telemetry.cliTelemetry.headers: must be an object of strings");
    else
      for (const [name, value] of Object.entries(c.headers))
        if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name) || typeof value !== "string" || /[\r\n,]/.test(value))
          issues.push(
            `telemetry.cliTelemetry.headers: ${JSON.stringify(name)} is not a header name with a one-line value`,
          );
  }
  for (const key of ["traces", "metrics", "logs", "recordContent"])
    if (c[key] !== undefined && typeof c[key] !== "boolean")
      issues.push(`telemetry.cliTelemetry.${key}: must be a boolean`);
  return issues;
}

/**
 * The environment that makes the CLI export its telemetry: OpenTelemetry's standard `OTEL_*`
 * variables, plus Claude Code's switches (`CLAUDE_CODE_ENABLE_TELEMETRY`, and its beta traces).
 * Each exporter is `otlp` or `none`, so a `console` exporter inherited from the host's
 * environment never writes to the CLI's stdout.
 */
export function cliTelemetryEnv(cli: CliTelemetryOptions, recordContent: boolean): Record<string, string> {
  const traces = cli.traces !== false;
  const metrics = cli.metrics !== false;
  const logs = cli.logs === true;
  const content = cli.recordContent ?? recordContent;
  const env: Record<string, string> = {
    CLAUDE_CODE_ENABLE_TELEMETRY: "1",
    OTEL_EXPORTER_OTLP_ENDPOINT: cli.endpoint.replace(/\/+$/, ""),
    OTEL_EXPORTER_OTLP_PROTOCOL: cli.protocol ?? "http/protobuf",
    OTEL_TRACES_EXPORTER: traces ? "otlp" : "none",
    OTEL_METRICS_EXPORTER: metrics ? "otlp" : "none",
    OTEL_LOGS_EXPORTER: logs ? "otlp" : "none",
  };
  if (traces) env.CLAUDE_CODE_ENHANCED_TELEMETRY_BETA = "1";
  const headers = Object.entries(cli.headers ?? {});
  if (headers.length > 0)
    env.OTEL_EXPORTER_OTLP_HEADERS = headers
      .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
      .join(",");
  if (content) {
    env.OTEL_LOG_USER_PROMPTS = "1";
    env.OTEL_LOG_TOOL_DETAILS = "1";
  }
  return env;
}

/**
 * Codex's `[otel]` configuration for the same endpoint (`-c otel.…`): no headers here, since
 * configuration reaches argv; they go in the environment (`OTEL_EXPORTER_OTLP_HEADERS`).
 */
export function codexOtelConfig(
  cli: CliTelemetryOptions,
  recordContent: boolean,
): Record<string, CodexConfigValue> {
  const base = cli.endpoint.replace(/\/+$/, "");
  const protocol = cli.protocol === "http/json" ? "json" : "binary";
  const exporter = (signal: string, on: boolean): CodexConfigValue =>
    on ? { "otlp-http": { endpoint: `${base}/v1/${signal}`, protocol } } : "none";
  return {
    "otel.trace_exporter": exporter("traces", cli.traces !== false),
    "otel.metrics_exporter": exporter("metrics", cli.metrics !== false),
    "otel.exporter": exporter("logs", cli.logs === true),
    "otel.log_user_prompt": cli.recordContent ?? recordContent,
  };
}
