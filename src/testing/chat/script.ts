/**
 * Script model for the fake OpenAI Chat Completions API: the turn types users write, the recorded
 * request shape, and the reduction of a turn to what the server has to do.
 *
 * @module
 */

import { defaultOpenAIErrorType } from "../openai/script.js";
import { callFunctionTurns, type RecordedHttpRequest, stripInjectedBlocks } from "../shared/script.js";

/** One function tool call of a scripted Chat Completions turn. */
export interface ChatToolCall {
  /** Function name as the agent offered it in `tools` (e.g. `run_shell_command`, `bash`, `write`). */
  name: string;
  /** Arguments: an object (JSON-encoded for you) or a string (sent verbatim, may be invalid JSON). */
  arguments: string | Record<string, unknown>;
  /** The `tool_call_id`. Generated (`call_<hex>`) when absent. */
  id?: string;
}

/** Token counts reported in `usage`; estimated from the request and answer when absent. */
export interface ChatUsage {
  /** `usage.prompt_tokens`. */
  prompt_tokens: number;
  /** `usage.completion_tokens`. */
  completion_tokens: number;
}

/**
 * One scripted model turn: what the fake server answers to the next `POST /v1/chat/completions`
 * that is not a side call.
 *
 * - `{ text }` — an assistant message (streamed in a few `delta.content` chunks), `finish_reason: "stop"`.
 * - `{ toolCalls, text? }` — an optional text, then one or more function calls; streamed as a
 *   `delta.tool_calls` entry with id and name, then the arguments in several deltas;
 *   `finish_reason: "tool_calls"`. The agent runs them and sends `role: "tool"` messages in the next
 *   request (see {@link RecordedChatRequest.toolResults}).
 * - `{ toolCall, text? }` — the same with one call.
 * - `{ error }` — an HTTP error with the OpenAI error body `{"error":{message,type,param,code}}`.
 * - `{ brokenStream: true, text? }` — a partial stream, then the socket is destroyed.
 * - `{ stall: true, text? }` — the first chunk (with `text` as content if given), then the stream
 *   stays open until the client disconnects or the server closes. For cancel tests.
 * - a function — called with the {@link RecordedChatRequest}; returns (or resolves to) any turn.
 *
 * `delayMs` is the pause between SSE chunks; `usage` overrides the estimated token counts.
 */
export type ChatTurn =
  | { text: string; delayMs?: number; usage?: ChatUsage }
  | { toolCalls: ChatToolCall[]; text?: string; delayMs?: number; usage?: ChatUsage }
  | { toolCall: ChatToolCall; text?: string; delayMs?: number; usage?: ChatUsage }
  | { error: { status: number; message?: string; type?: string; code?: string | null } }
  | { brokenStream: true; text?: string }
  | { stall: true; text?: string }
  | ((request: RecordedChatRequest) => ChatTurn | Promise<ChatTurn>);

/** A `role: "tool"` message the agent sent back: the result of one tool call. */
export interface ChatToolResult {
  /** The `tool_call_id` it answers. */
  tool_call_id: string;
  /** Its content flattened to text (text parts joined with `"\n"`). */
  text: string;
}

/** One HTTP request received by the fake Chat Completions server. */
export interface RecordedChatRequest extends RecordedHttpRequest {
  /**
   * Text of the LAST `role: "user"` message (text parts joined with `"\n"`), with the tag blocks
   * agents wrap around a prompt removed (leading and trailing `<tag>…</tag>` blocks); messages that are only
   * such blocks are skipped. A block holding the prompt itself (CodeBuddy Code's `<user_query>`) gives
   * its text (see `stripInjectedBlocks`). The same in every request of a turn, including tool-result
   * follow-ups.
   */
  lastUserText: string;
  /** Text of the first `role: "system"` (or `developer`) message, `""` when none. */
  systemText: string;
  /** Names of the function tools offered in `body.tools`, in order. */
  toolNames: string[];
  /** Every `role: "tool"` message of the conversation, in order. */
  toolResults: ChatToolResult[];
  /** True when the last message is a `role: "tool"` result (a follow-up within a turn). */
  isToolFollowUp: boolean;
  /** Name of the side call that answered this request, or undefined (see `sideCalls`). */
  sideCall: string | undefined;
}

/** A non-function turn, as produced by resolving function turns. */
export type StaticChatTurn = Exclude<ChatTurn, (request: RecordedChatRequest) => unknown>;

/** A scripted turn reduced to what the server has to do. */
export type ResolvedChatTurn =
  | { kind: "message"; text?: string; toolCalls: ChatToolCall[]; delayMs: number; usage?: ChatUsage }
  | { kind: "error"; status: number; errorType: string; code: string | null; message: string }
  | { kind: "stall"; text?: string }
  | { kind: "broken"; text?: string };

/**
 * Turns a static (non-function) turn into a {@link ResolvedChatTurn}.
 *
 * @param turn - The turn.
 * @returns What the server has to do.
 * @throws TypeError when the turn has none of the known shapes.
 */
export function normalizeChatTurn(turn: StaticChatTurn): ResolvedChatTurn {
  if (turn === null || typeof turn !== "object") {
    throw new TypeError(`fake-chat: invalid scripted turn: ${String(turn)}`);
  }
  if ("error" in turn) {
    const { status, message, type, code } = turn.error;
    return {
      kind: "error",
      status,
      errorType: type ?? defaultOpenAIErrorType(status),
      code: code ?? null,
      message: message ?? `fake-chat scripted error ${status}`,
    };
  }
  if ("stall" in turn) return { kind: "stall", ...(turn.text !== undefined ? { text: turn.text } : {}) };
  if ("brokenStream" in turn) {
    return { kind: "broken", ...(turn.text !== undefined ? { text: turn.text } : {}) };
  }
  const common = { delayMs: turn.delayMs ?? 0, ...(turn.usage ? { usage: turn.usage } : {}) };
  if ("toolCalls" in turn || "toolCall" in turn) {
    const toolCalls = "toolCalls" in turn ? turn.toolCalls : [turn.toolCall];
    if (!Array.isArray(toolCalls) || toolCalls.some((c) => typeof c?.name !== "string")) {
      throw new TypeError(`fake-chat: a tool call needs a name: ${JSON.stringify(turn)}`);
    }
    return { kind: "message", toolCalls, ...(turn.text !== undefined ? { text: turn.text } : {}), ...common };
  }
  if ("text" in turn && typeof turn.text === "string") {
    return { kind: "message", text: turn.text, toolCalls: [], ...common };
  }
  throw new TypeError(`fake-chat: unrecognised scripted turn: ${JSON.stringify(turn)}`);
}

/**
 * Resolves a turn: calls function turns with the request, then normalises the result.
 *
 * @param turn - Any scripted turn.
 * @param request - The request the turn answers.
 * @returns What the server has to do.
 */
export async function resolveChatTurn(
  turn: ChatTurn,
  request: RecordedChatRequest,
): Promise<ResolvedChatTurn> {
  return normalizeChatTurn(await callFunctionTurns(turn, request, "fake-chat"));
}

/** Text of a Chat Completions message `content`: a string, or the `text` of its parts. */
export function chatContentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p): p is { text: string } => !!p && typeof (p as { text?: unknown }).text === "string")
    .map((p) => p.text)
    .join("\n");
}

function messagesOf(body: unknown): Array<{ role?: unknown; content?: unknown; tool_call_id?: unknown }> {
  const messages = (body as { messages?: unknown } | undefined)?.messages;
  return Array.isArray(messages) ? messages.filter((m) => !!m && typeof m === "object") : [];
}

/**
 * The parts of a Chat Completions body a test asserts on (see {@link RecordedChatRequest}).
 *
 * @param body - Parsed request body.
 * @returns The derived fields.
 */
export function describeChatBody(
  body: unknown,
): Pick<RecordedChatRequest, "lastUserText" | "systemText" | "toolNames" | "toolResults" | "isToolFollowUp"> {
  const messages = messagesOf(body);
  let lastUserText = "";
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "user") continue;
    const parts = Array.isArray(m.content)
      ? m.content.map((p) => chatContentText([p]))
      : [chatContentText(m.content)];
    const text = parts
      .map(stripInjectedBlocks)
      .filter((t) => t !== "")
      .join("\n");
    if (text !== "") {
      lastUserText = text;
      break;
    }
  }
  const system = messages.find((m) => m.role === "system" || m.role === "developer");
  const tools = (body as { tools?: unknown } | undefined)?.tools;
  const toolNames = Array.isArray(tools)
    ? tools
        .map((t) => (t as { function?: { name?: unknown } } | null)?.function?.name)
        .filter((n): n is string => typeof n === "string")
    : [];
  const toolResults = messages
    .filter((m) => m.role === "tool")
    .map((m) => ({ tool_call_id: String(m.tool_call_id ?? ""), text: chatContentText(m.content) }));
  return {
    lastUserText,
    systemText: system ? chatContentText(system.content) : "",
    toolNames,
    toolResults,
    isToolFollowUp: messages.at(-1)?.role === "tool",
  };
}
