/**
 * Kimi Code 2.1.0's tool calls in the unified vocabulary. Its permission requests carry no
 * `rawInput`: the command or path is read back from the approval text, completed from the
 * arguments it streamed before (as JSON content text) where they agree. The notifications below
 * are the ones `kimi acp` sent against the fake model (loopback), ids and paths as captured.
 */
import { describe, expect, it } from "vitest";
import { approvalCommand, approvalPath } from "../../../src/backends/acp/approval-text.js";
import { AcpUpdateMapper } from "../../../src/backends/acp/updates.js";
import type { Message } from "../../../src/index.js";

function mapper() {
  return new AcpUpdateMapper({ sessionId: () => "s-1", model: "kimi", includePartialMessages: false });
}
const update = (u: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId: "session_b72576c6-dfd6-4995-8c6d-ad39da19568e", update: u },
});
const text = (t: string) => [{ type: "content", content: { type: "text", text: t } }];

/** Kimi's notifications up to its permission request for one call; returns the canUseTool name/input. */
function askFor(
  id: string,
  title: string,
  kind: string,
  streamed: string[],
  permission: Record<string, unknown>[],
): { name: string; input: Record<string, unknown>; announced: Message[] } {
  const m = mapper();
  m.beginTurn();
  const announced: Message[] = [];
  announced.push(
    ...m.map(
      update({
        sessionUpdate: "tool_call",
        toolCallId: id,
        title,
        kind,
        status: "pending",
        content: text(""),
      }),
    ),
  );
  for (const args of streamed) {
    announced.push(
      ...m.map(
        update({
          sessionUpdate: "tool_call_update",
          toolCallId: id,
          status: "in_progress",
          content: text(args),
        }),
      ),
    );
  }
  const call = m.toolForPermission({ toolCallId: id, title, content: permission }, announced);
  return { ...call, announced };
}

const LONG = "echo hi > probe.txt && echo a-long-command-line-that-goes-on-for-more-than-fifty-chars";

describe("Kimi Code: canUseTool input recovered from the approval text", () => {
  it("a short command: the preview is the whole command (the title 'Bash' is not taken for one)", () => {
    const call = askFor(
      "0:call_417aa8896f6c9a80425ef0f9",
      "Bash",
      "execute",
      ['{"command":"echo hi', '{"command":"echo hi > probe.txt"}'],
      text("Requesting approval to Running: echo hi > probe.txt"),
    );
    expect(call.name).toBe("Bash");
    expect(call.input).toMatchObject({
      title: "Bash",
      description: "Requesting approval to Running: echo hi > probe.txt",
      command: "echo hi > probe.txt",
    });
    // The tool_use waited through the opening and the streamed arguments for the permission request.
    expect(call.announced).toEqual([
      expect.objectContaining({
        content: [
          {
            type: "tool_use",
            id: "0:call_417aa8896f6c9a80425ef0f9",
            name: "Bash",
            input: expect.objectContaining({ command: "echo hi > probe.txt" }),
          },
        ],
      }),
    ]);
  });

  it("a command longer than 50: the streamed one, whose preview is the one Kimi shows", () => {
    const call = askFor(
      "0:call_d3c1fd50db17a96e990a6bc4",
      "Bash",
      "execute",
      [
        '{"command":"echo hi > probe.txt &&',
        '{"command":"echo hi > probe.txt && echo a-long-command-line-that-goe',
        JSON.stringify({ command: LONG }),
      ],
      text("Requesting approval to Running: echo hi > probe.txt && echo a-long-command-line-th…"),
    );
    expect(call.input.command).toBe(LONG);
  });

  it("a cut preview the streamed arguments do not match (or none streamed) gives no command", () => {
    const shown = "Requesting approval to Running: echo hi > probe.txt && echo a-long-command-line-th…";
    const other = askFor(
      "c1",
      "Bash",
      "execute",
      [JSON.stringify({ command: "rm -rf / && echo a-long-command-line-that-goes-on-for-more" })],
      text(shown),
    );
    expect(other.input.command).toBeUndefined();
    // Two `command` keys (JSON.parse takes the last; another parser might run the first): not trusted.
    const twice = askFor(
      "c3",
      "Bash",
      "execute",
      [`{"command":"${LONG}; rm -rf ~","command":${JSON.stringify(LONG)}}`],
      text(shown),
    );
    expect(twice.input.command).toBeUndefined();
    const cut = askFor(
      "c2",
      "Bash",
      "execute",
      ['{"command":"echo hi > probe.txt && echo a-long-'],
      text(shown),
    );
    expect(cut.input.command).toBeUndefined();
    expect(cut.input.description).toBe(shown);
  });

  it("a background command ('Starting background: …') and the bare reader", () => {
    expect(approvalCommand("Requesting approval to Starting background: npm run dev", undefined)).toBe(
      "npm run dev",
    );
    expect(approvalCommand("Requesting approval to Running: ", undefined)).toBeUndefined();
    expect(approvalCommand("Running: ls", undefined)).toBeUndefined();
    expect(approvalCommand(undefined, '{"command":"ls"}')).toBeUndefined();
    // A preview of exactly 51 units is cut, whatever its last character.
    expect(approvalCommand(`Requesting approval to Running: ${"a".repeat(51)}`, undefined)).toBeUndefined();
    expect(approvalCommand(`Requesting approval to Running: ${"a".repeat(50)}`, undefined)).toBe(
      "a".repeat(50),
    );
  });

  it("without a permission request (yolo, auto) the tool_use comes with the rawInput after its start", () => {
    const m = mapper();
    m.beginTurn();
    const id = "0:call_d3c1fd50db17a96e990a6bc4";
    const seen: Message[] = [];
    for (const u of [
      {
        sessionUpdate: "tool_call",
        toolCallId: id,
        title: "Bash",
        kind: "execute",
        status: "pending",
        content: text(""),
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        status: "in_progress",
        content: text('{"command":"echo hi'),
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        status: "in_progress",
        content: text(JSON.stringify({ command: LONG })),
      },
    ]) {
      seen.push(...m.map(update(u)));
    }
    expect(seen).toEqual([]);
    seen.push(
      ...m.map(
        update({
          sessionUpdate: "tool_call_update",
          toolCallId: id,
          title: "Running: echo hi > probe.txt && echo a-long-command-line-th…",
          kind: "execute",
          status: "in_progress",
          rawInput: { command: LONG },
          content: text(JSON.stringify({ command: LONG })),
        }),
      ),
      ...m.map(
        update({
          sessionUpdate: "tool_call_update",
          toolCallId: id,
          status: "completed",
          content: text("a-long-command-line-that-goes-on-for-more-than-fifty-chars\n"),
          rawOutput: "a-long-command-line-that-goes-on-for-more-than-fifty-chars\n",
        }),
      ),
    );
    expect(seen).toEqual([
      expect.objectContaining({
        content: [{ type: "tool_use", id, name: "Bash", input: { command: LONG } }],
      }),
      expect.objectContaining({
        type: "user",
        content: [expect.objectContaining({ type: "tool_result", isError: false })],
      }),
    ]);
  });

  it("a cancelled turn still announces a call that was streaming its arguments", () => {
    const m = mapper();
    m.beginTurn();
    m.map(
      update({
        sessionUpdate: "tool_call",
        toolCallId: "x",
        title: "Bash",
        kind: "execute",
        status: "pending",
        content: text(""),
      }),
    );
    m.map(
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: "x",
        status: "in_progress",
        content: text('{"comm'),
      }),
    );
    expect(m.flushAll()).toEqual([
      expect.objectContaining({
        content: [expect.objectContaining({ type: "tool_use", id: "x", name: "Bash" })],
      }),
    ]);
  });

  it("Write: the path from 'Writing <path>', the content from the streamed arguments of that path", () => {
    const call = askFor(
      "0:call_59f7e45e6194c337b9f4ef95",
      "Write",
      "edit",
      [
        '{"path":"/tmp/kimi-probe/w.txt","con',
        JSON.stringify({ path: "/tmp/kimi-probe/w.txt", content: "hello\n" }),
      ],
      text("Requesting approval to Writing /tmp/kimi-probe/w.txt"),
    );
    expect(call.name).toBe("Edit");
    expect(call.input).toMatchObject({ file_path: "/tmp/kimi-probe/w.txt", content: "hello\n" });
  });

  it("Edit: the diff line and 'Editing <path>' name one path; old/new strings from the arguments", () => {
    const call = askFor(
      "0:call_9ad1530aaf00b9ad4c42216c",
      "Edit",
      "edit",
      [JSON.stringify({ path: "/tmp/kimi-probe/e.txt", old_string: "world", new_string: "there" })],
      [
        { type: "diff", path: "/tmp/kimi-probe/e.txt", oldText: "world", newText: "there" },
        ...text("Requesting approval to Editing /tmp/kimi-probe/e.txt"),
      ],
    );
    expect(call.input).toMatchObject({
      file_path: "/tmp/kimi-probe/e.txt",
      old_string: "world",
      new_string: "there",
    });
  });

  it("streamed arguments of another path are not taken; a diff line of another path names none", () => {
    const call = askFor(
      "e2",
      "Edit",
      "edit",
      [JSON.stringify({ path: "/etc/passwd", old_string: "a", new_string: "b" })],
      text("Requesting approval to Editing /tmp/kimi-probe/e.txt"),
    );
    expect(call.input.file_path).toBe("/tmp/kimi-probe/e.txt");
    expect(call.input.old_string).toBeUndefined();
    expect(approvalPath("diff /a\nRequesting approval to Editing /b")).toBeUndefined();
    expect(approvalPath("diff /a b\nRequesting approval to Editing /a b")).toBe("/a b");
    expect(approvalPath("Requesting approval to Writing dir/with\nnewline")).toBe("dir/with\nnewline");
    expect(approvalPath("Requesting approval to Writing ")).toBeUndefined();
  });
});
