/**
 * Unit tests of the AI SDK provider's pure parts: model ids, prompt conversion, message → part mapping.
 */
import { describe, expect, it } from "vitest";
import { AgentTurnError, parseModelId } from "../../src/ai-sdk/index.js";
import { PartMapper } from "../../src/ai-sdk/parts.js";
import { convertPrompt } from "../../src/ai-sdk/prompt.js";
import { InvalidOptionsError, type Message, type ResultMessage } from "../../src/index.js";

const SESSION = "11111111-2222-3333-4444-555555555555";

function result(extra: Partial<ResultMessage> = {}): ResultMessage {
  return {
    type: "result",
    subtype: "success",
    isError: false,
    durationMs: 10,
    durationApiMs: 5,
    numTurns: 1,
    sessionId: SESSION,
    totalCostUsd: 0.01,
    tokenUsage: {
      inputTokens: 10,
      outputTokens: 7,
      cacheReadInputTokens: 3,
      cacheCreationInputTokens: 2,
      reasoningOutputTokens: 4,
    },
    raw: { type: "result" },
    ...extra,
  };
}

describe("parseModelId", () => {
  it.each([
    ["claude", { backend: "claude" }],
    ["claude/opus", { backend: "claude", model: "opus" }],
    ["codex/gpt-5.1-codex", { backend: "codex", model: "gpt-5.1-codex" }],
    ["cursor", { backend: "cursor" }],
    ["acp/gemini", { backend: "acp", acpAgent: "gemini" }],
    ["acp/claude-code-acp", { backend: "acp", acpAgent: "claude-code-acp" }],
    ["acp", { backend: "acp" }],
    ["claude/claude-sonnet-4-5@20250929", { backend: "claude", model: "claude-sonnet-4-5@20250929" }],
  ])("%s", (id, expected) => {
    expect(parseModelId(id)).toEqual(expected);
  });

  it.each([
    ["", /non-empty/],
    ["gpt-4", /unknown backend/],
    ["acp/nope", /unknown ACP agent/],
    ["claude/--dangerously-skip-permissions", /must not start with "-"/],
    ["codex/a b", /letters, digits/],
    ["claude/", /letters, digits/],
    ["claude/x\nline", /letters, digits/],
    [42, /non-empty string/],
  ])("refuses %j", (id, message) => {
    expect(() => parseModelId(id)).toThrow(InvalidOptionsError);
    expect(() => parseModelId(id)).toThrow(message);
  });
});

describe("convertPrompt", () => {
  const allow = { backend: "claude" as const, allowResume: () => true };

  it("one user message: its text, the system text apart, nothing to resume", () => {
    const out = convertPrompt(
      [
        { role: "system", content: "be brief" },
        { role: "user", content: [{ type: "text", text: "hi" }] },
      ],
      allow,
    );
    expect(out).toEqual({ system: "be brief", resume: undefined, prompt: "hi", warnings: [] });
  });

  it("resumes the session of the last assistant message and sends only what came after it", () => {
    const out = convertPrompt(
      [
        { role: "user", content: [{ type: "text", text: "one" }] },
        {
          role: "assistant",
          content: [
            {
              type: "text",
              text: "ans",
              providerOptions: { codeAgent: { sessionId: SESSION, backend: "claude" } },
            },
          ],
        },
        { role: "user", content: [{ type: "text", text: "two" }] },
      ],
      allow,
    );
    expect(out.resume).toBe(SESSION);
    expect(out.prompt).toBe("two");
  });

  it("does not resume another backend's session, nor one the caller refuses: replays instead", () => {
    const prompt = [
      { role: "user" as const, content: [{ type: "text" as const, text: "one" }] },
      {
        role: "assistant" as const,
        content: [
          {
            type: "text" as const,
            text: "ans",
            providerOptions: { codeAgent: { sessionId: SESSION, backend: "codex" } },
          },
        ],
      },
      { role: "user" as const, content: [{ type: "text" as const, text: "two" }] },
    ];
    for (const out of [
      convertPrompt(prompt, allow),
      convertPrompt(prompt, { backend: "codex", allowResume: () => false }),
    ]) {
      expect(out.resume).toBeUndefined();
      expect(out.prompt).toContain("User: one");
      expect(out.prompt).toContain("Assistant: ans");
      expect(String(out.prompt).endsWith("two")).toBe(true);
      expect(out.warnings[0]?.type).toBe("compatibility");
    }
  });

  it("images: bytes and base64 become base64 blocks, http(s) URLs stay URLs, other files are dropped with a warning", () => {
    const out = convertPrompt(
      [
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "file", mediaType: "image/png", data: new Uint8Array([1, 2, 3]) },
            { type: "file", mediaType: "image/jpeg", data: "AAAA" },
            { type: "file", mediaType: "image/png", data: new URL("https://example.com/a.png") },
            // ai 7 passes a URL given as a string on to a v3 model as the string
            { type: "file", mediaType: "image", data: "https://example.com/b.png" },
            { type: "file", mediaType: "application/pdf", data: "AAAA" },
          ],
        },
      ],
      allow,
    );
    expect(out.prompt).toEqual([
      { type: "text", text: "look" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "AQID" } },
      { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "AAAA" } },
      { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
      { type: "image", source: { type: "url", url: "https://example.com/b.png" } },
    ]);
    expect(out.warnings).toEqual([
      expect.objectContaining({ type: "unsupported", feature: "file part of type application/pdf" }),
    ]);
  });

  it("ai 7's tagged file data that its v3 adapter passes on as objects: inline text is sent, a provider reference dropped with a warning", () => {
    const out = convertPrompt(
      [
        {
          role: "user",
          content: [
            { type: "text", text: "read this" },
            // What ai 7's asLanguageModelV4 hands a v3 model for `{ type: "text" }` / `{ type: "reference" }` data.
            {
              type: "file",
              mediaType: "text/plain",
              filename: "notes.txt",
              data: { type: "text", text: "inline" },
            },
            {
              type: "file",
              mediaType: "application/pdf",
              data: { type: "reference", reference: { x: "f1" } },
            },
          ] as never,
        },
      ],
      allow,
    );
    expect(out.prompt).toBe("read this\n\nnotes.txt:\ninline");
    expect(out.warnings).toEqual([
      expect.objectContaining({
        type: "unsupported",
        feature: "file part application/pdf given as a provider reference",
      }),
    ]);
  });

  it("no user message to send is an InvalidOptionsError", () => {
    expect(() => convertPrompt([{ role: "system", content: "x" }], allow)).toThrow(InvalidOptionsError);
  });
});

describe("PartMapper", () => {
  const init: Message = {
    type: "system",
    subtype: "init",
    data: { model: "m1" },
    raw: {},
    sessionId: SESSION,
  };

  it("whole messages: metadata, reasoning, text, a provider-executed dynamic tool call and its result, finish", () => {
    const mapper = new PartMapper({ backend: "codex", nativeJson: false });
    const messages: Message[] = [
      init,
      {
        type: "assistant",
        content: [{ type: "thinking", thinking: "hmm", signature: "" }],
        model: "m1",
        parentToolUseId: null,
        raw: {},
      },
      {
        type: "assistant",
        content: [{ type: "tool_use", id: "c1", name: "Bash", input: { command: "ls" } }],
        model: "m1",
        parentToolUseId: null,
        raw: {},
      },
      {
        type: "user",
        content: [{ type: "tool_result", toolUseId: "c1", content: "a\nb", isError: false, exitCode: 0 }],
        parentToolUseId: null,
        raw: {},
      },
      {
        type: "assistant",
        content: [{ type: "text", text: "done" }],
        model: "m1",
        parentToolUseId: "sub",
        raw: {},
      },
      {
        type: "assistant",
        content: [{ type: "text", text: "done" }],
        model: "m1",
        parentToolUseId: null,
        raw: {},
      },
      result(),
    ];
    const parts = [...messages.flatMap((m) => mapper.map(m)), ...mapper.finish()];
    expect(parts.map((p) => p.type)).toEqual([
      "response-metadata",
      "reasoning-start",
      "reasoning-delta",
      "reasoning-end",
      "tool-input-start",
      "tool-input-delta",
      "tool-input-end",
      "tool-call",
      "tool-result",
      "text-start",
      "text-delta",
      "text-end",
      "finish",
    ]);
    const meta = { codeAgent: { sessionId: SESSION, backend: "codex" } };
    expect(parts[0]).toMatchObject({ id: SESSION, modelId: "m1" });
    // A call given whole gets its input as one delta first, as a streamed one would.
    expect(parts[4]).toMatchObject({
      type: "tool-input-start",
      id: "c1",
      toolName: "Bash",
      providerExecuted: true,
    });
    expect(parts[5]).toEqual({ type: "tool-input-delta", id: "c1", delta: '{"command":"ls"}' });
    expect(parts[7]).toEqual({
      type: "tool-call",
      toolCallId: "c1",
      toolName: "Bash",
      input: '{"command":"ls"}',
      providerExecuted: true,
      dynamic: true,
      providerMetadata: meta,
    });
    expect(parts[8]).toMatchObject({
      toolCallId: "c1",
      toolName: "Bash",
      result: { output: "a\nb", exitCode: 0 },
    });
    expect(parts[9]).toMatchObject({ providerMetadata: meta });
    const finish = parts.at(-1);
    expect(finish).toMatchObject({
      finishReason: { unified: "stop", raw: "success" },
      // Codex counts cached input inside inputTokens and reasoning inside outputTokens.
      usage: {
        inputTokens: { total: 10, noCache: 7, cacheRead: 3, cacheWrite: 2 },
        outputTokens: { total: 7, text: 3, reasoning: 4 },
      },
      providerMetadata: {
        codeAgent: { sessionId: SESSION, backend: "codex", costUsd: 0.01, result: { type: "result" } },
      },
    });
  });

  it("Claude's stream events give live deltas, and the whole message that follows is not sent twice", () => {
    const mapper = new PartMapper({ backend: "claude", nativeJson: false });
    const ev = (event: Record<string, unknown>): Message => ({
      type: "stream_event",
      event,
      parentToolUseId: null,
      raw: {},
    });
    const messages: Message[] = [
      init,
      ev({ type: "message_start", message: { id: "msg1" } }),
      ev({ type: "content_block_start", index: 0, content_block: { type: "text" } }),
      ev({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } }),
      ev({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "lo" } }),
      ev({ type: "content_block_stop", index: 0 }),
      {
        type: "assistant",
        messageId: "msg1",
        content: [{ type: "text", text: "Hello" }],
        model: "m",
        parentToolUseId: null,
        raw: {},
      },
      result(),
    ];
    const parts = [...messages.flatMap((m) => mapper.map(m)), ...mapper.finish()];
    expect(parts.filter((p) => p.type === "text-delta").map((p) => (p as { delta: string }).delta)).toEqual([
      "Hel",
      "lo",
    ]);
    expect(parts.filter((p) => p.type === "text-start")).toHaveLength(1);
    // Claude counts cache tokens apart from inputTokens.
    expect(parts.at(-1)).toMatchObject({
      usage: { inputTokens: { total: 15, noCache: 10 }, outputTokens: { text: 7 } },
    });
  });

  it("native JSON: text and the StructuredOutput tool are held back; the structured output is the one text", () => {
    const mapper = new PartMapper({ backend: "claude", nativeJson: true });
    const messages: Message[] = [
      init,
      {
        type: "assistant",
        content: [{ type: "tool_use", id: "s1", name: "StructuredOutput", input: { a: 1 } }],
        model: "m",
        parentToolUseId: null,
        raw: {},
      },
      {
        type: "user",
        content: [{ type: "tool_result", toolUseId: "s1", content: "ok", isError: false }],
        parentToolUseId: null,
        raw: {},
      },
      {
        type: "assistant",
        content: [{ type: "text", text: "here it is" }],
        model: "m",
        parentToolUseId: null,
        raw: {},
      },
      result({ structuredOutput: { a: 1 } }),
    ];
    const parts = [...messages.flatMap((m) => mapper.map(m)), ...mapper.finish()];
    expect(parts.map((p) => p.type)).toEqual([
      "response-metadata",
      "text-start",
      "text-delta",
      "text-end",
      "finish",
    ]);
    expect(parts[2]).toMatchObject({ delta: '{"a":1}' });
  });

  it("a failed turn: an AgentTurnError part and finish reason error; unknown counts stay undefined", () => {
    const mapper = new PartMapper({ backend: "cursor", nativeJson: false });
    mapper.map(
      result({ isError: true, subtype: "error_during_execution", errors: ["boom"], tokenUsage: null }),
    );
    const parts = mapper.finish();
    expect(parts[0]?.type).toBe("error");
    const error = (parts[0] as { error: unknown }).error;
    expect(error).toBeInstanceOf(AgentTurnError);
    expect(String((error as Error).message)).toContain("boom");
    expect(parts[1]).toMatchObject({
      finishReason: { unified: "error" },
      usage: { inputTokens: { total: undefined }, outputTokens: { total: undefined } },
    });
  });

  it("a tool result's content that has no JSON form is described, not thrown", () => {
    const mapper = new PartMapper({ backend: "claude", nativeJson: false });
    mapper.map({
      type: "assistant",
      content: [{ type: "tool_use", id: "c", name: "X", input: {} }],
      model: "m",
      parentToolUseId: null,
      raw: {},
    });
    const parts = mapper.map({
      type: "user",
      content: [{ type: "tool_result", toolUseId: "c", content: { n: 1n }, isError: true }],
      parentToolUseId: null,
      raw: {},
    });
    expect(parts[0]).toMatchObject({
      type: "tool-result",
      isError: true,
      result: expect.stringContaining("BigInt"),
    });
  });
});

describe("PartMapper: streamed tool input", () => {
  it("ends a streamed tool input before its tool call, even when the whole block comes before content_block_stop", () => {
    const mapper = new PartMapper({ backend: "claude", nativeJson: false });
    const ev = (event: Record<string, unknown>): Message => ({
      type: "stream_event",
      event,
      parentToolUseId: null,
      raw: {},
    });
    const messages: Message[] = [
      ev({ type: "message_start", message: { id: "m1" } }),
      ev({
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "t1", name: "Bash" },
      }),
      ev({
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: '{"command":"ls"}' },
      }),
      {
        type: "assistant",
        messageId: "m1",
        content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } }],
        model: "m",
        parentToolUseId: null,
        raw: {},
      },
      ev({ type: "content_block_stop", index: 0 }),
    ];
    const types = messages.flatMap((m) => mapper.map(m)).map((p) => p.type);
    expect(types).toEqual(["tool-input-start", "tool-input-delta", "tool-input-end", "tool-call"]);
  });
});
