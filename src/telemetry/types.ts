/**
 * The public shape of the `telemetry` option. Typed structurally, so this package's declarations
 * never need `@opentelemetry/api` (an optional peer) to type-check.
 */

/** Anything with `getTracer()`: an OpenTelemetry `TracerProvider` (`BasicTracerProvider`, `NodeTracerProvider`, …). */
export interface TelemetryTracerProvider {
  getTracer(name: string, version?: string, options?: never): unknown;
}

/** Anything with `getMeter()`: an OpenTelemetry `MeterProvider` (`MeterProvider` of `@opentelemetry/sdk-metrics`, …). */
export interface TelemetryMeterProvider {
  getMeter(name: string, version?: string, options?: never): unknown;
}

/**
 * Makes the agent CLI export its own spans, metrics (and, if asked, logs) over OTLP/HTTP, so they
 * join the trace of the SDK's `invoke_agent` span: Claude Code through its `OTEL_*` environment
 * (traces are Claude Code's beta, `CLAUDE_CODE_ENHANCED_TELEMETRY_BETA`), Codex through its
 * `[otel]` configuration. Never the console exporter: the CLI's stdout carries the protocol.
 */
export interface CliTelemetryOptions {
  /** The OTLP/HTTP base URL, e.g. `http://127.0.0.1:4318` (the CLI appends `/v1/traces`, …). */
  endpoint: string;
  /** The OTLP encoding. Default `"http/protobuf"`. */
  protocol?: "http/json" | "http/protobuf";
  /**
   * Headers of every export (e.g. an API key of the collector). Passed in the CLI's environment
   * (`OTEL_EXPORTER_OTLP_HEADERS`), never in its argv.
   */
  headers?: Record<string, string>;
  /** Export the CLI's spans. Default `true`. */
  traces?: boolean;
  /** Export the CLI's metrics. Default `true`. */
  metrics?: boolean;
  /** Export the CLI's log events. Default `false`. */
  logs?: boolean;
  /** Let the CLI put prompts and tool details into its telemetry. Default: `telemetry.recordContent`. */
  recordContent?: boolean;
}

/**
 * OpenTelemetry instrumentation of queries and clients (see docs/telemetry.md, "Tracing and metrics").
 * Without this option the SDK still instruments every run when the host has registered a global
 * tracer or meter provider (`trace.setGlobalTracerProvider`, `NodeSDK.start()`); with neither,
 * `@opentelemetry/api` is not even loaded.
 */
export interface TelemetryOptions {
  /** `false`: no spans or metrics for this run, even with a global provider registered. Default `true`. */
  enabled?: boolean;
  /** Where spans go. Default: the global tracer provider. */
  tracerProvider?: TelemetryTracerProvider;
  /** Where metrics go. Default: the global meter provider. */
  meterProvider?: TelemetryMeterProvider;
  /**
   * Put prompts, answers, tool inputs and tool outputs on the spans (`gen_ai.input.messages`,
   * `gen_ai.output.messages`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`). They may
   * hold secrets and personal data, so this is off by default, as the GenAI conventions ask.
   */
  recordContent?: boolean;
  /** `gen_ai.agent.name`. Default: the CLI's (`claude-code`, `codex`, `cursor-agent`, the ACP preset). */
  agentName?: string;
  /**
   * Pass the active span's context to the CLI as `TRACEPARENT` / `TRACESTATE`. Default `true`.
   */
  propagate?: boolean;
  /**
   * The parent of the run's spans when it is not the active span: a W3C trace context from
   * elsewhere (another process, a queued job: see {@link currentTraceContext}). Malformed values
   * are refused.
   */
  parent?: TraceContextCarrier;
  /** Make the CLI export its own telemetry to an OTLP endpoint: see {@link CliTelemetryOptions}. */
  cliTelemetry?: CliTelemetryOptions;
}

/** A W3C trace context as it crosses a process boundary. */
export interface TraceContextCarrier {
  /** `00-<trace id>-<span id>-<flags>`. */
  traceparent: string;
  tracestate?: string;
}
