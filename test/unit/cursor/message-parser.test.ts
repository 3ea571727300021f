/**
 * The Cursor stream-json parser, on lines shaped like the documented events (no real binary here).
 */
import { describe, expect, it } from "vitest";
import {
  CursorTurnParser,
  interruptedResult,
  resultFromError,
} from "../../../src/backends/cursor/message-parser.js";
import type {
  AssistantMessage,
  Message,
  ResultMessage,
  StreamEventMessage,
  SystemMessage,
  UserMessage,
} from "../../../src/messages.js";

const SID = "d3b0c442-98fc-4c1a-a6b2-3f1e2a9d7c10";
const INIT = {
  type: "system",
  subtype: "init",
  apiKeySource: "env",
  cwd: "/work/repo",
  session_id: SID,
  model: "Claude 4.5 Sonnet",
  permissionMode: "default",
};
const USER = {
  type: "user",
  message: { role: "user", content: [{ type: "text", text: "hi" }] },
  session_id: SID,
};
const whole = (text: string, ids: Record<string, unknown> = {}) => ({
  type: "assistant",
  message: { role: "assistant", content: [{ type: "text", text }] },
  session_id: SID,
  ...ids,
});
const delta = (text: string) => ({ ...whole(text), timestamp_ms: 1_770_000_000_000 });
const midTurn = (text: string) =>
  whole(text, { model_call_id: "req-0-abcd", timestamp_ms: 1_770_000_000_001 });
const RESULT = {
  type: "result",
  subtype: "success",
  duration_ms: 1234,
  duration_api_ms: 1200,
  is_error: false,
  result: "done",
  session_id: SID,
  request_id: "req",
};

function parseAll(lines: Record<string, unknown>[], partialOutput = false): Message[] {
  const parser = new CursorTurnParser({ partialOutput });
  return [...lines.flatMap((line) => parser.parse(line)), ...parser.finish()];
}

const assistantTexts = (messages: Message[]) =>
  messages
    .filter((m): m is AssistantMessage => m.type === "assistant")
    .flatMap((m) => m.content)
    .filter((b) => b.type === "text")
    .map((b) => (b.type === "text" ? b.text : ""));

function only<T extends Message["type"]>(messages: Message[], type: T): Extract<Message, { type: T }>[] {
  return messages.filter((m) => m.type === type) as Extract<Message, { type: T }>[];
}

describe("CursorTurnParser: one message per event", () => {
  it("maps system/init, user, assistant and result, keeping raw and the chat id", () => {
    const messages = parseAll([INIT, USER, whole("Hello."), RESULT]);
    expect(messages.map((m) => m.type)).toEqual(["system", "user", "assistant", "result"]);

    const init = messages[0] as SystemMessage;
    expect(init).toMatchObject({ subtype: "init", sessionId: SID, raw: INIT });
    expect(init.data).toMatchObject({ model: "Claude 4.5 Sonnet", cwd: "/work/repo" });

    const user = messages[1] as UserMessage;
    expect(user).toMatchObject({ content: [{ type: "text", text: "hi" }], parentToolUseId: null, raw: USER });

    const assistant = messages[2] as AssistantMessage;
    // The model comes from system/init: Cursor's assistant events do not name it.
    expect(assistant).toMatchObject({
      content: [{ type: "text", text: "Hello." }],
      model: "Claude 4.5 Sonnet",
      sessionId: SID,
    });

    const result = messages[3] as ResultMessage;
    expect(result).toMatchObject({
      subtype: "success",
      isError: false,
      durationMs: 1234,
      durationApiMs: 1200,
      numTurns: null,
      sessionId: SID,
      result: "done",
      raw: RESULT,
    });
  });

  it("a result with subtype error is isError, and is_error wins over the subtype", () => {
    const [failed] = parseAll([{ ...RESULT, subtype: "error", is_error: undefined, result: "boom" }]);
    expect(failed).toMatchObject({ type: "result", isError: true, result: "boom" });
    const [flagged] = parseAll([{ ...RESULT, is_error: true }]);
    expect(flagged).toMatchObject({ type: "result", subtype: "success", isError: true });
  });

  it("passes usage through and defaults what Cursor does not report", () => {
    const [result] = parseAll([
      { type: "result", subtype: "success", usage: { inputTokens: 3, outputTokens: 5 } },
    ]);
    expect(result).toMatchObject({
      usage: { inputTokens: 3, outputTokens: 5 },
      durationMs: 0,
      sessionId: "",
    });
    expect(result).toMatchObject({
      totalCostUsd: null,
      numTurns: null,
      tokenUsage: { inputTokens: 3, outputTokens: 5, cacheReadInputTokens: null },
    });
  });

  it("unknown events and subtypes pass through as unknown, never as an exception", () => {
    const messages = parseAll([
      { type: "interaction_query", session_id: SID, query: {} },
      { type: "thinking", subtype: "redacted" },
      { type: "tool_call", subtype: "progress", call_id: "c", tool_call: {} },
      { no_type: true },
    ]);
    expect(messages.map((m) => (m.type === "unknown" ? m.wireType : m.type))).toEqual([
      "interaction_query",
      "thinking",
      "tool_call",
      "",
    ]);
  });
});

describe("CursorTurnParser: assistant text is delivered exactly once", () => {
  it("without partial output every assistant line is a whole message, mid-turn or final", () => {
    const messages = parseAll([INIT, midTurn("Let me look. "), whole("All done."), RESULT]);
    expect(assistantTexts(messages)).toEqual(["Let me look. ", "All done."]);
    expect(only(messages, "stream_event")).toEqual([]);
  });

  it("with partial output, deltas become stream events and the whole message follows once", () => {
    const messages = parseAll(
      [
        INIT,
        delta("Let "),
        delta("me look. "),
        midTurn("Let me look. "),
        delta("All "),
        delta("done."),
        whole("All done."),
        RESULT,
      ],
      true,
    );
    expect(assistantTexts(messages)).toEqual(["Let me look. ", "All done."]);
    const events = only(messages, "stream_event") as StreamEventMessage[];
    expect(events.map((e) => e.event)).toEqual(
      ["Let ", "me look. ", "All ", "done."].map((text) => ({
        type: "content_block_delta",
        delta: { type: "text_delta", text },
      })),
    );
    // The final whole message keeps its raw line.
    expect(messages.filter((m) => m.type === "assistant").at(-1)?.raw).toEqual(whole("All done."));
  });

  it("deltas with no whole message are assembled into one when something else starts", () => {
    const toolStart = {
      type: "tool_call",
      subtype: "started",
      call_id: "c1",
      tool_call: { lsToolCall: { args: {} } },
    };
    const messages = parseAll([delta("Looking "), delta("around."), toolStart, delta("Done."), RESULT], true);
    expect(messages.map((m) => m.type)).toEqual([
      "stream_event",
      "stream_event",
      "assistant",
      "assistant",
      "stream_event",
      "assistant",
      "result",
    ]);
    expect(assistantTexts(messages)).toEqual(["Looking around.", "Done."]);
    expect(messages[2]?.raw).toMatchObject({ sdk_assembled_from_deltas: true });
  });

  it("a whole message arriving after its deltas were already assembled is dropped", () => {
    const toolStart = {
      type: "tool_call",
      subtype: "started",
      call_id: "c1",
      tool_call: { lsToolCall: { args: {} } },
    };
    const messages = parseAll([delta("Looking."), toolStart, midTurn("Looking."), RESULT], true);
    expect(assistantTexts(messages)).toEqual(["Looking."]);
  });

  it("a consolidated final message repeating the whole turn only adds its new part", () => {
    const messages = parseAll(
      [midTurn("First. "), delta("Second."), whole("First. Second."), whole("First. Second."), RESULT],
      true,
    );
    expect(assistantTexts(messages)).toEqual(["First. ", "Second."]);
  });

  it("without partial output a timestamped line without model_call_id is still a whole message", () => {
    const messages = parseAll([delta("Whole anyway.")]);
    expect(assistantTexts(messages)).toEqual(["Whole anyway."]);
  });

  it("a string content becomes one text block", () => {
    const [message] = parseAll([{ type: "assistant", message: { content: "plain" } }]);
    expect(message).toMatchObject({ type: "assistant", content: [{ type: "text", text: "plain" }] });
  });
});

describe("CursorTurnParser: thinking", () => {
  const thinking = (subtype: string, text?: string) => ({
    type: "thinking",
    subtype,
    ...(text !== undefined ? { text } : {}),
    session_id: SID,
    timestamp_ms: 1,
  });

  it("deltas are assembled into one thinking block at `completed`", () => {
    const done = thinking("completed");
    const messages = parseAll([
      thinking("delta", "Weighing "),
      thinking("delta", "options."),
      done,
      whole("Answer."),
    ]);
    expect(messages.map((m) => m.type)).toEqual(["assistant", "assistant"]);
    expect(messages[0]).toMatchObject({
      content: [{ type: "thinking", thinking: "Weighing options.", signature: "" }],
      raw: done,
    });
  });

  it("with partial output each delta is also a thinking_delta stream event", () => {
    const messages = parseAll([thinking("delta", "Hmm"), thinking("delta", ""), thinking("completed")], true);
    expect(only(messages, "stream_event").map((e) => e.event)).toEqual([
      { type: "content_block_delta", delta: { type: "thinking_delta", thinking: "Hmm" } },
    ]);
    expect(only(messages, "assistant")).toHaveLength(1);
  });

  it("thinking interrupted by another event is delivered before it; empty thinking is dropped", () => {
    const messages = parseAll([
      thinking("delta", "Plan"),
      whole("Go."),
      thinking("delta", ""),
      thinking("completed"),
    ]);
    expect(messages.map((m) => (m.type === "assistant" ? m.content[0]?.type : m.type))).toEqual([
      "thinking",
      "text",
    ]);
  });
});

describe("CursorTurnParser: tool calls in every encoding", () => {
  const call = (subtype: string, callId: string, toolCall: unknown) => ({
    type: "tool_call",
    subtype,
    call_id: callId,
    tool_call: toolCall,
    session_id: SID,
  });

  it("one-of encoding: shellToolCall → Bash tool_use (unified), then a tool_result keyed by call_id", () => {
    const args = { command: "echo hi", workingDirectory: "", timeout: 30000 };
    const result = { case: "success", value: { exitCode: 0, stdout: "hi\n", stderr: "" } };
    const messages = parseAll([
      call("started", "call_1\nfc_1", { tool: { case: "shellToolCall", value: { args } } }),
      call("completed", "call_1\nfc_1", { tool: { case: "shellToolCall", value: { args, result } } }),
    ]);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatchObject({
      type: "assistant",
      content: [
        { type: "tool_use", id: "call_1\nfc_1", name: "Bash", input: { ...args, command: "echo hi" } },
      ],
    });
    expect(messages[1]).toMatchObject({
      type: "user",
      content: [{ type: "tool_result", toolUseId: "call_1\nfc_1", content: "hi\n", isError: false }],
      toolUseResult: result,
    });
  });

  it("one-of encoding: any outcome but success is an error", () => {
    for (const outcome of ["failure", "error", "timeout", "rejected"]) {
      const messages = parseAll([
        call("completed", "c", {
          tool: {
            case: "shellToolCall",
            value: { args: {}, result: { case: outcome, value: { stderr: "nope" } } },
          },
        }),
      ]);
      expect(only(messages, "user")[0]?.content).toEqual([
        { type: "tool_result", toolUseId: "c", content: "nope", isError: true },
      ]);
    }
  });

  it("keyed encoding: readToolCall success carries the file content", () => {
    const args = { path: "README.md" };
    const messages = parseAll([
      call("started", "r1", { readToolCall: { args } }),
      call("completed", "r1", {
        readToolCall: { args, result: { success: { content: "# Title\n", totalLines: 1 } } },
      }),
    ]);
    expect(messages[0]).toMatchObject({
      content: [{ type: "tool_use", id: "r1", name: "Read", input: args }],
    });
    expect(messages[1]).toMatchObject({
      content: [{ type: "tool_result", toolUseId: "r1", content: "# Title\n", isError: false }],
    });
  });

  it("keyed encoding: a result beside plain flags (isBackground) and a failure outcome", () => {
    const shell = parseAll([
      call("completed", "s1", {
        shellToolCall: {
          args: { command: "true" },
          result: { success: { exitCode: 0, stdout: "", stderr: "" }, isBackground: false },
        },
      }),
    ]);
    expect(only(shell, "user")[0]?.content).toEqual([
      { type: "tool_result", toolUseId: "s1", content: "", isError: false, exitCode: 0 },
    ]);

    const write = parseAll([
      call("completed", "w1", {
        writeToolCall: {
          args: { path: "/x" },
          result: { error: { errorMessage: "EACCES: permission denied" } },
        },
      }),
    ]);
    expect(only(write, "user")[0]?.content).toEqual([
      { type: "tool_result", toolUseId: "w1", content: "EACCES: permission denied", isError: true },
    ]);
  });

  it("function encoding: the name is kept and JSON arguments are parsed", () => {
    const fn = { name: "list_dir", arguments: JSON.stringify({ relative_workspace_path: "." }) };
    const messages = parseAll([
      call("started", "f1", { function: fn }),
      call("completed", "f1", { function: fn, result: { success: { content: "a.txt" } } }),
    ]);
    expect(messages[0]).toMatchObject({
      content: [{ type: "tool_use", name: "list_dir", input: { relative_workspace_path: "." } }],
    });
    expect(messages[1]).toMatchObject({
      content: [{ type: "tool_result", content: "a.txt", isError: false }],
    });
  });

  it("a completion whose start was never seen still gets its tool_use first", () => {
    const messages = parseAll([
      call("completed", "g1", { grepToolCall: { args: { pattern: "x" }, result: { success: {} } } }),
    ]);
    expect(messages.map((m) => m.type)).toEqual(["assistant", "user"]);
    expect(messages[0]).toMatchObject({ content: [{ type: "tool_use", id: "g1", name: "Grep" }] });
  });

  it("text streamed before a tool call is delivered before its tool_use", () => {
    const messages = parseAll(
      [delta("Checking."), call("started", "l1", { lsToolCall: { args: { path: "." } } })],
      true,
    );
    expect(messages.map((m) => (m.type === "assistant" ? m.content[0]?.type : m.type))).toEqual([
      "stream_event",
      "text",
      "tool_use",
    ]);
    expect(messages[2]).toMatchObject({ content: [{ name: "LS" }] });
  });
});

describe("CursorTurnParser: error events", () => {
  const error = { type: "error", message: "Rate limit exceeded", session_id: SID };

  it("an error before any result is held for the session, not delivered", () => {
    const parser = new CursorTurnParser({ partialOutput: false });
    expect(parser.parse(INIT)).toHaveLength(1);
    expect(parser.parse(error)).toEqual([]);
    expect(parser.pendingError).toEqual(error);
    expect(parser.sawResult).toBe(false);
  });

  it("an error followed by a result is delivered as a system message before it", () => {
    const messages = parseAll([error, RESULT]);
    expect(messages.map((m) => m.type)).toEqual(["system", "result"]);
    expect(messages[0]).toMatchObject({ subtype: "error", data: error, raw: error });
  });

  it("an error after the result is a system message", () => {
    const messages = parseAll([RESULT, error]);
    expect(messages.map((m) => m.type)).toEqual(["result", "system"]);
  });

  it("resultFromError makes an error result that keeps the error line as raw", () => {
    expect(resultFromError(error, { sessionId: undefined, durationMs: 12 })).toEqual({
      type: "result",
      subtype: "error_during_execution",
      isError: true,
      durationMs: 12,
      durationApiMs: null,
      numTurns: null,
      totalCostUsd: null,
      tokenUsage: null,
      sessionId: SID,
      result: "Rate limit exceeded",
      errors: ["Rate limit exceeded"],
      raw: error,
    });
    expect(
      resultFromError({ type: "error", error: { message: "nested" } }, { sessionId: "s", durationMs: 0 }),
    ).toMatchObject({ result: "nested", sessionId: "s" });
  });

  it("interruptedResult is an error result with terminalReason interrupted", () => {
    expect(interruptedResult({ sessionId: SID, durationMs: 5 })).toMatchObject({
      type: "result",
      subtype: "error_during_execution",
      isError: true,
      terminalReason: "interrupted",
      sessionId: SID,
      durationMs: 5,
      raw: { type: "result", terminal_reason: "interrupted", sdk_synthesized: true },
    });
  });
});

describe("CursorTurnParser: the chat id", () => {
  it("is taken from the latest event that carries one", () => {
    const parser = new CursorTurnParser({ partialOutput: false });
    parser.parse(INIT);
    expect(parser.sessionId).toBe(SID);
    parser.parse({ ...RESULT, session_id: "other" });
    expect(parser.sessionId).toBe("other");
  });
});
