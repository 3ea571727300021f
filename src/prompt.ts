/**
 * What a caller can send to an agent: a string, content blocks (text and images), or a stream
 * of user messages that keeps the session open.
 */

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

/** True when the prompt is a streamed (AsyncIterable) prompt. */
export function isStreamedPrompt(prompt: Prompt): prompt is AsyncIterable<StreamedUserInput> {
  return typeof prompt === "object" && prompt !== null && Symbol.asyncIterator in prompt;
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
