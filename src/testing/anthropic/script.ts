/**
 * Script model for the fake Anthropic Messages API: the turn types users write, and the translation of a
 * turn into an Anthropic `message` object and its exact streaming (SSE) event sequence.
 *
 * @module
 */

import {
  callFunctionTurns,
  estimateTokens,
  type RecordedHttpRequest,
  randomId,
  splitChunks,
} from "../shared/script.js";
import type { SseEvent } from "../shared/sse.js";

/** One content block of a scripted assistant message (general form, see {@link ScriptedTurn}). */
export type ScriptedBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: "tool_use"; name: string; input: Record<string, unknown>; id?: string };

/**
 * One scripted model turn: what the fake server answers to the next `POST /v1/messages` that is not a
 * model check.
 *
 * - `{ text }` — one text block (`stop_reason` defaults to `"end_turn"`).
 * - `{ thinking, text? }` — a thinking block, then an optional text block.
 * - `{ toolUse, text? }` — an optional text block, then a `tool_use` block; `stop_reason` is `"tool_use"`.
 * - `{ blocks }` — the general form; `stop_reason` defaults to `"tool_use"` if any block is a tool use,
 *   else `"end_turn"`.
 * - `{ error }` — an HTTP error with the Anthropic error body
 *   `{"type":"error","error":{"type","message"}}` (type defaults by status, e.g. 400 →
 *   `invalid_request_error`, 529 → `overloaded_error`) and a `request-id` header. The real CLI retries
 *   401, 408, 409, 429, 5xx and 529 with backoff (≈0.5 s for the first retry, up to 10 retries), so a
 *   test that wants a fast API error should use 400 or 403 — not 401, which the CLI retries for ≈3
 *   minutes. 4xx errors other than 408/409/429 are "sticky" (the CLI's re-send of the same request
 *   gets the same error without consuming a turn); see `startFakeAnthropic`. `retryAfter` (seconds)
 *   adds a `retry-after` header (a 429 with and without one).
 * - `{ stall: true, text? }` — sends `message_start` (and a text delta of `text` if given) and then keeps
 *   the stream open until the client disconnects or the server closes. For interrupt tests.
 * - `{ brokenStream: true, text? }` — sends a partial stream, then destroys the socket.
 * - a function — called with the {@link RecordedRequest}; returns (or resolves to) any turn.
 *
 * `delayMs` (where allowed) is the pause between SSE events (or before a non-streaming response).
 */
export type ScriptedTurn =
  | { text: string; stopReason?: string; delayMs?: number }
  | { thinking: string; text?: string }
  | { toolUse: { name: string; input: Record<string, unknown>; id?: string }; text?: string }
  | { blocks: ScriptedBlock[]; stopReason?: string; delayMs?: number }
  | { error: { status: number; type?: string; message?: string; retryAfter?: number } }
  | { stall: true; text?: string }
  | { brokenStream: true; text?: string }
  | ((request: RecordedRequest) => ScriptedTurn | Promise<ScriptedTurn>);

/** One HTTP request received by the fake Anthropic server. */
export interface RecordedRequest extends RecordedHttpRequest {
  /**
   * Concatenated text of the LAST user message in `body.messages` (string content, or its text blocks
   * joined with `"\n"`) — handy for assertions and function turns. Text blocks that consist only of a
   * `<system-reminder>…</system-reminder>` (which the Claude Code CLI injects) are skipped, so for
   * `claude -p "say hi"` this is `"say hi"`. Empty when there is no such message or it holds only
   * `tool_result` blocks.
   */
  lastUserText: string;
}

/** A non-function turn, as produced by resolving function turns. */
export type StaticScriptedTurn = Exclude<ScriptedTurn, (request: RecordedRequest) => unknown>;

/** A scripted turn reduced to what the server has to do. */
export type ResolvedTurn =
  | { kind: "message"; blocks: ScriptedBlock[]; stopReason?: string; delayMs: number }
  | { kind: "error"; status: number; errorType: string; message: string; retryAfter?: number }
  | { kind: "stall"; text?: string }
  | { kind: "broken"; text?: string };

/** An Anthropic content block as it appears in a complete (non-streaming) message. */
export type AnthropicContentBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/** Anthropic usage object (the subset the fake reports). */
export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** A complete Anthropic `message` object, as returned by a non-streaming `POST /v1/messages`. */
export interface AnthropicMessage {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: AnthropicContentBlock[];
  stop_reason: string;
  stop_sequence: null;
  usage: AnthropicUsage;
}

/** Default signature given to scripted thinking blocks that have none. */
export const FAKE_THINKING_SIGNATURE = "ZmFrZS10aGlua2luZy1zaWduYXR1cmU=";

/** A text block that is nothing but a `<system-reminder>` injected by the CLI. */
const SYSTEM_REMINDER = /^\s*<system-reminder>[\s\S]*<\/system-reminder>\s*$/;

/**
 * The Anthropic error type the real API uses for an HTTP status.
 *
 * @param status - HTTP status code.
 * @returns E.g. `invalid_request_error` for 400, `overloaded_error` for 529.
 */
export function defaultErrorType(status: number): string {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

/**
 * Builds the Anthropic error body `{"type":"error","error":{"type","message"}}`.
 *
 * @param errorType - Anthropic error type, e.g. `invalid_request_error`.
 * @param message - Human-readable message.
 * @returns The JSON-serialisable error body.
 */
export function anthropicErrorBody(
  errorType: string,
  message: string,
): { type: "error"; error: { type: string; message: string } } {
  return { type: "error", error: { type: errorType, message } };
}

/**
 * Turns a static (non-function) turn into a {@link ResolvedTurn}.
 *
 * @param turn - The turn.
 * @returns What the server has to do.
 * @throws TypeError when the turn has none of the known shapes.
 */
export function normalizeTurn(turn: StaticScriptedTurn): ResolvedTurn {
  if (turn === null || typeof turn !== "object") {
    throw new TypeError(`fake-anthropic: invalid scripted turn: ${String(turn)}`);
  }
  if ("error" in turn) {
    const { status, type, message, retryAfter } = turn.error;
    return {
      kind: "error",
      status,
      errorType: type ?? defaultErrorType(status),
      message: message ?? `fake-anthropic scripted error ${status}`,
      ...(retryAfter !== undefined ? { retryAfter } : {}),
    };
  }
  if ("stall" in turn) return { kind: "stall", ...(turn.text !== undefined ? { text: turn.text } : {}) };
  if ("brokenStream" in turn) {
    return { kind: "broken", ...(turn.text !== undefined ? { text: turn.text } : {}) };
  }
  if ("blocks" in turn) {
    return {
      kind: "message",
      blocks: turn.blocks,
      ...(turn.stopReason !== undefined ? { stopReason: turn.stopReason } : {}),
      delayMs: turn.delayMs ?? 0,
    };
  }
  if ("toolUse" in turn) {
    const blocks: ScriptedBlock[] = [];
    if (turn.text !== undefined) blocks.push({ type: "text", text: turn.text });
    blocks.push({ type: "tool_use", ...turn.toolUse });
    return { kind: "message", blocks, delayMs: 0 };
  }
  if ("thinking" in turn) {
    const blocks: ScriptedBlock[] = [{ type: "thinking", thinking: turn.thinking }];
    if (turn.text !== undefined) blocks.push({ type: "text", text: turn.text });
    return { kind: "message", blocks, delayMs: 0 };
  }
  if ("text" in turn) {
    return {
      kind: "message",
      blocks: [{ type: "text", text: turn.text }],
      ...(turn.stopReason !== undefined ? { stopReason: turn.stopReason } : {}),
      delayMs: turn.delayMs ?? 0,
    };
  }
  throw new TypeError(`fake-anthropic: unrecognised scripted turn: ${JSON.stringify(turn)}`);
}

/**
 * Resolves a turn: calls function turns (repeatedly, if a function returns another function) with the
 * request, then normalises the result.
 *
 * @param turn - Any scripted turn.
 * @param request - The request the turn answers.
 * @returns What the server has to do.
 */
export async function resolveTurn(turn: ScriptedTurn, request: RecordedRequest): Promise<ResolvedTurn> {
  return normalizeTurn(await callFunctionTurns(turn, request, "fake-anthropic"));
}

/**
 * Text of the last `role: "user"` message of a Messages API body (string content, or text blocks joined
 * with `"\n"`, leaving out blocks that are only a `<system-reminder>`). Messages with other roles (the
 * CLI also sends `role: "system"` entries) are skipped.
 *
 * @param body - Parsed request body.
 * @returns The text, or `""`.
 */
export function extractLastUserText(body: unknown): string {
  const messages = (body as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages)) return "";
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown } | null;
    if (m?.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    if (!Array.isArray(m.content)) return "";
    return m.content
      .filter(
        (b): b is { type: "text"; text: string } =>
          !!b &&
          (b as { type?: unknown }).type === "text" &&
          typeof (b as { text?: unknown }).text === "string",
      )
      .map((b) => b.text)
      .filter((text) => !SYSTEM_REMINDER.test(text))
      .join("\n");
  }
  return "";
}

/**
 * Builds the complete assistant message for scripted blocks (assigning ids and default signatures).
 *
 * @param blocks - Scripted content blocks.
 * @param opts - Model name, explicit stop reason and input token count.
 * @returns The Anthropic message. `stop_reason` defaults to `"tool_use"` if any block is a tool use, else
 *   `"end_turn"`.
 */
export function buildMessage(
  blocks: readonly ScriptedBlock[],
  opts: { model: string; stopReason?: string; inputTokens?: number },
): AnthropicMessage {
  const content: AnthropicContentBlock[] = blocks.map((b): AnthropicContentBlock => {
    switch (b.type) {
      case "text":
        return { type: "text", text: b.text };
      case "thinking":
        return { type: "thinking", thinking: b.thinking, signature: b.signature ?? FAKE_THINKING_SIGNATURE };
      case "tool_use":
        return { type: "tool_use", id: b.id ?? randomId("toolu"), name: b.name, input: b.input ?? {} };
      default:
        throw new TypeError(`fake-anthropic: unknown block type: ${JSON.stringify(b)}`);
    }
  });
  const hasToolUse = content.some((b) => b.type === "tool_use");
  return {
    id: randomId("msg"),
    type: "message",
    role: "assistant",
    model: opts.model,
    content,
    stop_reason: opts.stopReason ?? (hasToolUse ? "tool_use" : "end_turn"),
    stop_sequence: null,
    usage: {
      input_tokens: opts.inputTokens ?? 1,
      output_tokens: estimateTokens(content),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

/** `message_start` event for a message (content emptied, `stop_reason` null, `output_tokens` 1). */
export function messageStartEvent(message: AnthropicMessage): SseEvent {
  return {
    event: "message_start",
    data: {
      type: "message_start",
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...message.usage, output_tokens: 1 },
      },
    },
  };
}

/** `ping` event. */
export function pingEvent(): SseEvent {
  return { event: "ping", data: { type: "ping" } };
}

/**
 * The `content_block_start`, `content_block_delta`(s) and `content_block_stop` events of one block.
 * Text and thinking are split into a few `text_delta` / `thinking_delta` chunks (thinking is followed by
 * a `signature_delta`); tool input is sent as an empty then a few `input_json_delta` `partial_json`
 * chunks, so a client must reassemble them.
 *
 * @param block - The complete block.
 * @param index - Its index in the message content.
 * @returns The events in order.
 */
export function contentBlockEvents(block: AnthropicContentBlock, index: number): SseEvent[] {
  const events: SseEvent[] = [];
  const delta = (d: Record<string, unknown>): void => {
    events.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta: d } });
  };
  switch (block.type) {
    case "text":
      events.push({
        event: "content_block_start",
        data: { type: "content_block_start", index, content_block: { type: "text", text: "" } },
      });
      for (const text of splitChunks(block.text)) delta({ type: "text_delta", text });
      break;
    case "thinking":
      events.push({
        event: "content_block_start",
        data: {
          type: "content_block_start",
          index,
          content_block: { type: "thinking", thinking: "", signature: "" },
        },
      });
      for (const thinking of splitChunks(block.thinking)) delta({ type: "thinking_delta", thinking });
      delta({ type: "signature_delta", signature: block.signature });
      break;
    case "tool_use":
      events.push({
        event: "content_block_start",
        data: {
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
        },
      });
      delta({ type: "input_json_delta", partial_json: "" });
      for (const partial_json of splitChunks(JSON.stringify(block.input))) {
        delta({ type: "input_json_delta", partial_json });
      }
      break;
  }
  events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  return events;
}

/**
 * The complete Anthropic streaming event sequence for a message: `message_start`, `ping`, per block
 * `content_block_start` / `content_block_delta`(s) / `content_block_stop`, `message_delta`
 * (`stop_reason`, `output_tokens`) and `message_stop`.
 *
 * @param message - The complete message (see {@link buildMessage}).
 * @returns The events in order.
 */
export function messageToSseEvents(message: AnthropicMessage): SseEvent[] {
  const events: SseEvent[] = [messageStartEvent(message), pingEvent()];
  message.content.forEach((block, index) => {
    events.push(...contentBlockEvents(block, index));
  });
  events.push({
    event: "message_delta",
    data: {
      type: "message_delta",
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: message.usage.output_tokens },
    },
  });
  events.push({ event: "message_stop", data: { type: "message_stop" } });
  return events;
}

/** Name of the tool Claude Code gives the model when `outputFormat` asks for structured output. */
export const STRUCTURED_OUTPUT_TOOL = "StructuredOutput";

/**
 * The scripted turns of a structured-output answer: the model calls Claude Code's
 * `StructuredOutput` tool with `value` (the CLI validates it against `outputFormat.schema` and
 * reports it as `result.structuredOutput`), then ends its turn with `text` (default empty), which
 * the CLI asks for after the tool result. Spread it into a script:
 *
 * ```ts
 * await using model = await startFakeAnthropic({ turns: [...structuredOutputTurns({ answer: 4 })] });
 * ```
 *
 * A value that does not match the schema makes the CLI send the validation error back to the model
 * as a tool result, so the next scripted turn is asked for.
 *
 * @param value - The structured answer (the tool's input: an object matching the schema).
 * @param text - The final text of the turn.
 */
export function structuredOutputTurns(value: Record<string, unknown>, text = ""): ScriptedTurn[] {
  return [{ toolUse: { name: STRUCTURED_OUTPUT_TOOL, input: value } }, { text }];
}
