/**
 * Collected turns: a whole answer as one value, for callers that do not need the message stream.
 */
import { CliConnectionError } from "./errors.js";
import type { AssistantMessageError, Message, RawObject, ResultMessage } from "./messages.js";
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
   * The API-level error class an assistant message carried, e.g. `authentication_failed` when the
   * CLI is not logged in and no API key is set.
   */
  errorKind: AssistantMessageError | undefined;
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
  let errorKind: AssistantMessageError | undefined;
  for (const m of turn) if (m.type === "assistant" && m.error !== undefined) errorKind = m.error;
  const error = result.isError ? failureText(result) : undefined;
  return {
    messages: collected,
    result,
    text: error !== undefined ? "" : (result.result ?? finalAssistantText(turn)),
    error,
    errorKind,
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
