/**
 * Telemetry without a CLI: the cost of a run with nothing registered, option checks, a broken
 * provider, the client's concurrent readers, and what the CLI is given.
 */
import { context, diag, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  AgentSdkClient,
  currentTraceContext,
  InvalidOptionsError,
  type Message,
  query,
} from "../../src/index.js";
import { cliTelemetryEnv, codexOtelConfig, traceContextEnv } from "../../src/telemetry/cli-env.js";
import * as load from "../../src/telemetry/load.js";
import { cliLike, resultLine, ScriptedTransport } from "../unit/support/scripted-transport.js";
import { only, otelHarness } from "./support.js";

vi.mock(import("../../src/telemetry/load.js"), async (original) => {
  const actual = await original();
  return { ...actual, loadOtelApi: vi.fn(actual.loadOtelApi) };
});

/** A transport whose "CLI" answers every user turn with an assistant text and a result. */
function answering(): ScriptedTransport {
  return new ScriptedTransport(
    cliLike((t) => {
      t.emit({
        type: "assistant",
        session_id: "s1",
        parent_tool_use_id: null,
        message: { id: "m1", model: "claude-x", role: "assistant", content: [{ type: "text", text: "hi" }] },
      });
      t.emit({ ...resultLine("hi"), usage: { input_tokens: 3, output_tokens: 2 } });
    }),
  );
}

async function drain(messages: AsyncIterable<Message>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of messages) out.push(m);
  return out;
}

afterEach(() => {
  trace.disable();
  context.disable();
  diag.disable();
  vi.mocked(load.loadOtelApi).mockClear();
});

describe("telemetry: cost and switches", () => {
  it("with no provider registered and no option, @opentelemetry/api is never loaded", async () => {
    const messages = await drain(query({ prompt: "x", options: { transport: answering() } }));
    expect(messages.at(-1)?.type).toBe("result");
    expect(load.globalProviderRegistered()).toBe(false);
    expect(load.loadOtelApi).not.toHaveBeenCalled();
  });

  it("a globally registered tracer provider instruments runs without the option, under the caller's active span", async () => {
    await using otel = otelHarness();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(otel.tracerProvider);
    expect(load.globalProviderRegistered()).toBe(true);
    const outer = trace.getTracer("host").startSpan("host request");
    await context.with(trace.setSpan(context.active(), outer), () =>
      drain(query({ prompt: "x", options: { transport: answering() } })),
    );
    outer.end();
    expect(load.loadOtelApi).toHaveBeenCalled();
    const turn = only(otel.spans(), "invoke_agent claude-code");
    expect(turn.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    expect(turn.attributes).toMatchObject({
      "gen_ai.response.model": "claude-x",
      "gen_ai.usage.input_tokens": 3,
      "gen_ai.usage.output_tokens": 2,
    });
  });

  it("enabled: false turns a globally registered provider off for that run", async () => {
    await using otel = otelHarness();
    trace.setGlobalTracerProvider(otel.tracerProvider);
    await drain(query({ prompt: "x", options: { transport: answering(), telemetry: { enabled: false } } }));
    expect(otel.spans()).toEqual([]);
  });

  it("a registered provider whose API cannot be imported: the run goes on untraced and warns once; asked for in options, it fails", async () => {
    await using otel = otelHarness();
    trace.setGlobalTracerProvider(otel.tracerProvider);
    const missing = () =>
      new InvalidOptionsError(["telemetry: needs the optional peer dependency @opentelemetry/api"]);
    vi.mocked(load.loadOtelApi).mockRejectedValueOnce(missing()).mockRejectedValueOnce(missing());
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      const messages = await drain(query({ prompt: "x", options: { transport: answering() } }));
      expect(messages.at(-1)).toMatchObject({ type: "result", isError: false });
      const error = await drain(
        query({ prompt: "x", options: { transport: answering(), telemetry: { recordContent: false } } }),
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidOptionsError);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.map((w) => (w as Error & { code?: string }).code)).toEqual([
      "CODE_AGENT_SDK_TELEMETRY_UNAVAILABLE",
    ]);
    expect(otel.spans()).toEqual([]);
  });

  it("a malformed telemetry option fails the run with InvalidOptionsError, before anything starts", async () => {
    const transport = answering();
    const error = await drain(
      query({
        prompt: "x",
        options: {
          transport,
          telemetry: {
            recordContent: "yes" as unknown as boolean,
            cliTelemetry: { endpoint: "http://user:secret@127.0.0.1:4318" },
          },
        },
      }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).issues).toEqual([
      "telemetry.recordContent: must be a boolean",
      "telemetry.cliTelemetry.endpoint: put credentials in `headers`, not in the URL",
    ]);
    expect(transport.written).toEqual([]);
  });

  it("a tracer that throws loses its spans, not the run; the failure goes to diag", async () => {
    const logged: string[] = [];
    diag.setLogger(
      {
        error: (m) => logged.push(m),
        warn: () => {},
        info: () => {},
        debug: () => {},
        verbose: () => {},
      },
      { suppressOverrideMessage: true },
    );
    const broken = {
      getTracer: () => ({
        startSpan: () => {
          throw new Error("exporter down");
        },
      }),
    };
    const messages = await drain(
      query({ prompt: "x", options: { transport: answering(), telemetry: { tracerProvider: broken } } }),
    );
    expect(messages.at(-1)).toMatchObject({ type: "result", isError: false });
    expect(logged.some((m) => m.includes("exporter down"))).toBe(true);
  });

  it("a client's concurrent readers each see every message; each message counts once", async () => {
    await using otel = otelHarness();
    const client = new AgentSdkClient({
      transport: answering(),
      telemetry: { meterProvider: otel.meterProvider, tracerProvider: otel.tracerProvider },
    });
    await client.connect();
    const everything = drain(client.receiveMessages());
    const response = drain(client.receiveResponse());
    await client.query("one");
    expect((await response).at(-1)?.type).toBe("result");
    await client.disconnect();
    await everything;
    expect(otel.spans().filter((s) => s.name === "invoke_agent claude-code")).toHaveLength(1);
    const tokens = await otel.histogram("gen_ai.client.token.usage");
    expect(tokens.map((p) => p.value.count)).toEqual([1, 1]);
  });
});

describe("telemetry: a parent from another process", () => {
  it("telemetry.parent makes the run's spans children of that remote span", async () => {
    await using otel = otelHarness();
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    await drain(
      query({
        prompt: "x",
        options: {
          transport: answering(),
          telemetry: { tracerProvider: otel.tracerProvider, parent: { traceparent, tracestate: "vendor=x" } },
        },
      }),
    );
    const turn = only(otel.spans(), "invoke_agent claude-code");
    expect(turn.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(turn.parentSpanContext).toMatchObject({ spanId: "b7ad6b7169203331", isRemote: true });
    expect(turn.spanContext().traceState?.get("vendor")).toBe("x");
  });

  it("a malformed parent is refused", async () => {
    const error = await drain(
      query({
        prompt: "x",
        options: { transport: answering(), telemetry: { parent: { traceparent: "00-zz-1-01\nX: y" } } },
      }),
    ).catch((e: unknown) => e);
    expect((error as InvalidOptionsError).issues).toEqual([
      "telemetry.parent.traceparent: must be a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>)",
    ]);
  });

  it("currentTraceContext(): undefined with nothing registered, else the active span's", async () => {
    expect(await currentTraceContext()).toBeUndefined();
    await using otel = otelHarness();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(otel.tracerProvider);
    const span = trace.getTracer("host").startSpan("enqueue");
    const carrier = await context.with(trace.setSpan(context.active(), span), () => currentTraceContext());
    span.end();
    expect(carrier).toEqual({
      traceparent: `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`,
    });
  });
});

describe("telemetry: what the CLI is given", () => {
  it("TRACEPARENT in the W3C format, TRACESTATE when there is one; nothing for an invalid context", () => {
    expect(
      traceContextEnv({
        traceId: "0af7651916cd43dd8448eb211c80319c",
        spanId: "b7ad6b7169203331",
        traceFlags: 1,
        traceState: { serialize: () => "vendor=x" },
      }),
    ).toEqual({
      TRACEPARENT: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      TRACESTATE: "vendor=x",
    });
    expect(traceContextEnv({ traceId: "0".repeat(32), spanId: "b7ad6b7169203331", traceFlags: 1 })).toEqual(
      {},
    );
    expect(traceContextEnv(undefined)).toEqual({});
  });

  it("cliTelemetry: OTLP exporters or none, never the console; headers in the environment, not in Codex's config", () => {
    const cli = { endpoint: "http://127.0.0.1:4318/", headers: { "x-api-key": "s3cret" }, logs: false };
    const env = cliTelemetryEnv(cli, false);
    expect(env).toMatchObject({
      CLAUDE_CODE_ENABLE_TELEMETRY: "1",
      CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: "1",
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_METRICS_EXPORTER: "otlp",
      OTEL_LOGS_EXPORTER: "none",
      OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=s3cret",
    });
    expect(env.OTEL_LOG_USER_PROMPTS).toBeUndefined();
    expect(Object.values(env)).not.toContain("console");
    const config = codexOtelConfig(cli, false);
    expect(config).toEqual({
      "otel.trace_exporter": {
        "otlp-http": { endpoint: "http://127.0.0.1:4318/v1/traces", protocol: "binary" },
      },
      "otel.metrics_exporter": {
        "otlp-http": { endpoint: "http://127.0.0.1:4318/v1/metrics", protocol: "binary" },
      },
      "otel.exporter": "none",
      "otel.log_user_prompt": false,
    });
    expect(JSON.stringify(config)).not.toContain("s3cret");
  });
});
