/**
 * Spans and metrics of a query and a client against the real Claude Code CLI (2.1.330), offline,
 * with the OpenTelemetry SDK's in-memory exporter.
 */
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { AgentSdkClient, query } from "../../src/index.js";
import { CLAUDE_CLI_VERSION, collect, results, testBed } from "../e2e/support.js";
import { only, otelHarness, spanTree } from "./support.js";

describe(`telemetry against claude ${CLAUDE_CLI_VERSION}`, () => {
  it("a query is one invoke_agent span with an execute_tool child per call, decisions and failures on them", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "echo traced", description: "echo" } } },
      { toolUse: { name: "Bash", input: { command: "touch denied.txt", description: "touch" } } },
      { text: "all done" },
    ]);
    await using otel = otelHarness();
    const messages = await collect(
      query({
        prompt: "run two commands",
        options: bed.options({
          model: "claude-sonnet-4-5",
          canUseTool: async (_name, input) =>
            String(input.command).startsWith("echo")
              ? { behavior: "allow", updatedInput: input }
              : { behavior: "deny", message: "not here" },
          telemetry: { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider },
        }),
      }),
    );
    const [result] = results(messages);
    expect(result?.isError).toBe(false);
    const spans = otel.spans();
    console.log(`claude query trace:\n${spanTree(spans)}`);

    const turn = only(spans, "invoke_agent claude-code");
    expect(turn.kind).toBe(SpanKind.CLIENT);
    expect(turn.parentSpanContext).toBeUndefined();
    expect(turn.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": "anthropic",
      "gen_ai.agent.name": "claude-code",
      "gen_ai.conversation.id": result?.sessionId,
      "gen_ai.request.model": "claude-sonnet-4-5",
      "gen_ai.response.model": expect.any(String),
      "gen_ai.usage.input_tokens": result?.tokenUsage?.inputTokens,
      "gen_ai.usage.output_tokens": result?.tokenUsage?.outputTokens,
    });
    expect(turn.status.code).toBe(SpanStatusCode.UNSET);
    // Content is off unless asked for.
    expect(
      Object.keys(turn.attributes).filter((k) => k.includes("messages") || k.includes("arguments")),
    ).toEqual([]);

    const tools = spans.filter((s) => s.name === "execute_tool Bash");
    expect(tools).toHaveLength(2);
    const uses = messages.flatMap((m) =>
      m.type === "assistant" ? m.content.filter((b) => b.type === "tool_use") : [],
    ) as { id: string }[];
    for (const [i, tool] of tools.entries()) {
      expect(tool.parentSpanContext?.spanId).toBe(turn.spanContext().spanId);
      expect(tool.spanContext().traceId).toBe(turn.spanContext().traceId);
      expect(tool.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "Bash",
        "gen_ai.tool.call.id": uses[i]?.id,
      });
    }
    const [allowed, denied] = tools;
    expect(allowed?.attributes["code_agent.tool.decision"]).toBe("allow");
    expect(allowed?.status.code).toBe(SpanStatusCode.UNSET);
    expect(denied?.attributes).toMatchObject({
      "code_agent.tool.decision": "deny",
      "error.type": "permission_denied",
    });
    expect(denied?.status.code).toBe(SpanStatusCode.ERROR);

    const tokens = await otel.histogram("gen_ai.client.token.usage");
    expect(tokens.map((p) => p.attributes["gen_ai.token.type"]).sort()).toEqual(["input", "output"]);
    expect(tokens.find((p) => p.attributes["gen_ai.token.type"] === "input")?.value.sum).toBe(
      result?.tokenUsage?.inputTokens,
    );
    const durations = await otel.histogram("gen_ai.client.operation.duration");
    expect(durations.map((p) => p.attributes["gen_ai.operation.name"]).sort()).toEqual([
      "execute_tool",
      "execute_tool",
      "invoke_agent",
    ]);
  });

  it("records prompts, answers and tool input and output only with recordContent", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "echo content-check", description: "echo" } } },
      { text: "the answer" },
    ]);
    await using otel = otelHarness();
    await collect(
      query({
        prompt: "say the secret",
        options: bed.options({
          canUseTool: async (_name, input) => ({ behavior: "allow", updatedInput: input }),
          telemetry: { tracerProvider: otel.tracerProvider, recordContent: true },
        }),
      }),
    );
    const spans = otel.spans();
    const turn = only(spans, "invoke_agent claude-code");
    expect(JSON.parse(String(turn.attributes["gen_ai.input.messages"]))).toEqual([
      { role: "user", parts: [{ type: "text", content: "say the secret" }] },
    ]);
    expect(JSON.parse(String(turn.attributes["gen_ai.output.messages"]))).toMatchObject([
      { role: "assistant", parts: [{ type: "text", content: "the answer" }] },
    ]);
    const tool = only(spans, "execute_tool Bash");
    expect(JSON.parse(String(tool.attributes["gen_ai.tool.call.arguments"]))).toMatchObject({
      command: "echo content-check",
    });
    expect(String(tool.attributes["gen_ai.tool.call.result"])).toContain("content-check");
  });

  it("a client's turns are one invoke_agent span each, in one conversation", async () => {
    await using bed = await testBed([{ text: "first" }, { text: "second" }]);
    await using otel = otelHarness();
    {
      await using client = new AgentSdkClient(
        bed.options({ telemetry: { tracerProvider: otel.tracerProvider } }),
      );
      await client.connect();
      expect((await client.run("one")).text).toBe("first");
      expect((await client.run("two")).text).toBe("second");
    }
    const turns = otel.spans().filter((s) => s.name === "invoke_agent claude-code");
    console.log(`claude client trace:\n${spanTree(otel.spans())}`);
    expect(turns).toHaveLength(2);
    const conversation = turns[0]?.attributes["gen_ai.conversation.id"];
    expect(conversation).toMatch(/[0-9a-f-]{36}/);
    expect(turns[1]?.attributes["gen_ai.conversation.id"]).toBe(conversation);
    for (const turn of turns) expect(turn.attributes["code_agent.turn.completed"]).toBeUndefined();
  });

  it("a run that fails ends its span with the typed error's name as error.type", async () => {
    await using otel = otelHarness();
    const error = await collect(
      query({
        prompt: "hi",
        options: {
          cliPath: "/nonexistent/claude",
          telemetry: { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider },
        },
      }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const turn = only(otel.spans(), "invoke_agent claude-code");
    expect(turn.status.code).toBe(SpanStatusCode.ERROR);
    expect(turn.attributes["error.type"]).toBe((error as Error).name);
    expect(turn.events.map((e) => e.name)).toContain("exception");
    const durations = await otel.histogram("gen_ai.client.operation.duration");
    expect(durations[0]?.attributes["error.type"]).toBe((error as Error).name);
  });
});
