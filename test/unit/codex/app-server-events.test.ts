/**
 * `codex app-server` notifications → unified messages, replaying the codex 0.169.0 session capture.
 */
import { describe, expect, it } from "vitest";
import { AppServerEventMapper } from "../../../src/backends/codex/app-server-events.js";
import type { Message, ResultMessage } from "../../../src/index.js";
import { type AppServerLine, appServerCapture } from "./fixtures.js";

const THREAD = "01a2006c-da06-72d2-9426-23fafafcecc4";

/** Replays one process of the capture; returns the messages of each turn (index 0: before any turn). */
function replay(lines: AppServerLine[], includePartialMessages = false): Message[][] {
  let clock = 0;
  const mapper = new AppServerEventMapper({
    threadId: () => THREAD,
    model: () => "gpt-5.5",
    includePartialMessages,
    structuredOutput: false,
    now: () => clock,
  });
  const turns: Message[][] = [[]];
  for (const line of lines) {
    clock = line.ms;
    const msg = line.msg;
    if (line.dir === "client->server" && msg.method === "turn/start") {
      mapper.beginTurn();
      turns.push([]);
    }
    if (line.dir === "server->client" && typeof msg.method === "string" && msg.id === undefined) {
      turns.at(-1)!.push(...mapper.map(msg.method, msg.params as Record<string, unknown>, msg));
    }
  }
  return turns;
}

function result(messages: Message[]): ResultMessage {
  const last = messages.at(-1);
  if (last?.type !== "result") throw new Error(`turn did not end with a result: ${JSON.stringify(last)}`);
  return last;
}

describe("app-server notifications → messages (codex 0.169.0 capture)", () => {
  const { first, second } = appServerCapture();
  const turns = replay(first);

  it("reports the sandbox warning before any turn as a codex_warning", () => {
    expect(turns[0]).toMatchObject([
      { type: "system", subtype: "codex_warning", data: { message: expect.stringContaining("bubblewrap") } },
    ]);
  });

  it("turn 1: thinking, text, and a success result with the turn's token usage", () => {
    const messages = turns[1]!;
    expect(messages.map((m) => m.type)).toEqual(["assistant", "assistant", "result"]);
    expect(messages[0]).toMatchObject({
      content: [{ type: "thinking", thinking: "**Thinking** about the request", signature: "" }],
      model: "gpt-5.5",
      sessionId: THREAD,
    });
    expect(result(messages)).toMatchObject({
      subtype: "success",
      isError: false,
      numTurns: null,
      sessionId: THREAD,
      tokenUsage: { inputTokens: 7089, outputTokens: 7, reasoningOutputTokens: 2 },
      terminalReason: "completed",
      result: "Hello from fake model (user messages seen: 2). You said: say hi",
      usage: { input_tokens: 7089, output_tokens: 7, reasoning_output_tokens: 2, total_tokens: 7096 },
    });
    expect(result(messages).durationMs).toBe(479 - 352);
  });

  it("turn 2: an approved command is a Bash tool_use with cwd, then its output", () => {
    const messages = turns[2]!;
    const command = "touch approved-file.txt && echo created";
    const toolMessages = messages.filter(
      (m) => m.type === "user" || (m.type === "assistant" && m.content[0]?.type === "tool_use"),
    );
    expect(toolMessages).toMatchObject([
      {
        type: "assistant",
        content: [
          {
            type: "tool_use",
            id: "call_15",
            name: "Bash",
            input: { command, cwd: "/tmp/codex-feas/run/work", argv: ["/bin/bash", "-c", command] },
          },
        ],
      },
      {
        type: "user",
        content: [{ type: "tool_result", toolUseId: "call_15", content: "created\n", isError: false }],
      },
    ]);
    // Usage is the growth of the thread total over the turn (two model calls here).
    expect(result(messages).usage).toMatchObject({ total_tokens: 21694 - 7096 });
  });

  it("turn 3: a declined command is an error tool_result, and the turn still succeeds", () => {
    const messages = turns[3]!;
    expect(messages.find((m) => m.type === "user")).toMatchObject({
      content: [
        { type: "tool_result", toolUseId: "call_17", isError: true, content: "The command was declined" },
      ],
      toolUseResult: { status: "declined" },
    });
    expect(result(messages).isError).toBe(false);
  });

  it("turn 5: a file added is a Write tool_use with the new content, then a result naming the file", () => {
    const messages = turns[5]!;
    const path = "/tmp/codex-feas/run/work/patched-by-appserver.txt";
    expect(
      messages.filter(
        (m) => m.type === "user" || (m.type === "assistant" && m.content[0]?.type === "tool_use"),
      ),
    ).toMatchObject([
      {
        content: [
          {
            type: "tool_use",
            id: "call_21",
            name: "Write",
            input: {
              file_path: path,
              content: "hello from fake model\n",
              changes: [{ path, kind: "add", diff: "hello from fake model\n" }],
            },
          },
        ],
      },
      { content: [{ type: "tool_result", toolUseId: "call_21", content: `add ${path}`, isError: false }] },
    ]);
  });

  it("turn 6: an interrupted turn ends with an error result whose terminalReason is 'interrupted'", () => {
    expect(result(turns[6]!)).toMatchObject({
      type: "result",
      subtype: "error_during_execution",
      isError: true,
      terminalReason: "interrupted",
      result: "The turn was interrupted",
    });
  });

  it("bookkeeping notifications (status, rate limits, token usage, diffs) produce no messages", () => {
    for (const messages of turns.slice(1)) {
      for (const m of messages) expect(["assistant", "user", "result"]).toContain(m.type);
    }
  });

  it("with includePartialMessages, text and reasoning deltas are Anthropic-shaped stream events", () => {
    const partial = replay(first, true)[1]!;
    const events = partial.filter((m) => m.type === "stream_event");
    expect(events.map((m) => (m.type === "stream_event" ? m.event : undefined))).toEqual([
      {
        type: "content_block_delta",
        index: 0,
        item_id: "rs_14",
        delta: { type: "thinking_delta", thinking: "**Thinking** about the request" },
      },
      {
        type: "content_block_delta",
        index: 0,
        item_id: "msg_14",
        delta: { type: "text_delta", text: "Hello from fake model (user mess" },
      },
      {
        type: "content_block_delta",
        index: 0,
        item_id: "msg_14",
        delta: { type: "text_delta", text: "ages seen: 2). You said: say hi" },
      },
    ]);
  });

  it("after thread/resume, the replayed usage of old turns is not counted in the next turn", () => {
    const resumed = replay(second);
    const last = result(resumed.at(-1)!);
    expect(last.result).toBe(
      "Hello from fake model (user messages seen: 10). You said: follow up after resume",
    );
    expect(last.usage).toMatchObject({ total_tokens: 82984 - 73117 });
    expect(resumed[0]).toMatchObject([
      { type: "system", subtype: "codex_warning" },
      { type: "system", subtype: "codex_warning", data: { method: "deprecationNotice" } },
    ]);
  });

  it("notifications of other threads are ignored; unknown notifications are passed through", () => {
    const mapper = new AppServerEventMapper({
      threadId: () => THREAD,
      model: () => "",
      includePartialMessages: false,
      structuredOutput: false,
    });
    const item = { type: "agentMessage", id: "m", text: "sub-agent" };
    expect(mapper.map("item/completed", { threadId: "other", item }, {})).toEqual([]);
    expect(
      mapper.map("thread/realtime/started", { threadId: THREAD }, { method: "thread/realtime/started" }),
    ).toMatchObject([
      { type: "system", subtype: "codex_notification", data: { method: "thread/realtime/started" } },
    ]);
  });

  it("a failed turn carries the server's error text; an error notification says whether it retries", () => {
    const mapper = new AppServerEventMapper({
      threadId: () => THREAD,
      model: () => "",
      includePartialMessages: false,
      structuredOutput: false,
    });
    mapper.beginTurn();
    expect(
      mapper.map(
        "error",
        { threadId: THREAD, willRetry: true, error: { message: "Reconnecting... 1/5" } },
        {},
      ),
    ).toMatchObject([
      { type: "system", subtype: "codex_error", data: { willRetry: true, message: "Reconnecting... 1/5" } },
    ]);
    expect(
      mapper.map(
        "turn/completed",
        { threadId: THREAD, turn: { id: "t", status: "failed", error: { message: "HTTP 500" } } },
        {},
      ),
    ).toMatchObject([
      {
        type: "result",
        isError: true,
        subtype: "error_during_execution",
        result: "HTTP 500",
        terminalReason: "failed",
      },
    ]);
  });

  it("a plan update is a TodoWrite tool_use and result; a compaction a compact_boundary", () => {
    const mapper = new AppServerEventMapper({
      threadId: () => THREAD,
      model: () => "",
      includePartialMessages: false,
      structuredOutput: false,
    });
    const plan = [
      { step: "one", status: "completed" },
      { step: "two", status: "inProgress" },
    ];
    const update = { threadId: THREAD, turnId: "t1", explanation: null, plan };
    const todos = [
      { content: "one", status: "completed" },
      { content: "two", status: "in_progress" },
    ];
    expect(mapper.map("turn/plan/updated", update, {})).toMatchObject([
      {
        type: "assistant",
        content: [{ type: "tool_use", id: "plan-t1", name: "TodoWrite", input: { todos } }],
      },
      { type: "user", content: [{ type: "tool_result", toolUseId: "plan-t1" }] },
    ]);
    // The same plan again is no news; a changed one is the list's second version.
    expect(mapper.map("turn/plan/updated", update, {})).toEqual([]);
    const changed = { ...update, plan: [{ step: "one", status: "completed" }] };
    expect(mapper.map("turn/plan/updated", changed, {})[0]).toMatchObject({
      content: [{ type: "tool_use", id: "plan-t1#2", name: "TodoWrite" }],
    });
    expect(
      mapper.map("item/completed", { threadId: THREAD, item: { type: "contextCompaction", id: "c" } }, {}),
    ).toMatchObject([{ type: "system", subtype: "compact_boundary" }]);
  });
});
