/**
 * Spans of a query against the real Codex CLI (0.169.0), offline, with the OpenTelemetry SDK's
 * in-memory exporter; and Codex's own spans (its `[otel]` configuration) joining our trace.
 */
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { query } from "../../src/index.js";
import { CODEX_CLI_VERSION, codexBed, collect, results } from "../e2e/codex-support.js";
import { startOtlpReceiver } from "./otlp-receiver.js";
import { only, otelHarness, spanTree } from "./support.js";

describe(`telemetry against codex ${CODEX_CLI_VERSION}`, () => {
  it("one invoke_agent span, an execute_tool span per command with its exit code, a failed command in error; Codex's spans join the trace", async () => {
    await using bed = await codexBed([
      { execCommand: { cmd: "echo traced" } },
      { execCommand: { cmd: "sh -c 'exit 3'" } },
      { text: "done" },
    ]);
    await using otel = otelHarness();
    await using receiver = await startOtlpReceiver();
    const messages = await collect(
      query({
        prompt: "run two commands",
        options: bed.options({
          telemetry: {
            tracerProvider: otel.tracerProvider,
            meterProvider: otel.meterProvider,
            cliTelemetry: { endpoint: receiver.endpoint, protocol: "http/json", metrics: false },
          },
        }),
      }),
    );
    const [result] = results(messages);
    expect(result?.isError).toBe(false);
    const spans = otel.spans();
    console.log(`codex query trace:\n${spanTree(spans)}`);

    const turn = only(spans, "invoke_agent codex");
    expect(turn.kind).toBe(SpanKind.CLIENT);
    expect(turn.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": "openai",
      "gen_ai.agent.name": "codex",
      "gen_ai.conversation.id": result?.sessionId,
      "gen_ai.usage.input_tokens": result?.tokenUsage?.inputTokens,
      "gen_ai.usage.output_tokens": result?.tokenUsage?.outputTokens,
    });
    const tools = spans.filter((s) => s.name === "execute_tool Bash");
    expect(tools).toHaveLength(2);
    for (const tool of tools) expect(tool.parentSpanContext?.spanId).toBe(turn.spanContext().spanId);
    const [ok, failed] = tools;
    expect(ok?.attributes).toMatchObject({ "gen_ai.tool.name": "Bash", "code_agent.tool.exit_code": 0 });
    expect(ok?.status.code).toBe(SpanStatusCode.UNSET);
    expect(failed?.attributes).toMatchObject({ "code_agent.tool.exit_code": 3, "error.type": "tool_error" });
    expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
    const tokens = await otel.histogram("gen_ai.client.token.usage");
    expect(tokens.map((p) => p.attributes["gen_ai.provider.name"])).toEqual(["openai", "openai"]);

    // Codex got TRACEPARENT and the [otel] exporter: its spans are in our trace, under our span.
    const { traceId, spanId } = turn.spanContext();
    const received = await receiver.waitFor(
      (all) => all.some((s) => s.name === "codex.exec" && s.traceId === traceId),
      30_000,
    );
    const theirs = received.filter((s) => s.traceId === traceId);
    expect(theirs.find((s) => s.name === "codex.exec")?.parentSpanId).toBe(spanId);
    expect(theirs.some((s) => s.name === "codex.sampling")).toBe(true);
    console.log(
      `Codex's spans under our invoke_agent span: ${[...new Set(theirs.filter((s) => s.parentSpanId === spanId).map((s) => s.name))].join(", ")}`,
    );
  });
});
