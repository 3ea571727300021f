/**
 * Context propagation into the real Claude Code CLI (2.1.330): with `cliTelemetry`, its own spans
 * arrive at a local OTLP/HTTP receiver under the trace id of our `invoke_agent` span.
 */
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterEach, describe, expect, it } from "vitest";
import { AgentSdkClient, query } from "../../src/index.js";
import { CLAUDE_CLI_VERSION, collect, results, testBed } from "../e2e/support.js";
import { startOtlpReceiver } from "./otlp-receiver.js";
import { only, otelHarness, spanTree } from "./support.js";

describe(`cliTelemetry with claude ${CLAUDE_CLI_VERSION}`, () => {
  afterEach(() => {
    context.disable();
  });

  it("Claude Code's interaction span is a child of our invoke_agent span, its tool span matches ours by call id", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "echo joined", description: "echo" } } },
      { text: "joined up" },
    ]);
    await using otel = otelHarness();
    await using receiver = await startOtlpReceiver();
    const messages = await collect(
      query({
        prompt: "run it",
        options: bed.options({
          // A console exporter in the host's environment would write into the protocol stream:
          // cliTelemetry replaces it.
          env: { OTEL_TRACES_EXPORTER: "console", OTEL_METRICS_EXPORTER: "console" },
          canUseTool: async (_name, input) => ({ behavior: "allow", updatedInput: input }),
          telemetry: {
            tracerProvider: otel.tracerProvider,
            cliTelemetry: { endpoint: receiver.endpoint, protocol: "http/json", metrics: false },
          },
        }),
      }),
    );
    expect(results(messages)[0]).toMatchObject({ isError: false, result: "joined up" });
    const turn = only(otel.spans(), "invoke_agent claude-code");
    const traceId = turn.spanContext().traceId;
    // The CLI exports when it shuts down, which the query waited for; the receiver may still be reading.
    const received = await receiver.waitFor(
      (spans) =>
        spans.some((s) => s.name === "claude_code.interaction") &&
        spans.some((s) => s.name === "claude_code.tool"),
      30_000,
    );
    console.log(
      `our spans:\n${spanTree(otel.spans())}\nClaude Code's spans:\n${received
        .map((s) => `${s.name} trace=${s.traceId} span=${s.spanId} parent=${s.parentSpanId ?? "-"}`)
        .join("\n")}`,
    );
    expect(received.every((s) => s.traceId === traceId)).toBe(true);
    const interaction = received.find((s) => s.name === "claude_code.interaction");
    expect(interaction?.parentSpanId).toBe(turn.spanContext().spanId);
    const ourTool = only(otel.spans(), "execute_tool Bash");
    const theirTool = received.find((s) => s.name === "claude_code.tool");
    const callId = theirTool?.attributes?.find((a) => a.key === "gen_ai.tool.call.id")?.value.stringValue;
    expect(callId).toBe(ourTool.attributes["gen_ai.tool.call.id"]);
    expect(receiver.paths).not.toContain("/v1/metrics");
  });

  it("a client's turns: Claude Code's interaction spans and ours all sit under the span active at connect()", async () => {
    await using bed = await testBed([{ text: "first" }, { text: "second" }]);
    await using otel = otelHarness();
    await using receiver = await startOtlpReceiver();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const host = otel.tracerProvider.getTracer("host").startSpan("host session");
    await context.with(trace.setSpan(context.active(), host), async () => {
      await using client = new AgentSdkClient(
        bed.options({
          telemetry: {
            tracerProvider: otel.tracerProvider,
            cliTelemetry: { endpoint: receiver.endpoint, protocol: "http/json", metrics: false },
          },
        }),
      );
      await client.connect();
      expect((await client.run("one")).text).toBe("first");
      expect((await client.run("two")).text).toBe("second");
    });
    host.end();
    const { traceId, spanId } = host.spanContext();
    const received = await receiver.waitFor(
      (spans) => spans.filter((s) => s.name === "claude_code.interaction").length === 2,
      30_000,
    );
    const interactions = received.filter((s) => s.name === "claude_code.interaction");
    for (const interaction of interactions) {
      expect(interaction.traceId).toBe(traceId);
      expect(interaction.parentSpanId).toBe(spanId);
    }
    const ours = otel.spans().filter((s) => s.name === "invoke_agent claude-code");
    expect(ours).toHaveLength(2);
    for (const turn of ours) expect(turn.parentSpanContext?.spanId).toBe(spanId);
    console.log(
      `client under a host span:\n${spanTree(otel.spans())}\nClaude Code's: ${interactions
        .map((s) => `${s.name} parent=${s.parentSpanId}`)
        .join(", ")}`,
    );
  });
});
