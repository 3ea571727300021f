/**
 * What a caller can send to an agent: a string, content blocks (text and images), or a stream
 * of user messages that keeps the session open.
 */
import { AgentSdkError, InvalidOptionsError } from "./errors.js";
import { describeValue } from "./wire/safe-json.js";

/** A text part of a user prompt. */
export interface TextInputBlock {
  type: "text";
  text: string;
}

/** An image part of a user prompt (Anthropic content-block shape). */
export interface ImageInputBlock {
  type: "image";
  source:
    | { type: "base64"; media_type: "image/png" | "image/jpeg" | "image/gif" | "image/webp"; data: string }
    | { type: "url"; url: string };
}

/** One block of a user prompt. */
export type UserContentBlock = TextInputBlock | ImageInputBlock;

/** A user message exactly as the Claude Code stream-json input expects it. */
export interface WireUserMessage {
  type: "user";
  message: { role: "user"; content: string | UserContentBlock[] | Record<string, unknown>[] };
  parent_tool_use_id?: string | null;
  session_id?: string;
  uuid?: string;
}

/** One item of a streamed prompt: plain text, content blocks, or a full wire user message. */
export type StreamedUserInput = string | UserContentBlock[] | WireUserMessage;

/**
 * A prompt.
 * - `string` / `UserContentBlock[]`: a single user turn. With `query()` the CLI's stdin is closed
 *   after the first `result` (one-shot semantics).
 * - `AsyncIterable`: streaming input. The session stays open until the iterable ends, so background
 *   tasks and agent teams keep running and every later `result` is delivered.
 */
export type Prompt = string | UserContentBlock[] | AsyncIterable<StreamedUserInput>;

/**
 * Checks a prompt at run time (the types reject these; JavaScript callers and `any` do not): text,
 * content blocks (objects with a string `type`) or, when `streamed` is allowed, an `AsyncIterable`.
 *
 * @throws InvalidOptionsError naming what was passed instead.
 */
export function checkPrompt(prompt: unknown, streamed = true): asserts prompt is Prompt {
  if (typeof prompt === "string" || isContentBlocks(prompt)) return;
  if (streamed && isStreamedPrompt(prompt as Prompt)) return;
  throw new InvalidOptionsError([
    `prompt: expected text, a list of content blocks${streamed ? " or an AsyncIterable of user messages" : ""}, got ${describePrompt(prompt)}`,
  ]);
}

/**
 * Checks one item of a streamed prompt: text, content blocks, or a user message (`{ type: "user",
 * message: { content } }`).
 *
 * @throws InvalidOptionsError naming what was yielded instead.
 */
export function checkStreamedInput(item: unknown): asserts item is StreamedUserInput {
  if (typeof item === "string" || isContentBlocks(item)) return;
  if (typeof item === "object" && item !== null && (item as { type?: unknown }).type === "user") {
    const message = (item as { message?: unknown }).message;
    const content =
      typeof message === "object" && message !== null
        ? (message as { content?: unknown }).content
        : undefined;
    if (typeof content === "string" || isContentBlocks(content)) return;
  }
  throw new InvalidOptionsError([
    `prompt: a streamed item must be text, a list of content blocks or a user message, got ${describePrompt(item)}`,
  ]);
}

function isContentBlocks(value: unknown): value is UserContentBlock[] {
  return (
    Array.isArray(value) &&
    value.every(
      (b) => typeof b === "object" && b !== null && typeof (b as { type?: unknown }).type === "string",
    )
  );
}

function describePrompt(value: unknown): string {
  if (Array.isArray(value)) return "a list with an item that is not a content block";
  return describeValue(value);
}

/**
 * What a prompt stream that threw ends its session with: the `Error` it threw, or an
 * {@link AgentSdkError} (the thrown value as `cause`) for anything else, `undefined` included, so
 * the failure is never lost or reported as a bare value.
 */
export function promptStreamError(error: unknown): Error {
  if (error instanceof Error) return error;
  return new AgentSdkError(`the prompt stream threw ${describeValue(error)}, not an Error`, { cause: error });
}

/**
 * Checks the argument of `streamInput()`: an `AsyncIterable` of user messages.
 * @throws InvalidOptionsError naming what was passed instead.
 */
export function checkInputStream(stream: unknown): asserts stream is AsyncIterable<StreamedUserInput> {
  if (!isStreamedPrompt(stream as Prompt))
    throw new InvalidOptionsError([
      `streamInput: expected an AsyncIterable of user messages, got ${describePrompt(stream)}`,
    ]);
}

/** True when the prompt is a streamed (AsyncIterable) prompt. */
export function isStreamedPrompt(prompt: Prompt): prompt is AsyncIterable<StreamedUserInput> {
  return (
    typeof prompt === "object" &&
    prompt !== null &&
    typeof (prompt as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function"
  );
}

/** Convenience: a text block. */
export function text(value: string): TextInputBlock {
  return { type: "text", text: value };
}

/** Convenience: a base64 image block. */
export function image(
  data: string | Uint8Array,
  mediaType: "image/png" | "image/jpeg" | "image/gif" | "image/webp" = "image/png",
): ImageInputBlock {
  const b64 = typeof data === "string" ? data : Buffer.from(data).toString("base64");
  return { type: "image", source: { type: "base64", media_type: mediaType, data: b64 } };
}
