/**
 * ResultOrdering: a turn's `command_lifecycle` end goes before its `result`; nothing else moves,
 * and a held result is never held past another message, the stream's end, or the hold bound.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseClaudeMessage } from "../../../src/backends/claude/message-parser.js";
import { ResultOrdering } from "../../../src/backends/claude/result-ordering.js";
import type { Message } from "../../../src/messages.js";

const lifecycle = (id: string, state: string) =>
  parseClaudeMessage({
    type: "command_lifecycle",
    command_uuid: id,
    state,
    uuid: `l-${id}-${state}`,
    session_id: "s",
  });
const result = (ids?: string[]) =>
  parseClaudeMessage({
    type: "result",
    subtype: "success",
    is_error: false,
    session_id: "s",
    ...(ids ? { user_message_uuids: ids } : {}),
  });
const assistant = parseClaudeMessage({
  type: "assistant",
  message: { content: [{ type: "text", text: "hi" }] },
});
const state = (s: string) =>
  parseClaudeMessage({ type: "system", subtype: "session_state_changed", state: s });

function label(m: Message): string {
  if (m.type === "system") return `${m.subtype}:${String(m.data.state)}`;
  return m.type;
}

function harness(holdMs?: number) {
  const out: Message[] = [];
  const ordering = new ResultOrdering((m) => out.push(m), holdMs);
  return { ordering, labels: () => out.map(label) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("ResultOrdering", () => {
  it("delivers a turn's completed lifecycle before its result (the CLI sends it after)", () => {
    const { ordering, labels } = harness();
    for (const m of [lifecycle("a", "queued"), lifecycle("a", "started"), assistant, result(["a"])])
      ordering.push(m);
    expect(labels()).toEqual(["command_lifecycle:queued", "command_lifecycle:started", "assistant"]);
    ordering.push(lifecycle("a", "completed"));
    expect(labels()).toEqual([
      "command_lifecycle:queued",
      "command_lifecycle:started",
      "assistant",
      "command_lifecycle:completed",
      "result",
    ]);
  });

  it("waits for every command a result answers; cancelled ends one too", () => {
    const { ordering, labels } = harness();
    for (const id of ["a", "b"]) ordering.push(lifecycle(id, "started"));
    ordering.push(result(["a", "b"]));
    ordering.push(lifecycle("a", "completed"));
    expect(labels().at(-1)).toBe("command_lifecycle:completed");
    ordering.push(lifecycle("b", "cancelled"));
    expect(labels().slice(-2)).toEqual(["command_lifecycle:cancelled", "result"]);
  });

  it("does not hold a result whose commands it never saw start, or that names none", () => {
    const { ordering, labels } = harness();
    ordering.push(result(["never-started"]));
    ordering.push(result());
    expect(labels()).toEqual(["result", "result"]);
  });

  it("lets session_state_changed pass a held result, and releases it for anything else", () => {
    const { ordering, labels } = harness();
    ordering.push(lifecycle("a", "started"));
    ordering.push(result(["a"]));
    ordering.push(state("idle"));
    expect(labels()).toEqual(["command_lifecycle:started", "session_state_changed:idle"]);
    ordering.push(assistant);
    expect(labels().slice(-2)).toEqual(["result", "assistant"]);
    ordering.push(lifecycle("a", "completed"));
    expect(labels().at(-1)).toBe("command_lifecycle:completed");
  });

  it("releases a held result on flush (stream end) and after the hold bound", () => {
    const { ordering, labels } = harness();
    ordering.push(lifecycle("a", "started"));
    ordering.push(result(["a"]));
    ordering.flush();
    expect(labels().at(-1)).toBe("result");

    vi.useFakeTimers();
    const timed = harness(50);
    timed.ordering.push(lifecycle("b", "started"));
    timed.ordering.push(result(["b"]));
    expect(timed.labels()).toEqual(["command_lifecycle:started"]);
    vi.advanceTimersByTime(50);
    expect(timed.labels()).toEqual(["command_lifecycle:started", "result"]);
  });
});
