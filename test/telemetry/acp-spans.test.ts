/**
 * Spans of an ACP agent (codex-acp 0.16.0 against the fake Responses API), offline: the same
 * invoke_agent / execute_tool tree from the unified messages, through an AgentSdkClient.
 */
import { SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { AgentSdkClient, type CanUseTool } from "../../src/index.js";
import { CODEX_ACP_VERSION, codexAcpBed } from "../e2e/acp-support.js";
import { otelHarness, spanTree } from "./support.js";

describe(`telemetry against codex-acp ${CODEX_ACP_VERSION}`, () => {
  it("a turn per invoke_agent span; an allowed command's span, a denied one in error with the decision", async () => {
    await using bed = await codexAcpBed([
      { execCommand: { cmd: "echo allow-ok > allow.txt" } },
      { text: "ran it" },
      { execCommand: { cmd: "echo deny-ok > deny.txt" } },
      { text: "was refused" },
    ]);
    await using otel = otelHarness();
    const canUseTool: CanUseTool = async (_name, input) =>
      JSON.stringify(input).includes("deny-ok") ? { behavior: "deny", message: "no" } : { behavior: "allow" };
    {
      await using client = new AgentSdkClient(
        bed.options({ canUseTool, telemetry: { tracerProvider: otel.tracerProvider } }),
      );
      await client.connect();
      expect((await client.run("allow this")).error).toBeUndefined();
      expect((await client.run("deny this")).result).toMatchObject({
        isError: true,
        stopReason: "cancelled",
      });
    }
    const spans = otel.spans();
    console.log(`codex-acp client trace:\n${spanTree(spans)}`);
    const turns = spans
      .filter((s) => s.name === "invoke_agent codex-acp")
      .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
    expect(turns).toHaveLength(2);
    for (const turn of turns)
      expect(turn.attributes).toMatchObject({
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "openai",
        "gen_ai.agent.name": "codex-acp",
        "code_agent.backend": "acp",
      });
    expect(turns[0]?.attributes["gen_ai.conversation.id"]).toBeTypeOf("string");
    expect(turns[1]?.attributes["gen_ai.conversation.id"]).toBe(
      turns[0]?.attributes["gen_ai.conversation.id"],
    );
    expect(turns[0]?.status.code).toBe(SpanStatusCode.UNSET);
    expect(turns[1]?.status.code).toBe(SpanStatusCode.ERROR);

    const tools = spans.filter((s) => s.attributes["gen_ai.operation.name"] === "execute_tool");
    expect(tools).toHaveLength(2);
    const [allowed, denied] = turns.map((turn) =>
      tools.find((t) => t.parentSpanContext?.spanId === turn.spanContext().spanId),
    );
    expect(allowed?.attributes).toMatchObject({
      "gen_ai.tool.name": "Bash",
      "code_agent.tool.decision": "allow",
    });
    expect(allowed?.status.code).toBe(SpanStatusCode.UNSET);
    expect(denied?.attributes).toMatchObject({
      "gen_ai.tool.name": "Bash",
      "code_agent.tool.decision": "deny",
      "error.type": "permission_denied",
    });
    expect(denied?.status.code).toBe(SpanStatusCode.ERROR);
    // codex-acp names no model: the agent name in its place is not reported as one.
    expect(turns[0]?.attributes["gen_ai.response.model"]).toBeUndefined();
  });
});
