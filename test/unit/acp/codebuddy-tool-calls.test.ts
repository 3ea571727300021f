/**
 * CodeBuddy Code 2.117.0's tool calls (agent-sdk 0.3.201) in the unified vocabulary. It opens a call
 * in progress as `kind: "other"` with the tool's name as title and an empty `rawInput`, streams the
 * arguments as status-less `tool_call_update`s whose `rawInput` is the partial JSON parsed (keys cut
 * short: `{"command":"echo","\"command":"echo hi"}`), then sends the call again, pending, with its
 * kind, title and whole `rawInput`; the permission request carries only `rawInput`. The tool_use must
 * wait for the whole input. The notifications are the ones `codebuddy --acp` sent against the fake
 * model (loopback), `_meta` trimmed.
 */
import { describe, expect, it } from "vitest";
import { AcpUpdateMapper } from "../../../src/backends/acp/updates.js";
import type { Message } from "../../../src/index.js";

function mapper() {
  return new AcpUpdateMapper({ sessionId: () => "s-1", model: "codebuddy", includePartialMessages: false });
}
const update = (u: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId: "064ae699-b1cf-4df1-90c3-267b3afbff6c", update: u },
});
const text = (t: string) => [{ type: "content", content: { type: "text", text: t } }];

function toolUses(messages: Message[]): Array<{ name: string; input: Record<string, unknown> }> {
  return messages.flatMap((m) =>
    m.type === "assistant"
      ? m.content.flatMap((b) => (b.type === "tool_use" ? [{ name: b.name, input: b.input }] : []))
      : [],
  );
}

/** One call as CodeBuddy sends it, up to the permission request: what was announced, what canUseTool gets. */
function callUpToPermission(
  id: string,
  toolName: string,
  streamed: Array<[text: string, rawInput: Record<string, unknown>]>,
  pending: Record<string, unknown>,
  rawInput: Record<string, unknown>,
) {
  const m = mapper();
  m.beginTurn();
  const meta = { "codebuddy.ai/toolName": toolName };
  const early: Message[] = [];
  early.push(
    ...m.map(
      update({
        sessionUpdate: "tool_call",
        toolCallId: id,
        title: toolName,
        kind: "other",
        status: "in_progress",
        rawInput: {},
        _meta: meta,
      }),
    ),
  );
  for (const [t, partial] of streamed) {
    early.push(
      ...m.map(
        update({
          sessionUpdate: "tool_call_update",
          toolCallId: id,
          content: text(t),
          rawInput: partial,
          _meta: meta,
        }),
      ),
    );
  }
  const announced = m.map(
    update({
      sessionUpdate: "tool_call",
      toolCallId: id,
      status: "pending",
      rawInput,
      _meta: meta,
      ...pending,
    }),
  );
  const out: Message[] = [];
  const asked = m.toolForPermission({ toolCallId: id, rawInput, _meta: meta }, out);
  const diffWrite = m.diffWrite(id);
  const done = m.map(
    update({
      sessionUpdate: "tool_call_update",
      toolCallId: id,
      status: "completed",
      rawOutput: { type: "text", text: "ok" },
      _meta: meta,
    }),
  );
  return { early, announced, asked, afterPermission: out, done, diffWrite, after: m.diffWrite(id) };
}

describe("CodeBuddy Code tool calls", () => {
  it("Bash: announced once, when the whole input came, as Bash with input.command; canUseTool gets the same", () => {
    const rawInput = { command: "echo hi", description: "run a command" };
    const r = callUpToPermission(
      "call_77dac8aafe61f2280ee6804a",
      "Bash",
      [
        ['{"command":"echo ', { command: "echo" }],
        ['hi","description"', { command: "echo", '"command': "echo hi" }],
        [':"run a command"}', { command: "echo hi", '"command': "echo hi", description: "run a command" }],
      ],
      { title: "`echo hi`", kind: "execute", content: text("run a command") },
      rawInput,
    );
    expect(r.early).toEqual([]);
    expect(toolUses(r.announced)).toEqual([{ name: "Bash", input: { ...rawInput } }]);
    expect(r.asked).toEqual({ name: "Bash", input: { ...rawInput } });
    expect(r.afterPermission).toEqual([]);
    expect(toolUses(r.done)).toEqual([]);
    expect(r.done.at(-1)).toMatchObject({
      type: "user",
      content: [
        { type: "tool_result", toolUseId: "call_77dac8aafe61f2280ee6804a", content: "ok", isError: false },
      ],
    });
  });

  it("Write and Edit: announced as Edit with file_path (and content / old_string, new_string)", () => {
    const path = "/tmp/acp-codebuddy-home-C2lmLb/work/a.txt";
    const write = callUpToPermission(
      "call_e100de497cc58193309970e8",
      "Write",
      [
        ['{"file_path":"/tmp/acp-co', { file_path: "/tmp/acp-co" }],
        ['a.txt","content":"one\\n"}', { file_path: path, content: "one\n" }],
      ],
      {
        title: `Write ${path}`,
        kind: "edit",
        content: [{ type: "diff", path, oldText: null, newText: "one\n" }],
        locations: [{ path }],
      },
      { file_path: path, content: "one\n" },
    );
    expect(write.early).toEqual([]);
    expect(toolUses(write.announced)).toEqual([
      { name: "Edit", input: { file_path: path, content: "one\n" } },
    ]);
    expect(write.asked.input).toMatchObject({ file_path: path, content: "one\n" });

    const edit = callUpToPermission(
      "call_75b6cc1bb51db9995b5c392c",
      "Edit",
      [['{"file_path":"/tmp/acp-codebuddy', { file_path: "/tmp/acp-codebuddy" }]],
      {
        title: `Edit \`${path}\``,
        kind: "edit",
        content: [{ type: "diff", path, oldText: "one\n", newText: "two\n" }],
        locations: [{ path, line: 0 }],
      },
      { file_path: path, old_string: "one", new_string: "two" },
    );
    expect(edit.early).toEqual([]);
    expect(toolUses(edit.announced)).toEqual([
      { name: "Edit", input: { file_path: path, old_string: "one", new_string: "two" } },
    ]);
    // The whole new file it showed as diff: the client write an allowed Edit leads to is not asked
    // again (the session grants it beside the input); forgotten once the call finished.
    expect(edit.diffWrite).toEqual({ file_path: path, content: "two\n" });
    expect(edit.after).toBeUndefined();
    expect(write.diffWrite).toEqual({ file_path: path, content: "one\n" });
  });

  it("a call cancelled while its arguments stream is announced at the turn's end without the partial input", () => {
    const m = mapper();
    m.beginTurn();
    const id = "call_1";
    m.map(
      update({
        sessionUpdate: "tool_call",
        toolCallId: id,
        title: "Bash",
        kind: "other",
        status: "in_progress",
        rawInput: {},
      }),
    );
    expect(
      m.map(
        update({
          sessionUpdate: "tool_call_update",
          toolCallId: id,
          content: text('{"comm'),
          rawInput: { comm: "" },
        }),
      ),
    ).toEqual([]);
    expect(toolUses(m.flushAll())).toEqual([{ name: "Tool", input: { title: "Bash" } }]);
  });
});
