/**
 * Inside the AI SDK provider (`ai` 6 on Node 20, 7 on Node 22+) over the real claude, offline:
 * the run's invoke_agent span nests under the AI SDK's own `doGenerate` / `doStream` span.
 */
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterEach, describe, expect, it } from "vitest";
import { codeAgent } from "../../src/ai-sdk/index.js";
import { ai } from "../ai-sdk/ai-version.js";
import { CLAUDE_CLI_VERSION, testBed } from "../e2e/support.js";
import { only, otelHarness, spanTree } from "./support.js";

describe(`telemetry inside the AI SDK provider over claude ${CLAUDE_CLI_VERSION}`, () => {
  afterEach(() => {
    context.disable();
  });

  it("generateText and streamText: invoke_agent is a child of the AI SDK's doGenerate / doStream span", async () => {
    await using bed = await testBed([{ text: "generated" }, { text: "streamed" }]);
    await using otel = otelHarness();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const tracer = otel.tracerProvider.getTracer("ai");
    const model = codeAgent("claude", bed.options({ telemetry: { tracerProvider: otel.tracerProvider } }));
    const generated = await ai.generateText({
      model,
      prompt: "generate",
      experimental_telemetry: { isEnabled: true, tracer },
    });
    expect(generated.text).toBe("generated");
    const stream = ai.streamText({
      model,
      prompt: "stream",
      experimental_telemetry: { isEnabled: true, tracer },
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
