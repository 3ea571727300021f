import { describe, expect, it } from "vitest";
import { CliConnectionError, collectTurn, type Message } from "../../../src/index.js";

async function* stream(messages: Message[]): AsyncGenerator<Message> {
  yield* messages;
}

const assistant = (text: string, extra: Partial<Message> = {}): Message =>
  ({
    type: "assistant",
    content: [{ type: "text", text }],
    model: "m",
    parentToolUseId: null,
    raw: {},
    ...extra,
  }) as Message;
const toolResult: Message = {
  type: "user",
  content: [{ type: "tool_result", toolUseId: "t1", content: "ok", isError: false }],
  parentToolUseId: null,
  raw: {},
};
const result = (extra: Record<string, unknown> = {}): Message =>
  ({
    type: "result",
    subtype: "success",
    isError: false,
    durationMs: 1,
    durationApiMs: 1,
    numTurns: 1,
    sessionId: "s",
    raw: {},
    ...extra,
  }) as Message;

describe("collectTurn", () => {
  it("takes the result's text when the backend gives one", async () => {
    const turn = await collectTurn(
      stream([assistant("thinking aloud"), result({ result: "final", usage: { output_tokens: 3 } })]),
    );
    expect(turn.text).toBe("final");
    expect(turn.usage).toEqual({ output_tokens: 3 });
    expect(turn.error).toBeUndefined();
  });

  it("else takes the top-level assistant text after the last tool result, ignoring sub-agents", async () => {
    const turn = await collectTurn(
      stream([
        assistant("let me look"),
        toolResult,
        assistant("sub-agent says hi", { parentToolUseId: "task-1" } as Partial<Message>),
        assistant("the answer "),
        assistant("is 4"),
        result(),
      ]),
    );
    expect(turn.text).toBe("the answer is 4");
  });

  it("reports a failed turn as error (with the assistant's error class) and no text", async () => {
    const turn = await collectTurn(
      stream([
        assistant("Not logged in", { error: "authentication_failed" } as Partial<Message>),
        result({ isError: true, result: "Not logged in · Please run /login" }),
      ]),
    );
    expect(turn.text).toBe("");
    expect(turn.error).toBe("Not logged in · Please run /login");
    expect(turn.errorKind).toBe("authentication_failed");
  });

  it("falls back to the error list, then the subtype, for a failure without text", async () => {
    expect((await collectTurn(stream([result({ isError: true, errors: ["a", "b"] })]))).error).toBe("a; b");
    expect(
      (await collectTurn(stream([result({ isError: true, subtype: "error_max_turns" })]))).error,
    ).toContain("error_max_turns");
  });

  it("summarizes the last turn of several, keeping every message", async () => {
    const turn = await collectTurn(
      stream([assistant("one"), result({ result: "one" }), assistant("two"), result({ result: "two" })]),
    );
    expect(turn.text).toBe("two");
    expect(turn.messages).toHaveLength(4);
  });

  it("rejects with CliConnectionError when the stream ends without a result", async () => {
    await expect(collectTurn(stream([assistant("partial")]))).rejects.toBeInstanceOf(CliConnectionError);
  });
});
