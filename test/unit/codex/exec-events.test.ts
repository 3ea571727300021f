/**
 * `codex exec --json` events → unified messages, for every capture of codex 0.169.0.
 */
import { describe, expect, it } from "vitest";
import { ExecEventMapper } from "../../../src/backends/codex/exec-events.js";
import type { Message, ResultMessage } from "../../../src/index.js";
import { captureLines } from "./fixtures.js";

/** Maps a whole capture with a clock that advances 10 ms per event. */
function mapCapture(name: string, options: { structuredOutput?: boolean; model?: string } = {}): Message[] {
  let clock = 1000;
  const mapper = new ExecEventMapper({ ...options, now: () => clock });
  mapper.markStart();
  return captureLines(name).flatMap((line) => {
    clock += 10;
    return mapper.map(line);
  });
}

/** Messages without `raw`, for readable expectations. */
function shapes(messages: Message[]): unknown[] {
  return messages.map(({ raw: _raw, ...rest }) => rest);
}

describe("exec events → messages (codex 0.169.0 captures)", () => {
  it("say-hi: init, thinking, text, and a success result with usage and our own duration", () => {
    const messages = mapCapture("exec-say-hi.jsonl", { model: "gpt-5.5" });
    const thread = "01a2006c-c217-7032-9b8a-ff632ce7b4da";
    expect(shapes(messages)).toEqual([
      {
        type: "system",
        subtype: "init",
        sessionId: thread,
        data: { type: "thread.started", thread_id: thread, session_id: thread },
      },
      {
        type: "assistant",
        content: [{ type: "thinking", thinking: "**Thinking** about the request", signature: "" }],
        model: "gpt-5.5",
        messageId: "item_0",
        parentToolUseId: null,
        sessionId: thread,
      },
      {
        type: "assistant",
        content: [{ type: "text", text: "Hello from fake model (user messages seen: 2). You said: say hi" }],
        model: "gpt-5.5",
        messageId: "item_1",
        parentToolUseId: null,
        sessionId: thread,
      },
      {
        type: "result",
        subtype: "success",
        isError: false,
        durationMs: 50,
        // Codex reports no API time, round trips or cost: null, never a made-up number.
        durationApiMs: null,
        numTurns: null,
        sessionId: thread,
        totalCostUsd: null,
        tokenUsage: {
          inputTokens: 6912,
          outputTokens: 7,
          cacheReadInputTokens: 0,
          cacheCreationInputTokens: 0,
          reasoningOutputTokens: 2,
        },
        stopReason: null,
        terminalReason: "completed",
        result: "Hello from fake model (user messages seen: 2). You said: say hi",
        usage: {
          input_tokens: 6912,
          cached_input_tokens: 0,
          cache_write_input_tokens: 0,
          output_tokens: 7,
          reasoning_output_tokens: 2,
        },
      },
    ]);
  });

  it("every message keeps its wire line in raw", () => {
    const lines = captureLines("exec-run-echo.jsonl");
    const mapper = new ExecEventMapper();
    for (const line of lines) for (const message of mapper.map(line)) expect(message.raw).toBe(line);
  });

  it("run-echo: a command is a Bash tool_use when it starts and a tool_result when it completes", () => {
    const messages = mapCapture("exec-run-echo.jsonl");
    const tools = messages.filter(
      (m) => m.type === "user" || (m.type === "assistant" && m.content[0]?.type === "tool_use"),
    );
    expect(shapes(tools)).toMatchObject([
      {
        type: "assistant",
        content: [
          {
            type: "tool_use",
            id: "item_1",
            name: "Bash",
            // The command the model asked for; the shell wrapper Codex ran it in stays in argv.
            input: { command: "echo hello", argv: ["/bin/bash", "-c", "echo hello"] },
          },
        ],
      },
      {
        type: "user",
        content: [
          { type: "tool_result", toolUseId: "item_1", content: "hello\n", isError: false, exitCode: 0 },
        ],
        parentToolUseId: null,
        toolUseResult: { type: "command_execution", exit_code: 0, status: "completed" },
      },
    ]);
    expect((messages.at(-1) as ResultMessage).result).toMatch(/^Done\. Tool output was:/);
  });

  it("patch: a file added is a Write tool_use (every file in changes) and a tool_result naming the files", () => {
    const messages = mapCapture("exec-patch.jsonl");
    expect(shapes(messages.slice(1, 3))).toMatchObject([
      {
        type: "assistant",
        content: [
          {
            type: "tool_use",
            id: "item_0",
            name: "Write",
            input: {
              file_path: "/tmp/codex-feas/run/work/newfile.txt",
              changes: [{ path: "/tmp/codex-feas/run/work/newfile.txt", kind: "add" }],
            },
          },
        ],
      },
      {
        type: "user",
        content: [
          {
            type: "tool_result",
            toolUseId: "item_0",
            content: "add /tmp/codex-feas/run/work/newfile.txt",
            isError: false,
          },
        ],
      },
    ]);
  });

  it("mcp: an MCP call is mcp__<server>__<tool> with its arguments, and its MCP content as the result", () => {
    const messages = mapCapture("exec-mcp.jsonl");
    expect(shapes(messages.slice(1, 3))).toMatchObject([
      {
        type: "assistant",
        content: [{ type: "tool_use", id: "item_0", name: "mcp__fakemcp__echo", input: { text: "hi mcp" } }],
      },
      {
        type: "user",
        content: [
          {
            type: "tool_result",
            toolUseId: "item_0",
            content: [{ type: "text", text: "echo: hi mcp" }],
            isError: false,
          },
        ],
      },
    ]);
  });

  it("plan: a todo list is a TodoWrite tool_use and result, once per distinct version of the list", () => {
    const messages = mapCapture("exec-plan.jsonl");
    const uses = messages.flatMap((m) =>
      m.type === "assistant" ? m.content.filter((b) => b.type === "tool_use" && b.name === "TodoWrite") : [],
    );
    const todos = [
      { content: "one", status: "pending" },
      { content: "two", status: "pending" },
    ];
    // Started and completed carried the same list: reported once.
    expect(uses).toEqual([{ type: "tool_use", id: "item_0", name: "TodoWrite", input: { todos } }]);
    const results = messages.flatMap((m) => (m.type === "user" && Array.isArray(m.content) ? m.content : []));
    expect(results).toContainEqual({ type: "tool_result", toolUseId: "item_0", content: "", isError: false });
    expect(messages.at(-1)).toMatchObject({
      type: "result",
      isError: false,
      result: "Done. Tool output was: Plan updated",
    });
  });

  it("resume: every run of a resumed thread reports the same thread id", () => {
    const ids = ["exec-resume-1.jsonl", "exec-resume-2.jsonl", "exec-resume-3.jsonl"].map(
      (name) => (mapCapture(name).at(-1) as ResultMessage).sessionId,
    );
    expect(new Set(ids)).toEqual(new Set(["01a2006c-d3d2-7562-819c-e668dc7cb903"]));
  });

  it.each([
    ["exec-fail500.jsonl", "We’re currently experiencing high demand, which may cause temporary errors."],
    ["exec-failstream.jsonl", "fake server: scripted response.failed"],
    ["exec-server-down.jsonl", "Connection failed: error sending request"],
  ])("%s: the error line is a codex_error system message and turn.failed an error result", (name, text) => {
    const messages = mapCapture(name);
    expect(shapes(messages.slice(1))).toMatchObject([
      { type: "system", subtype: "codex_error", data: { type: "error", message: text } },
      {
        type: "result",
        subtype: "error_during_execution",
        isError: true,
        result: text,
        errors: [text],
        terminalReason: "failed",
        numTurns: null,
      },
    ]);
  });

  it("a retry notice is a system message, not the end of the turn", () => {
    const mapper = new ExecEventMapper();
    const messages = mapper.map({ type: "error", message: "Reconnecting... 2/5" });
    expect(messages).toMatchObject([
      { type: "system", subtype: "codex_error", data: { message: "Reconnecting... 2/5" } },
    ]);
  });

  it("a declined or failed command is an error tool_result, with the tool_use emitted first if it never started", () => {
    const mapper = new ExecEventMapper();
    const declined = mapper.map({
      type: "item.completed",
      item: {
        id: "item_3",
        type: "command_execution",
        command: "rm -rf x",
        aggregated_output: "",
        exit_code: null,
        status: "declined",
      },
    });
    expect(shapes(declined)).toMatchObject([
      { type: "assistant", content: [{ type: "tool_use", id: "item_3", name: "Bash" }] },
      {
        type: "user",
        content: [
          { type: "tool_result", toolUseId: "item_3", content: "The command was declined", isError: true },
        ],
      },
    ]);
    const failed = mapper.map({
      type: "item.completed",
      item: {
        id: "item_4",
        type: "command_execution",
        command: "false",
        aggregated_output: "",
        exit_code: 1,
        status: "failed",
      },
    });
    expect(failed.at(-1)).toMatchObject({ content: [{ isError: true }] });
  });

  it("a failed MCP call carries the error text", () => {
    const mapper = new ExecEventMapper();
    const messages = mapper.map({
      type: "item.completed",
      item: {
        id: "i",
        type: "mcp_tool_call",
        server: "s",
        tool: "t",
        arguments: null,
        result: null,
        error: { message: "boom" },
        status: "failed",
      },
    });
    expect(messages.at(-1)).toMatchObject({
      content: [{ type: "tool_result", content: "boom", isError: true }],
    });
    expect(messages[0]).toMatchObject({ content: [{ type: "tool_use", name: "mcp__s__t", input: {} }] });
  });

  it("a web search is a WebSearch tool call", () => {
    const mapper = new ExecEventMapper();
    const started = mapper.map({
      type: "item.started",
      item: { id: "w", type: "web_search", query: "codex" },
    });
    expect(started).toMatchObject([
      { content: [{ type: "tool_use", name: "WebSearch", input: { query: "codex" } }] },
    ]);
    const done = mapper.map({
      type: "item.completed",
      item: { id: "w", type: "web_search", query: "codex" },
    });
    expect(done).toMatchObject([
      { type: "user", content: [{ type: "tool_result", toolUseId: "w", isError: false }] },
    ]);
  });

  it("a non-fatal error item is a codex_warning; unknown items and events are passed through", () => {
    const mapper = new ExecEventMapper();
    expect(
      mapper.map({ type: "item.completed", item: { id: "e", type: "error", message: "careful" } }),
    ).toMatchObject([{ type: "system", subtype: "codex_warning", data: { message: "careful" } }]);
    const unknownItem = { id: "x", type: "hologram", beam: 1 };
    expect(mapper.map({ type: "item.started", item: unknownItem })).toEqual([]);
    expect(mapper.map({ type: "item.completed", item: unknownItem })).toMatchObject([
      { type: "system", subtype: "codex_item", data: { item_type: "hologram", item: unknownItem } },
    ]);
    expect(mapper.map({ type: "turn.paused" })).toMatchObject([{ type: "unknown", wireType: "turn.paused" }]);
  });

  it("with an output schema, a JSON final answer is parsed into structuredOutput", () => {
    const mapper = new ExecEventMapper({ structuredOutput: true });
    mapper.map({ type: "item.completed", item: { id: "m", type: "agent_message", text: '{"answer":42}' } });
    expect(mapper.map({ type: "turn.completed", usage: {} })).toMatchObject([
      { type: "result", result: '{"answer":42}', structuredOutput: { answer: 42 } },
    ]);
  });

  it("an interruption is an error result with terminalReason 'interrupted'", () => {
    const mapper = new ExecEventMapper();
    mapper.map({ type: "thread.started", thread_id: "t1" });
    expect(mapper.interruptedResult()).toMatchObject({
      type: "result",
      subtype: "error_during_execution",
      isError: true,
      terminalReason: "interrupted",
      sessionId: "t1",
    });
  });
});

describe("ExecEventMapper.agentMessage (the read loop's fast path)", () => {
  const agentLine = (id: unknown) => ({
    type: "item.completed",
    item: { id, type: "agent_message", text: "hi" },
  });

  it("gives the message map() gives for an agent message, fields in the same order", () => {
    for (const threadStarted of [true, false]) {
      for (const id of ["item_1", "", 7]) {
        const fast = new ExecEventMapper({ model: "m" });
        const slow = new ExecEventMapper({ model: "m" });
        if (threadStarted) {
          fast.map({ type: "thread.started", thread_id: "t-1" });
          slow.map({ type: "thread.started", thread_id: "t-1" });
        }
        const one = fast.agentMessage(agentLine(id));
        const [mapped] = slow.map(agentLine(id));
        expect(one).toStrictEqual(mapped);
        expect(Object.keys(one!)).toEqual(Object.keys(mapped!));
      }
    }
  });

  it("is undefined for every other line", () => {
    const mapper = new ExecEventMapper();
    expect(mapper.agentMessage({ type: "turn.started" })).toBeUndefined();
    expect(
      mapper.agentMessage({ type: "item.completed", item: { type: "reasoning", text: "x" } }),
    ).toBeUndefined();
    expect(mapper.agentMessage({ type: "item.completed", item: "agent_message" })).toBeUndefined();
    expect(mapper.agentMessage({ type: "item.started", item: { type: "agent_message" } })).toBeUndefined();
  });
});
