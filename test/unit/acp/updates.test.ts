/**
 * session/update → messages, on shapes taken from the captured transcripts
 * (../shared/protocol/acp/<agent>/acp/transcript.jsonl).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { AcpUpdateMapper, acpToolName, toolContentText } from "../../../src/backends/acp/updates.js";
import type { Message } from "../../../src/index.js";

function mapper(includePartialMessages = false) {
  let t = 1000;
  return new AcpUpdateMapper({
    sessionId: () => "s-1",
    model: "agent-x",
    includePartialMessages,
    now: () => (t += 5),
  });
}
const update = (u: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId: "s-1", update: u },
});
const chunk = (kind: string, text: string) =>
  update({ sessionUpdate: kind, content: { type: "text", text } });

describe("AcpUpdateMapper", () => {
  it("joins consecutive text chunks into one assistant message, flushed by the next kind of update", () => {
    const m = mapper();
    m.beginTurn();
    expect(m.map(chunk("agent_message_chunk", ""))).toEqual([]);
    expect(m.map(chunk("agent_message_chunk", "Hello, "))).toEqual([]);
    expect(m.map(chunk("agent_message_chunk", "world"))).toEqual([]);
    const out = m.map(chunk("agent_thought_chunk", "hmm"));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({
      type: "assistant",
      model: "agent-x",
      sessionId: "s-1",
      content: [{ type: "text", text: "Hello, world" }],
    });
    const rest = m.flushAll();
    expect(rest[0]).toMatchObject({
      type: "assistant",
      content: [{ type: "thinking", thinking: "hmm", signature: "" }],
    });
    const result = m.result({ stopReason: "end_turn" });
    expect(result).toMatchObject({
      type: "result",
      subtype: "success",
      isError: false,
      result: "Hello, world",
      sessionId: "s-1",
      stopReason: "end_turn",
    });
  });

  it("a new messageId starts a new message; flushText() delivers what is buffered now", () => {
    const m = mapper();
    m.beginTurn();
    const withId = (text: string, messageId: string) =>
      update({ sessionUpdate: "agent_message_chunk", messageId, content: { type: "text", text } });
    expect(m.map(withId("first", "m1"))).toEqual([]);
    expect(m.map(withId("second", "m2"))).toEqual([
      expect.objectContaining({ content: [{ type: "text", text: "first" }], messageId: "m1#1" }),
    ]);
    expect(m.hasPendingText()).toBe(true);
    expect(m.flushText()).toEqual([expect.objectContaining({ content: [{ type: "text", text: "second" }] })]);
    expect(m.hasPendingText()).toBe(false);
    // The result is the last message's text.
    expect(m.result({ stopReason: "end_turn" }).result).toBe("second");
  });

  it("with includePartialMessages every chunk is also a content_block_delta stream event", () => {
    const m = mapper(true);
    m.beginTurn();
    expect(m.map(chunk("agent_message_chunk", "a"))).toEqual([
      expect.objectContaining({
        type: "stream_event",
        event: {
          type: "content_block_delta",
          index: 0,
          item_id: "acp-message#1",
          delta: { type: "text_delta", text: "a" },
        },
      }),
    ]);
    expect(m.map(chunk("agent_thought_chunk", "t"))[1]).toMatchObject({
      type: "stream_event",
      event: { delta: { type: "thinking_delta", thinking: "t" } },
    });
  });

  it("a tool call announced before its input waits for it; completion is a tool_result (claude-code-acp shapes)", () => {
    const m = mapper();
    m.beginTurn();
    const id = "toolu_1";
    const pending = {
      toolCallId: id,
      sessionUpdate: "tool_call",
      rawInput: {},
      status: "pending",
      title: "Terminal",
      kind: "execute",
      content: [],
    };
    expect(m.map(update(pending))).toEqual([]);
    const full = m.map(
      update({ ...pending, rawInput: { command: "echo hi", timeout: 10000 }, title: "`echo hi`" }),
    );
    expect(full).toEqual([
      expect.objectContaining({
        type: "assistant",
        content: [{ type: "tool_use", id, name: "Bash", input: { command: "echo hi", timeout: 10000 } }],
      }),
    ]);
    expect(
      m.map(
        update({
          sessionUpdate: "tool_call_update",
          toolCallId: id,
          status: "in_progress",
          content: [{ type: "terminal", terminalId: "term-1" }],
        }),
      ),
    ).toEqual([]);
    const done = m.map(
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        status: "completed",
        rawOutput: [{ type: "text", text: "ran-allow\n" }],
      }),
    );
    expect(done).toEqual([
      expect.objectContaining({
        type: "user",
        content: [{ type: "tool_result", toolUseId: id, content: "ran-allow\n", isError: false }],
      }),
    ]);
  });

  it("a tool call without rawInput (Gemini CLI) is described by its title, content and locations", () => {
    const m = mapper();
    m.beginTurn();
    const out: Message[] = [];
    const call = m.toolForPermission(
      {
        toolCallId: "g1",
        status: "pending",
        title: "echo hi > a.txt",
        kind: "execute",
        content: [{ type: "content", content: { type: "text", text: "[cwd /w] run it" } }],
        locations: [],
      },
      out,
    );
    // The title is the command line; it is the unified `command` (the vocabulary every backend shares).
    expect(call).toEqual({
      name: "Bash",
      input: { title: "echo hi > a.txt", description: "[cwd /w] run it", command: "echo hi > a.txt" },
    });
    expect(out[0]).toMatchObject({ content: [{ type: "tool_use", id: "g1", name: "Bash" }] });
  });

  it("a failed tool call is an error tool_result with the agent's text", () => {
    const m = mapper();
    m.beginTurn();
    m.map(
      update({
        sessionUpdate: "tool_call",
        toolCallId: "t",
        kind: "edit",
        status: "pending",
        rawInput: { path: "/w/a" },
      }),
    );
    const out = m.map(
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: "t",
        status: "failed",
        content: [
          { type: "content", content: { type: "text", text: "User refused permission to run tool" } },
        ],
      }),
    );
    expect(out.at(-1)).toMatchObject({
      content: [{ type: "tool_result", isError: true, content: "User refused permission to run tool" }],
    });
  });

  it("a permission request announces its tool call first (once)", () => {
    const m = mapper();
    m.beginTurn();
    const out: Message[] = [];
    const call = m.toolForPermission(
      { toolCallId: "c", kind: "execute", rawInput: { command: "ls" }, title: "ls" },
      out,
    );
    expect(call).toEqual({ name: "Bash", input: { command: "ls" } });
    expect(out).toHaveLength(1);
    expect(
      m.map(update({ sessionUpdate: "tool_call_update", toolCallId: "c", status: "in_progress" })),
    ).toEqual([]);
  });

  it("plan → todo_list; other updates → system acp_<kind>; user chunks (a load's replay) → one replayed user message", () => {
    const m = mapper();
    expect(
      m.map(
        update({
          sessionUpdate: "plan",
          entries: [{ content: "step", status: "pending", priority: "high" }],
        }),
      )[0],
    ).toMatchObject({
      type: "system",
      subtype: "todo_list",
      data: { items: [{ content: "step" }], session_id: "s-1" },
    });
    expect(m.map(update({ sessionUpdate: "current_mode_update", currentModeId: "plan" }))[0]).toMatchObject({
      subtype: "acp_current_mode_update",
      data: { currentModeId: "plan" },
    });
    expect(m.map(chunk("user_message_chunk", "remember "))).toEqual([]);
    expect(m.map(chunk("user_message_chunk", "this"))).toEqual([]);
    expect(m.map(chunk("agent_message_chunk", "ok"))[0]).toMatchObject({
      type: "user",
      content: "remember this",
      isReplay: true,
    });
  });

  it("stop reasons: cancelled is an interrupted error; max_turn_requests and refusal are errors", () => {
    const m = mapper();
    m.beginTurn();
    expect(m.result({ stopReason: "cancelled" })).toMatchObject({
      isError: true,
      terminalReason: "interrupted",
      stopReason: "cancelled",
    });
    expect(m.result({ stopReason: "max_turn_requests" })).toMatchObject({
      isError: true,
      subtype: "error_max_turns",
    });
    expect(m.result({ stopReason: "refusal" })).toMatchObject({ isError: true });
    expect(m.result({ stopReason: "end_turn", usage: { totalTokens: 12 } })).toMatchObject({
      usage: { totalTokens: 12 },
    });
    expect(m.errorResult("boom", { code: -32603 })).toMatchObject({
      isError: true,
      errors: ["boom"],
      subtype: "error_during_execution",
    });
  });
});

describe("acpToolName / toolContentText", () => {
  it("maps ACP kinds to the SDK's tool vocabulary", () => {
    expect(
      ["execute", "edit", "read", "search", "fetch", "delete", "switch_mode", "other", undefined].map(
        acpToolName,
      ),
    ).toEqual(["Bash", "Edit", "Read", "Grep", "WebFetch", "Delete", "SwitchMode", "Tool", "Tool"]);
  });

  it("reads content blocks, diffs, then rawOutput strings, text arrays and objects", () => {
    expect(toolContentText({ content: [{ type: "diff", path: "/w/a" }] })).toBe("diff /w/a");
    expect(toolContentText({ rawOutput: "x" })).toBe("x");
    expect(toolContentText({ rawOutput: { stdout: "out" } })).toBe("out");
    expect(toolContentText({})).toBe("");
  });

  it("inputs get the unified vocabulary's fields beside the agent's own (command, file_path, old/new text)", () => {
    const m = mapper();
    m.beginTurn();
    const out: Message[] = [];
    expect(
      m.toolForPermission(
        {
          toolCallId: "c1",
          kind: "execute",
          rawInput: { command: ["/bin/bash", "-lc", "npm test"], workdir: "/w" },
        },
        out,
      ).input,
    ).toEqual({ command: "npm test", argv: ["/bin/bash", "-lc", "npm test"], workdir: "/w", cwd: "/w" });
    expect(
      m.toolForPermission(
        {
          toolCallId: "e1",
          kind: "edit",
          rawInput: { path: "/w/a.ts" },
          content: [{ type: "diff", path: "/w/a.ts", oldText: "a", newText: "b" }],
        },
        out,
      ).input,
    ).toEqual({ path: "/w/a.ts", file_path: "/w/a.ts", old_string: "a", new_string: "b" });
    expect(
      m.toolForPermission({ toolCallId: "r1", kind: "read", rawInput: { abs_path: "/w/b.ts" } }, out).input,
    ).toEqual({ abs_path: "/w/b.ts", file_path: "/w/b.ts" });
  });

  it("Cline 3.0.65's shapes: run_commands' command list, editor's old_text/new_text, per-command results", () => {
    const m = mapper();
    m.beginTurn();
    const out: Message[] = [];
    const shell = (id: string, commands: unknown) =>
      m.toolForPermission(
        { toolCallId: id, kind: "execute", title: "run_commands: x", rawInput: { commands } },
        out,
      ).input;
    expect(shell("c1", ["echo hi > a.txt"])).toEqual({
      commands: ["echo hi > a.txt"],
      command: "echo hi > a.txt",
    });
    // Independent command lines, each run on its own: one per line of the unified command.
    expect(shell("c2", ["ls", "git status"]).command).toBe("ls\ngit status");
    // Not a list of strings: the title is all there is.
    expect(shell("c3", [1]).command).toBe("run_commands: x");
    expect(
      m.toolForPermission(
        { toolCallId: "e1", kind: "edit", rawInput: { path: "/w/a.ts", old_text: "a", new_text: "b" } },
        out,
      ).input,
    ).toEqual({
      path: "/w/a.ts",
      old_text: "a",
      new_text: "b",
      file_path: "/w/a.ts",
      old_string: "a",
      new_string: "b",
    });
    expect(
      toolContentText({
        rawOutput: [
          { query: "echo hi", result: "hi\n", success: true },
          { query: "ls", result: "a.txt\n", success: true },
        ],
      }),
    ).toBe("hi\n\na.txt\n");
    expect(
      toolContentText({
        rawOutput: { query: "edit:/w/a", result: "File created successfully", success: true },
      }),
    ).toBe("File created successfully");
    // A failed call's text is its error (its result is empty).
    expect(
      toolContentText({
        rawOutput: [{ query: "http://h/x", result: "", error: "Unable to connect", success: false }],
      }),
    ).toBe("Unable to connect");
    // read_files, search_codebase, fetch_web_content: the one entry of a list is the canonical field;
    // of several there is none (the agent's own list stays for a rule to read).
    const input = (id: string, kind: string, rawInput: Record<string, unknown>) =>
      m.toolForPermission({ toolCallId: id, kind, rawInput }, out).input;
    expect(input("r1", "read", { files: [{ path: "/w/a.txt" }] }).file_path).toBe("/w/a.txt");
    expect(input("r2", "read", { files: [{ path: "/w/a" }, { path: "/w/b" }] })).not.toHaveProperty(
      "file_path",
    );
    expect(input("g1", "search", { queries: ["TODO"] }).pattern).toBe("TODO");
    expect(input("g2", "search", { queries: ["a", "b"] })).not.toHaveProperty("pattern");
    expect(input("f1", "fetch", { requests: [{ url: "https://x.test/", prompt: "p" }] }).url).toBe(
      "https://x.test/",
    );
  });
});

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Maps three finished tool calls with large inputs; returns weak references to their wire objects. */
function finishedCalls(m: AcpUpdateMapper): WeakRef<object>[] {
  const held: WeakRef<object>[] = [];
  for (let i = 0; i < 3; i++) {
    const call = update({
      sessionUpdate: "tool_call",
      toolCallId: `t${i}`,
      kind: "edit",
      status: "in_progress",
      rawInput: { file_path: `/w/f${i}`, content: "x".repeat(100_000) },
    });
    held.push(new WeakRef(call), new WeakRef(call.params.update.rawInput as object));
    m.map(call);
    m.map(update({ sessionUpdate: "tool_call_update", toolCallId: `t${i}`, status: "completed" }));
  }
  return held;
}

describe("AcpUpdateMapper memory", () => {
  it("a finished tool call does not keep its wire line or input until the turn ends", async () => {
    const m = mapper();
    m.beginTurn();
    // The messages go to the caller (and are dropped there); the turn goes on.
    const held = finishedCalls(m);
    // A WeakRef's target lives to the end of the job that made it: collect on a later one.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(held.map((ref) => ref.deref() === undefined)).toEqual(held.map(() => true));
    // A late update for a finished call announces nothing again.
    expect(
      m.map(update({ sessionUpdate: "tool_call_update", toolCallId: "t0", status: "completed" })),
    ).toEqual([]);
  });
});
