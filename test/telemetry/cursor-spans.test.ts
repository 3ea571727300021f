/**
 * Spans of queries on the Cursor backend, with the OpenTelemetry SDK's in-memory exporter. No real
 * `cursor-agent` can be installed here: the runs drive the stand-in (test/fixtures/cursor), which
 * follows the documented argv and event shapes.
 */
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { query } from "../../src/index.js";
import { cursorBed } from "../e2e/cursor-support.js";
import { collect, results } from "../e2e/support.js";
import { only, otelHarness, spanTree } from "./support.js";

describe("telemetry on the cursor backend (stand-in)", () => {
  it("one invoke_agent span per turn with the GenAI attributes; an execute_tool span per tool call under it, a failed one in error", async () => {
    await using bed = cursorBed();
    await using otel = otelHarness();
    const messages = await collect(
      query({
        prompt: "TOOL_SHELL TOOL_WRITE_OLD_FAIL",
        options: bed.options({
          model: "gpt-5",
          telemetry: { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider },
        }),
      }),
    );
    const [result] = results(messages);
    expect(result?.isError).toBe(false);
    const spans = otel.spans();
    console.log(`cursor query trace:\n${spanTree(spans)}`);

    const turn = only(spans, "invoke_agent cursor-agent");
    expect(turn.kind).toBe(SpanKind.CLIENT);
    expect(turn.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": "cursor",
      "gen_ai.agent.name": "cursor-agent",
      "gen_ai.request.model": "gpt-5",
      "gen_ai.conversation.id": result?.sessionId,
    });
    expect(turn.status.code).toBe(SpanStatusCode.UNSET);
    const tools = spans.filter((s) => s.name.startsWith("execute_tool "));
    expect(tools.map((s) => s.name)).toEqual(["execute_tool Bash", "execute_tool Write"]);
    for (const tool of tools) {
      expect(tool.parentSpanContext?.spanId).toBe(turn.spanContext().spanId);
      expect(tool.attributes["gen_ai.operation.name"]).toBe("execute_tool");
      expect(tool.attributes["gen_ai.tool.call.id"]).toEqual(expect.any(String));
    }
    const [bash, write] = tools;
    expect(bash?.attributes).toMatchObject({ "gen_ai.tool.name": "Bash", "code_agent.tool.exit_code": 0 });
    expect(bash?.status.code).toBe(SpanStatusCode.UNSET);
    expect(write?.attributes).toMatchObject({ "gen_ai.tool.name": "Write", "error.type": "tool_error" });
    expect(write?.status.code).toBe(SpanStatusCode.ERROR);
    const durations = await otel.histogram("gen_ai.client.operation.duration");
    expect(durations.some((p) => p.attributes["gen_ai.provider.name"] === "cursor")).toBe(true);
  });

  it("a failed turn: invoke_agent in error, error.type the SDK's classification of the failure", async () => {
    await using bed = cursorBed();
    await using otel = otelHarness();
    const messages = await collect(
      query({
        prompt: "FAIL",
        options: bed.options({ telemetry: { tracerProvider: otel.tracerProvider } }),
      }),
    ).catch(() => []);
    const spans = otel.spans();
    console.log(`cursor failed turn:\n${spanTree(spans)}${messages.length ? "" : " (the iteration threw)"}`);
    const turn = only(spans, "invoke_agent cursor-agent");
    expect(turn.status.code).toBe(SpanStatusCode.ERROR);
    // The stand-in fails with "quota exceeded": the result's errorKind.
    expect(turn.attributes["error.type"]).toBe("usage_limit");
  });
});
