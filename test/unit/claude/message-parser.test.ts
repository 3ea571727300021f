import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLAUDE_EVENT_LINE_TYPES } from "../../../src/backends/claude/events.js";
import { parseClaudeContentBlock, parseClaudeMessage } from "../../../src/backends/claude/message-parser.js";
import { MessageParseError } from "../../../src/errors.js";
import type {
  AssistantMessage,
  Message,
  ResultMessage,
  StreamEventMessage,
  SystemMessage,
  UserMessage,
} from "../../../src/messages.js";

// Captured from the real Claude Code 2.1.330 (see test/fixtures/claude/README.md).
const FIXTURES = join(import.meta.dirname, "../../fixtures/claude");
const shape = (name: string) =>
  JSON.parse(readFileSync(join(FIXTURES, "shapes", `${name}.json`), "utf8")) as Record<string, unknown>;
const jsonl = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const isControl = (m: Record<string, unknown>) => typeof m.type === "string" && m.type.startsWith("control_");

/** Every stdout message of every transcript, by transcript name. */
const transcripts = readdirSync(join(FIXTURES, "transcripts"))
  .filter((f) => f.endsWith(".jsonl"))
  .map((f) => ({
    name: f,
    messages: jsonl(join(FIXTURES, "transcripts", f))
      .filter((line) => line.dir === "out")
      .map((line) => line.msg as Record<string, unknown>)
      .filter((m) => !isControl(m)),
  }));

const apiErrorCapture = jsonl(join(FIXTURES, "init-apierror.jsonl")).filter((m) => !isControl(m));

function as<T extends Message["type"]>(message: Message, type: T): Extract<Message, { type: T }> {
  expect(message.type).toBe(type);
  return message as Extract<Message, { type: T }>;
}

describe("parseClaudeMessage on captured CLI output", () => {
  it("the fixtures cover the scenarios we rely on", () => {
    expect(transcripts.map((t) => t.name).sort()).toEqual(
      ["a", "b", "c", "d", "e", "f", "g", "h", "r1", "r2"].map((n) => `${n}.jsonl`),
    );
    expect(transcripts.every((t) => t.messages.length > 0)).toBe(true);
  });

  it.each(transcripts)("parses every stdout line of $name without throwing and keeps raw", ({ messages }) => {
    for (const raw of messages) {
      const message = parseClaudeMessage(raw);
      expect(message.raw).toBe(raw);
      const known = ["user", "assistant", "system", "result", "stream_event"];
      if (known.includes(raw.type as string)) expect(message.type).toBe(raw.type);
      else if (CLAUDE_EVENT_LINE_TYPES.has(raw.type as string)) {
        expect(message).toMatchObject({ type: "system", subtype: raw.type, data: raw });
      } else expect(message).toMatchObject({ type: "unknown", wireType: raw.type });
      if (typeof raw.session_id === "string") expect(message.sessionId).toBe(raw.session_id);
      if (typeof raw.uuid === "string") expect(message.uuid).toBe(raw.uuid);
    }
  });

  it("parses every shape and the all-kinds sample (control kinds excluded)", () => {
    const all = shape("all_stdout_kinds") as Record<string, Record<string, unknown>>;
    const samples = [
      ...Object.values(all).filter((m) => !isControl(m)),
      ...[
        "assistant_text",
        "assistant_tool_use",
        "result_success",
        "result_interrupted",
        "result_after_deny",
        "system_init",
        "user_tool_result",
        "user_tool_result_denied",
      ].map(shape),
    ];
    for (const raw of samples) expect(parseClaudeMessage(raw).type).toBe(raw.type);
  });

  it("every result of every transcript carries numbers, a session id and isError", () => {
    const results = transcripts.flatMap((t) => t.messages).filter((m) => m.type === "result");
    expect(results.length).toBeGreaterThan(5);
    for (const raw of results) {
      const r = as(parseClaudeMessage(raw), "result");
      expect(typeof r.durationMs).toBe("number");
      expect(r.sessionId).toBe(raw.session_id);
      expect(r.isError).toBe(raw.is_error);
    }
  });

  it("a successful result", () => {
    const raw = shape("result_success");
    const r = as(parseClaudeMessage(raw), "result") as ResultMessage;
    expect(r).toMatchObject({
      subtype: "success",
      isError: false,
      durationMs: raw.duration_ms,
      durationApiMs: raw.duration_api_ms,
      numTurns: raw.num_turns,
      totalCostUsd: raw.total_cost_usd,
      result: raw.result,
      sessionId: raw.session_id,
      uuid: raw.uuid,
      permissionDenials: [],
    });
    expect(r.usage).toEqual(raw.usage);
    expect(r.modelUsage).toEqual(raw.modelUsage);
  });

  it("an interrupted result: error_during_execution, aborted_streaming, errors listed", () => {
    const r = as(parseClaudeMessage(shape("result_interrupted")), "result");
    expect(r).toMatchObject({
      subtype: "error_during_execution",
      isError: true,
      terminalReason: "aborted_streaming",
    });
    expect(r.errors).toHaveLength(1);
    expect(r.stopReason).toBeNull();
    expect(r.result).toBeUndefined();
  });

  it("a result after a denied tool lists the denial", () => {
    const raw = shape("result_after_deny");
    const r = as(parseClaudeMessage(raw), "result");
    expect(r.permissionDenials).toEqual(raw.permission_denials);
  });

  it("an API error is subtype success with isError true (trust is_error, not subtype)", () => {
    const r = as(parseClaudeMessage(apiErrorCapture.find((m) => m.type === "result")!), "result");
    expect(r).toMatchObject({
      subtype: "success",
      isError: true,
      terminalReason: "api_error",
      apiErrorStatus: null,
    });
    expect(r.result).toMatch(/^API Error/);
    const a = as(parseClaudeMessage(apiErrorCapture.find((m) => m.type === "assistant")!), "assistant");
    expect(a.error).toBe("server_error");
    expect(a.model).toBe("<synthetic>");
  });

  it("assistant text and tool_use blocks", () => {
    const text = as(parseClaudeMessage(shape("assistant_text")), "assistant") as AssistantMessage;
    expect(text.content).toEqual([{ type: "text", text: expect.any(String) }]);
    expect(text.model).toBe("claude-opus-5-5");
    expect(text.messageId).toMatch(/^msg_/);
    expect(text.parentToolUseId).toBeNull();
    expect(text.usage).toBeDefined();
    expect(text.error).toBeUndefined();

    const tool = as(parseClaudeMessage(shape("assistant_tool_use")), "assistant");
    expect(tool.content).toEqual([
      {
        type: "tool_use",
        id: "toolu_f75bc0dd8fc1c0a014ab182c",
        name: "Bash",
        input: { command: "echo hello", description: "Print hello" },
      },
    ]);
  });

  it("a tool result user turn keeps tool_use_result and maps the block", () => {
    const raw = shape("user_tool_result");
    const u = as(parseClaudeMessage(raw), "user") as UserMessage;
    expect(u.content).toEqual([
      { type: "tool_result", toolUseId: "toolu_f75bc0dd8fc1c0a014ab182c", content: "hello", isError: false },
    ]);
    expect(u.toolUseResult).toEqual(raw.tool_use_result);
    expect(u.parentToolUseId).toBeNull();

    const denied = as(parseClaudeMessage(shape("user_tool_result_denied")), "user");
    const block = (denied.content as { type: string; isError?: boolean }[])[0];
    expect(block).toMatchObject({ type: "tool_result", isError: true });
  });

  it("a system init keeps every wire field in data", () => {
    const raw = shape("system_init");
    const s = as(parseClaudeMessage(raw), "system") as SystemMessage;
    expect(s.subtype).toBe("init");
    expect(s.data).toEqual(raw);
    expect(s.data.tools).toBeInstanceOf(Array);
  });

  it("partial messages arrive as stream_event with the provider event", () => {
    const g = transcripts.find((t) => t.name === "g.jsonl")!;
    const events = g.messages.filter((m) => m.type === "stream_event").map((m) => parseClaudeMessage(m));
    expect(events.length).toBeGreaterThan(3);
    const first = events[0] as StreamEventMessage;
    expect(first.event.type).toBe("message_start");
    expect(first.parentToolUseId).toBeNull();
  });

  it("replayed user messages are flagged", () => {
    const replayed = transcripts
      .flatMap((t) => t.messages)
      .filter((m) => m.type === "user" && typeof m.isReplay === "boolean");
    expect(replayed.length).toBeGreaterThan(0);
    for (const raw of replayed) expect(as(parseClaudeMessage(raw), "user").isReplay).toBe(raw.isReplay);
  });

  it("an interrupt in a live session ends the turn with error_during_execution", () => {
    const f = transcripts.find((t) => t.name === "f.jsonl")!;
    const interrupted = f.messages
      .filter((m) => m.type === "result")
      .map((m) => as(parseClaudeMessage(m), "result"))
      .filter((r) => r.subtype === "error_during_execution");
    expect(interrupted).toHaveLength(1);
    expect(interrupted[0]).toMatchObject({ isError: true, terminalReason: "aborted_streaming" });
  });

  it("HTTP errors from the model API: success subtype, isError, the status, and an error class", () => {
    const h = transcripts.find((t) => t.name === "h.jsonl")!;
    const results = h.messages
      .filter((m) => m.type === "result")
      .map((m) => as(parseClaudeMessage(m), "result"));
    expect(results.map((r) => [r.subtype, r.isError, r.apiErrorStatus])).toEqual([
      ["success", true, 400],
      ["success", true, 401],
      ["success", true, 429],
      ["success", true, 500],
    ]);
    const errors = h.messages
      .filter((m) => m.type === "assistant")
      .map((m) => as(parseClaudeMessage(m), "assistant").error);
    expect(errors).toEqual(["unknown", "authentication_failed", "rate_limit", "server_error"]);
  });
});

describe("parseClaudeMessage on odd input", () => {
  it("throws MessageParseError only when type is not a string", () => {
    expect(() => parseClaudeMessage({})).toThrow(MessageParseError);
    expect(() => parseClaudeMessage({ type: 42 })).toThrow(MessageParseError);
    expect(() => parseClaudeMessage(null as unknown as Record<string, unknown>)).toThrow(MessageParseError);
  });

  it("unknown and control message types come back as unknown", () => {
    for (const type of ["control_request", "control_response", "keep_alive", "future"]) {
      const raw = { type, session_id: "s" };
      expect(parseClaudeMessage(raw)).toEqual({ type: "unknown", wireType: type, sessionId: "s", raw });
    }
  });

  it("missing or ill-typed fields get safe defaults", () => {
    expect(parseClaudeMessage({ type: "user" })).toEqual({
      type: "user",
      content: [],
      parentToolUseId: null,
      raw: { type: "user" },
    });
    expect(
      parseClaudeMessage({ type: "user", message: { content: "hi" }, parent_tool_use_id: 5 }),
    ).toMatchObject({
      content: "hi",
      parentToolUseId: null,
    });
    expect(parseClaudeMessage({ type: "assistant", message: "nope", error: 3 })).toEqual({
      type: "assistant",
      content: [],
      model: "",
      parentToolUseId: null,
      raw: { type: "assistant", message: "nope", error: 3 },
    });
    expect(parseClaudeMessage({ type: "system" })).toMatchObject({ subtype: "", data: { type: "system" } });
    expect(parseClaudeMessage({ type: "stream_event", event: [] })).toMatchObject({
      event: {},
      parentToolUseId: null,
    });
    const r = parseClaudeMessage({
      type: "result",
      duration_ms: "x",
      errors: ["a", 1],
      api_error_status: 429,
    });
    expect(r).toMatchObject({
      subtype: "",
      isError: false,
      durationMs: 0,
      durationApiMs: null,
      numTurns: null,
      totalCostUsd: null,
      tokenUsage: null,
      sessionId: "",
      errors: ["a"],
      apiErrorStatus: 429,
    });
  });

  it("a result without is_error falls back to the subtype", () => {
    expect(as(parseClaudeMessage({ type: "result", subtype: "error_max_turns" }), "result").isError).toBe(
      true,
    );
    expect(as(parseClaudeMessage({ type: "result", subtype: "success" }), "result").isError).toBe(false);
  });

  it("structured output is kept when present", () => {
    const r = as(
      parseClaudeMessage({ type: "result", subtype: "success", structured_output: { a: 1 } }),
      "result",
    );
    expect(r.structuredOutput).toEqual({ a: 1 });
  });

  it("a sub-agent message keeps its parent tool use id", () => {
    const raw = { type: "assistant", message: { content: [] }, parent_tool_use_id: "toolu_1" };
    expect(as(parseClaudeMessage(raw), "assistant").parentToolUseId).toBe("toolu_1");
  });
});

describe("parseClaudeContentBlock", () => {
  it("maps the known block types", () => {
    expect(parseClaudeContentBlock({ type: "text", text: "hi" })).toEqual({ type: "text", text: "hi" });
    expect(parseClaudeContentBlock({ type: "thinking", thinking: "hmm", signature: "sig" })).toEqual({
      type: "thinking",
      thinking: "hmm",
      signature: "sig",
    });
    expect(parseClaudeContentBlock({ type: "thinking", thinking: "hmm" })).toMatchObject({ signature: "" });
    expect(parseClaudeContentBlock({ type: "tool_use", id: "t1", name: "Bash", input: { c: 1 } })).toEqual({
      type: "tool_use",
      id: "t1",
      name: "Bash",
      input: { c: 1 },
    });
    expect(
      parseClaudeContentBlock({ type: "tool_result", tool_use_id: "t1", content: [{ type: "text" }] }),
    ).toEqual({
      type: "tool_result",
      toolUseId: "t1",
      content: [{ type: "text" }],
      isError: false,
    });
  });

  it("unknown or malformed blocks pass through as unknown", () => {
    const image = { type: "image", source: { type: "base64", data: "" } };
    expect(parseClaudeContentBlock(image)).toEqual({ type: "unknown", wireType: "image", raw: image });
    expect(parseClaudeContentBlock({ type: "redacted_thinking", data: "x" })).toMatchObject({
      type: "unknown",
      wireType: "redacted_thinking",
    });
    expect(parseClaudeContentBlock("text")).toEqual({
      type: "unknown",
      wireType: "",
      raw: { value: "text" },
    });
    expect(parseClaudeContentBlock({ type: "tool_use" })).toEqual({
      type: "tool_use",
      id: "",
      name: "",
      input: {},
    });
  });
});

describe("parseClaudeMessage: an assistant message's fields, whichever way it is built", () => {
  const line = (extra: Record<string, unknown>, message: Record<string, unknown> = {}) => ({
    type: "assistant",
    message: { id: "msg_1", model: "m", content: [{ type: "text", text: "hi" }], ...message },
    parent_tool_use_id: null,
    ...extra,
  });

  it("the CLI's shape (id, usage, session, uuid) and a minimal one keep the field order", () => {
    const usage = { input_tokens: 1 };
    expect(Object.keys(parseClaudeMessage(line({ session_id: "s", uuid: "u" }, { usage })))).toEqual([
      "type",
      "content",
      "model",
      "parentToolUseId",
      "raw",
      "messageId",
      "usage",
      "sessionId",
      "uuid",
    ]);
    expect(Object.keys(parseClaudeMessage(line({ session_id: "s" })))).toEqual([
      "type",
      "content",
      "model",
      "parentToolUseId",
      "raw",
      "messageId",
      "sessionId",
    ]);
  });

  it("other combinations carry exactly the fields the wire has", () => {
    const withError = parseClaudeMessage(line({ session_id: "s", uuid: "u", error: "rate_limit" }));
    expect(withError).toMatchObject({ messageId: "msg_1", error: "rate_limit", sessionId: "s", uuid: "u" });
    expect("usage" in withError).toBe(false);
    const noSession = parseClaudeMessage(line({ uuid: "u" }, { usage: { input_tokens: 1 } }));
    expect(Object.keys(noSession)).toEqual([
      "type",
      "content",
      "model",
      "parentToolUseId",
      "raw",
      "messageId",
      "usage",
      "uuid",
    ]);
    const nullUsage = parseClaudeMessage(line({ session_id: "s" }, { usage: null }));
    expect("usage" in nullUsage).toBe(false);
    expect(nullUsage).toMatchObject({ messageId: "msg_1", sessionId: "s" });
  });
});
