/**
 * Collected turns: a whole answer as one value, for callers that do not need the message stream.
 */
import { CliConnectionError } from "./errors.js";
import type { ErrorKind, Message, RawObject, ResultMessage } from "./messages.js";
import { textOf } from "./messages.js";

/**
 * One answer, collected: what `client.run()` and `query(…).collect()` resolve with.
 *
 * @example
 * const turn = await query({ prompt: "What is 2 + 2?" }).collect();
 * if (turn.error) console.error(turn.error);
 * else console.log(turn.text);
 */
export interface TurnResult {
  /** Every message of the turn, in order, ending with {@link TurnResult.result}. */
  messages: Message[];
  /** The turn's `result` message (for a streamed `query()` prompt, the last turn's). */
  result: ResultMessage;
  /**
   * The final answer: the result's text, else the text of the turn's top-level assistant messages.
   * Empty when the turn failed (see {@link TurnResult.error}).
   */
  text: string;
  /** Why the turn failed (the CLI's error text), or `undefined` when it succeeded. */
  error: string | undefined;
  /**
   * Why the turn failed, the same classes on every backend ({@link ErrorKind}: `rate_limit`,
   * `usage_limit`, `authentication_failed`, …), or `undefined` when it did not fail at the API
   * level (a success, an interrupt, a limit of the options: see `result.subtype`).
   */
  errorKind: ErrorKind | undefined;
  /** For a `rate_limit`: how long to wait before retrying, when the CLI said (else `undefined`). */
  retryAfterMs: number | undefined;
  /** For a `usage_limit`: when it resets (ISO 8601), when the CLI said (else `undefined`). */
  resetsAt: string | undefined;
  /** Parsed structured output when `outputFormat` asked for a JSON schema. */
  structuredOutput: unknown;
  /** Token usage of the turn as the CLI reported it. */
  usage: RawObject | undefined;
}

/**
 * Reads `messages` to the end and summarizes them as a {@link TurnResult}. The result is the last
 * `result` message; a stream that ends without one rejects with `CliConnectionError`.
 */
export async function collectTurn(messages: AsyncIterable<Message>): Promise<TurnResult> {
  const collected: Message[] = [];
  let result: ResultMessage | undefined;
  /** Index in `collected` where the turn of `result` begins (just after the previous result). */
  let turnStart = 0;
  let nextTurnStart = 0;
  for await (const message of messages) {
    collected.push(message);
    if (message.type === "result") {
      result = message;
      turnStart = nextTurnStart;
      nextTurnStart = collected.length;
    }
  }
  if (!result) {
    throw new CliConnectionError(
      "The session ended before the turn's result arrived (the CLI exited, or disconnect() was called)",
    );
  }
  const turn = collected.slice(turnStart);
  let errorKind: ErrorKind | undefined = result.errorKind ?? undefined;
  if (result.errorKind === undefined && result.isError) {
    // A result that did not pass through a session (a hand-made stream): the assistant's class.
    for (const m of turn)
      if (m.type === "assistant" && m.error !== undefined) errorKind = m.error as ErrorKind;
  }
  const error = result.isError ? failureText(result) : undefined;
  return {
    messages: collected,
    result,
    text: error !== undefined ? "" : (result.result ?? finalAssistantText(turn)),
    error,
    errorKind,
    retryAfterMs: result.retryAfterMs ?? undefined,
    resetsAt: result.resetsAt ?? undefined,
    structuredOutput: result.structuredOutput,
    usage: result.usage,
  };
}

function failureText(result: ResultMessage): string {
  if (result.result) return result.result;
  if (result.errors && result.errors.length > 0) return result.errors.join("; ");
  return `the turn failed (${result.subtype})`;
}

/** The text the model wrote after its last tool call: what a reader takes as the answer. */
function finalAssistantText(turn: Message[]): string {
  let text = "";
  for (const message of turn) {
    if (message.type !== "assistant" && message.type !== "user") continue;
    // Sub-agent traffic is not the answer.
    if (message.parentToolUseId !== null) continue;
    if (message.type === "assistant") text += textOf(message);
    else text = "";
  }
  return text;
}
