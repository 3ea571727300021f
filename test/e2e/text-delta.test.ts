/**
 * `textDeltaOf`: the streamed text of an answer, read the same way on every backend that streams
 * (Claude Code, Codex app-server, an ACP agent), joins to the final answer.
 */
import { describe, expect, it } from "vitest";
import { type AcpAgentOptions, AgentSdkClient, type Message, textDeltaOf } from "../../src/index.js";
import {
  ACP_AGENTS,
  acpAgentUnavailableReason,
  createAcpAgentEnv,
  startFakeModelForAgent,
} from "../../src/testing/index.js";
import { codexBed } from "./codex-support.js";
import { testBed } from "./support.js";

const ANSWER = "streamed answer, in several pieces";

async function streamed(client: AgentSdkClient): Promise<{ pieces: string[]; result: string | undefined }> {
  await client.connect();
  await client.query("say it");
  const pieces: string[] = [];
  let result: string | undefined;
  for await (const m of client.receiveResponse() as AsyncIterable<Message>) {
    const piece = textDeltaOf(m);
    if (piece !== undefined && m.type === "stream_event" && m.parentToolUseId === null) pieces.push(piece);
    if (m.type === "result") result = m.result;
  }
  return { pieces, result };
}

describe("textDeltaOf", () => {
  it("claude: the text deltas join to the answer", async () => {
    await using bed = await testBed([{ text: ANSWER }]);
    await using client = new AgentSdkClient(bed.options({ includePartialMessages: true }));
    const { pieces, result } = await streamed(client);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join("")).toBe(ANSWER);
    expect(result).toBe(ANSWER);
  });

  it("codex (app-server): the text deltas join to the answer", async () => {
    await using bed = await codexBed([{ text: ANSWER }]);
    await using client = new AgentSdkClient(bed.options({ backend: "codex", includePartialMessages: true }));
    const { pieces, result } = await streamed(client);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join("")).toBe(ANSWER);
    expect(result).toBe(ANSWER);
  });

  const reason = acpAgentUnavailableReason("qwen");
  it.skipIf(reason !== undefined)(
    "ACP (Qwen Code): the text deltas join to the answer",
    { timeout: 120_000 },
    async () => {
      const model = await startFakeModelForAgent("qwen", { turns: [{ text: ANSWER }] });
      const env = createAcpAgentEnv("qwen", { baseUrl: model.url });
      try {
        const options: AcpAgentOptions = {
          backend: "acp",
          acp: { agent: "qwen", args: [...ACP_AGENTS.qwen.acpArgs], mode: "default" },
          cwd: env.cwd,
          env: env.env,
          inheritEnv: false,
          includePartialMessages: true,
        };
        await using client = new AgentSdkClient(options);
        const { pieces, result } = await streamed(client);
        expect(pieces.join("")).toBe(ANSWER);
        expect(result).toBe(ANSWER);
      } finally {
        await model.close();
        await env.cleanup();
      }
    },
  );

  it("is undefined for anything but a text delta", () => {
    const base = { raw: {}, parentToolUseId: null };
    expect(
      textDeltaOf({
        type: "stream_event",
        event: { type: "content_block_delta", delta: { type: "thinking_delta", thinking: "x" } },
        ...base,
      }),
    ).toBeUndefined();
    expect(textDeltaOf({ type: "stream_event", event: { type: "message_start" }, ...base })).toBeUndefined();
    expect(
      textDeltaOf({
        type: "stream_event",
        event: { type: "content_block_delta", delta: null } as never,
        ...base,
      }),
    ).toBeUndefined();
    expect(
      textDeltaOf({
        type: "stream_event",
        event: { type: "content_block_delta", delta: { type: "text_delta", text: "hi" } },
        ...base,
      }),
    ).toBe("hi");
  });
});
