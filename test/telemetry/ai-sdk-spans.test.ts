/**
 * Inside the AI SDK provider (`ai` 6 on Node 20, 7 on Node 22+) over the real claude, offline:
 * the run's invoke_agent span nests under the AI SDK's own `doGenerate` / `doStream` span.
 *
 * `ai` 7 has no OpenTelemetry of its own: its spans come from a telemetry integration
 * (`@ai-sdk/otel`'s `LegacyOpenTelemetry` names them as `ai` 6 did), which runs the provider's
 * `doGenerate` / `doStream` inside its span's context through `executeLanguageModelCall`. A tracer
 * in `experimental_telemetry` is ignored there (why this test found no AI SDK span at all on Node 22
 * and 24). The test uses a minimal integration doing what `LegacyOpenTelemetry` does around the
 * model call; CODE_AGENT_SDK_TEST_AI_SDK_OTEL=<path to @ai-sdk/otel's dist/index.js> runs it with
 * the real one instead (not a dependency of this package).
 */
import { context, type Span, type Tracer, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterEach, describe, expect, it } from "vitest";
import { codeAgent } from "../../src/ai-sdk/index.js";
import { AI_MAJOR, ai } from "../ai-sdk/ai-version.js";
import { CLAUDE_CLI_VERSION, testBed } from "../e2e/support.js";
import { only, otelHarness, spanTree } from "./support.js";

/** A minimal `ai` 7 telemetry integration: an `ai.<operation>` span and its `.doGenerate` / `.doStream` child around the model call. */
function minimalIntegration(tracer: Tracer) {
  const roots = new Map<string, { span: Span; operationId: string }>();
  return {
    onStart(event: { callId: string; operationId: string }) {
      roots.set(event.callId, { span: tracer.startSpan(event.operationId), operationId: event.operationId });
    },
    async executeLanguageModelCall<T>({
      callId,
      execute,
    }: {
      callId: string;
      execute: () => PromiseLike<T>;
    }) {
      const root = roots.get(callId);
      if (!root) return await execute();
      const step = root.operationId === "ai.streamText" ? "doStream" : "doGenerate";
      const parent = trace.setSpan(context.active(), root.span);
      const span = tracer.startSpan(`${root.operationId}.${step}`, {}, parent);
      try {
        return await context.with(trace.setSpan(parent, span), execute);
      } finally {
        span.end();
      }
    },
    onEnd(event: { callId: string }) {
      roots.get(event.callId)?.span.end();
      roots.delete(event.callId);
    },
  };
}

/** The AI SDK call's telemetry option for `tracer`, in the form of the `ai` release in use. */
async function aiTelemetry(tracer: Tracer): Promise<Record<string, unknown>> {
  if (AI_MAJOR === 6) return { experimental_telemetry: { isEnabled: true, tracer } };
  const real = process.env.CODE_AGENT_SDK_TEST_AI_SDK_OTEL;
  const integration = real
    ? new (
        (await import(real)) as { LegacyOpenTelemetry: new (o: { tracer: Tracer }) => unknown }
      ).LegacyOpenTelemetry({ tracer })
    : minimalIntegration(tracer);
  return { telemetry: { isEnabled: true, integrations: [integration] } };
}

describe(`telemetry inside the AI SDK provider over claude ${CLAUDE_CLI_VERSION}`, () => {
  afterEach(() => {
    context.disable();
  });

  it("generateText and streamText: invoke_agent is a child of the AI SDK's doGenerate / doStream span", async () => {
    await using bed = await testBed([{ text: "generated" }, { text: "streamed" }]);
    await using otel = otelHarness();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const tracer = otel.tracerProvider.getTracer("ai");
    const telemetry = await aiTelemetry(tracer);
    const model = codeAgent("claude", bed.options({ telemetry: { tracerProvider: otel.tracerProvider } }));
    const generated = await ai.generateText({
      model,
      prompt: "generate",
      ...telemetry,
    });
    expect(generated.text).toBe("generated");
    const stream = ai.streamText({
      model,
      prompt: "stream",
      ...telemetry,
    });
    let streamed = "";
    for await (const chunk of stream.textStream) streamed += chunk;
    expect(streamed).toBe("streamed");

    const spans = otel.spans();
    console.log(`AI SDK trace:\n${spanTree(spans, ["gen_ai.operation.name", "gen_ai.agent.name"])}`);
    const turns = spans.filter((s) => s.name === "invoke_agent claude-code");
    expect(turns).toHaveLength(2);
    const doGenerate = only(spans, "ai.generateText.doGenerate");
    const doStream = only(spans, "ai.streamText.doStream");
    expect(turns.map((t) => t.parentSpanContext?.spanId).sort()).toEqual(
      [doGenerate.spanContext().spanId, doStream.spanContext().spanId].sort(),
    );
  });
});
