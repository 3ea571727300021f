/**
 * The unified message model. Every backend normalizes its native events into these types;
 * every message keeps the wire object it came from in `raw`, so nothing the CLI said is lost.
 */

import type {
  ClaudeSystemMessageData,
  CompactBoundaryEventData,
  InitEventData,
} from "./backends/claude/events.js";

/** A JSON object as it came off the wire. */
export type RawObject = Record<string, unknown>;

/** Plain text produced by the model. */
export interface TextBlock {
  type: "text";
  text: string;
}

/** The model's reasoning. `signature` guards it against tampering (Claude); may be empty elsewhere. */
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature: string;
}

/** A tool call requested by the model. */
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** The result of a tool call, linked to its {@link ToolUseBlock} by `toolUseId`. */
export interface ToolResultBlock {
  type: "tool_result";
  toolUseId: string;
  /** A string, or an array of content blocks as the wire carried them. */
  content: unknown;
  isError: boolean;
  /** A command's exit code, when the wire reports one (Codex, Cursor; Claude Code puts it in the text). */
  exitCode?: number;
}

/** A block type this SDK version does not know. Passed through untouched, never an exception. */
export interface UnknownBlock {
  type: "unknown";
  /** The block's `type` on the wire. */
  wireType: string;
  raw: RawObject;
}

/** Any content block of an assistant or user message. */
export type ContentBlock = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock | UnknownBlock;

/**
 * Why a turn failed, the same classes on every backend (`ResultMessage.errorKind`,
 * `TurnResult.errorKind`), read from what the CLI reported (HTTP status, error type, error text):
 * - `rate_limit`: transient, retry later (`retryAfterMs` when the CLI tells how long);
 * - `usage_limit`: a quota or plan limit is used up (`resetsAt` when the CLI tells when it resets);
 *   retrying soon does not help;
 * - `overloaded`: the provider is overloaded (HTTP 529, 503);
 * - `authentication_failed`, `billing_error`, `invalid_request`, `context_too_long`,
 *   `max_output_tokens`: fix something before retrying;
 * - `server_error`: the provider failed (HTTP 5xx); `network`: it could not be reached;
 * - `unknown`: the turn failed for a reason none of these names.
 */
export type ErrorKind =
  | "rate_limit"
  | "usage_limit"
  | "overloaded"
  | "authentication_failed"
  | "billing_error"
  | "invalid_request"
  | "context_too_long"
  | "server_error"
  | "network"
  | "max_output_tokens"
  | "unknown";

/** API-level error classes Claude Code reports on an assistant message. */
export type AssistantMessageError =
  | "authentication_failed"
  | "billing_error"
  | "rate_limit"
  | "invalid_request"
  | "server_error"
  | "unknown"
  | (string & {});

interface MessageBase {
  /** The wire object this message was parsed from. */
  raw: RawObject;
  /** Session (or thread/chat) id, when the wire carried one. */
  sessionId?: string | undefined;
  /** Message uuid, when the wire carried one. */
  uuid?: string | undefined;
}

/** A user turn: the prompt, or tool results fed back to the model. */
export interface UserMessage extends MessageBase {
  type: "user";
  content: string | ContentBlock[];
  parentToolUseId: string | null;
  /** Raw tool output the CLI attaches to tool-result turns. */
  toolUseResult?: unknown;
  /** True when the CLI replayed this message (resume, replay-user-messages). */
  isReplay?: boolean | undefined;
}

/** A model turn (Claude emits one per content block; blocks of one API message share `messageId`). */
export interface AssistantMessage extends MessageBase {
  type: "assistant";
  content: ContentBlock[];
  model: string;
  /** The API message id shared by all blocks of one model response. */
  messageId?: string | undefined;
  parentToolUseId: string | null;
  /** Set when the turn failed at the API level (rate limit, auth, …). */
  error?: AssistantMessageError | undefined;
  usage?: RawObject | undefined;
  /** True when the agent replayed this message (an ACP `session/load` replays the history first). */
  isReplay?: boolean | undefined;
}

/**
 * A system event (`init`, `status`, `compact_boundary`, `task_notification`, …). `data` holds all
 * wire fields; {@link isSystemMessage} narrows to a known subtype with `data` typed. Claude's event
 * lines with a type of their own (`command_lifecycle`, `rate_limit_event`, `tool_progress`, …)
 * arrive here too, with `subtype` set to that type.
 */
export interface SystemMessage extends MessageBase {
  type: "system";
  subtype: string;
  data: RawObject;
}

/**
 * Token counts of a turn, the same fields on every backend. A count the CLI did not report is
 * `null`, never a made-up zero. (Codex counts cached tokens inside `inputTokens`; Claude Code does
 * not.)
 */
export interface TokenUsage {
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadInputTokens: number | null;
  cacheCreationInputTokens: number | null;
  reasoningOutputTokens: number | null;
}

/**
 * The end of one agent turn. Every backend fills the same fields; a value the CLI does not report
 * is `null` (never a made-up number): see "Results on every backend" in docs/messages.md.
 */
export interface ResultMessage extends MessageBase {
  type: "result";
  /** `success`, `error_during_execution`, `error_max_turns`, `error_max_budget_usd`, … */
  subtype: string;
  /**
   * Whether the turn failed. Trust this, not `subtype`: Claude Code reports API failures as
   * `subtype: "success"` with `is_error: true`.
   */
  isError: boolean;
  /** Wall time of the turn in milliseconds: the CLI's figure, or measured by the SDK when it gives none. */
  durationMs: number;
  /** Time spent in model API calls, when the CLI reports it (Claude Code, Cursor). */
  durationApiMs: number | null;
  /** Model round trips of the turn, when the CLI reports them (Claude Code). */
  numTurns: number | null;
  sessionId: string;
  /**
   * This turn's cost in USD (Claude Code; Cursor as its CLI reports it), or `null` when it is not
   * known. On Claude it is the difference of the CLI's running totals: the previous result's in the
   * same process, or for a resumed session's first turn the total the CLI restored (asked for with
   * one `get_usage` request before that turn; `null` when the CLI cannot say). The CLI's own
   * cumulative figure stays in `raw.total_cost_usd` and in {@link ResultMessage.sessionCostUsd}.
   */
  totalCostUsd: number | null;
  /**
   * The session's running total in USD as the CLI reports it (Claude Code's `total_cost_usd`,
   * restored on resume; a fork starts from its parent's), or `null`. Not set by backends that report
   * no running total.
   */
  sessionCostUsd?: number | null | undefined;
  /** Token counts of this turn in one shape for every backend; `null` when the CLI reported no usage. */
  tokenUsage: TokenUsage | null;
  /** The CLI's own usage object, as it sent it. */
  usage?: RawObject | undefined;
  /** Usage per model (Claude Code's `modelUsage`); `null` where the CLI reports none. */
  modelUsage?: RawObject | null | undefined;
  /** The final text (or the error text when `isError`). */
  result?: string | undefined;
  /** Parsed structured output when `outputFormat` asked for a JSON schema. */
  structuredOutput?: unknown;
  /** Error strings the CLI gave for `error_*` subtypes. */
  errors?: string[] | undefined;
  stopReason?: string | null | undefined;
  /** Why the turn ended, e.g. `aborted_streaming` after an interrupt. */
  terminalReason?: string | null | undefined;
  /** Tool calls refused in the turn, as the CLI listed them (Claude Code); `null` where it lists none. */
  permissionDenials?: unknown[] | null | undefined;
  /** HTTP status of the API failure behind an error result, when known. */
  apiErrorStatus?: number | null | undefined;
  /**
   * Why the turn failed ({@link ErrorKind}), `null` when it did not fail at the API level (success,
   * an interrupt, a limit of the options: see `subtype`). Set by the SDK on every backend's result.
   */
  errorKind?: ErrorKind | null | undefined;
  /** For `errorKind: "rate_limit"`: how long to wait before retrying, when the CLI said; else `null`. */
  retryAfterMs?: number | null | undefined;
  /** For `errorKind: "usage_limit"`: when the limit resets (ISO 8601), when the CLI said; else `null`. */
  resetsAt?: string | null | undefined;
}

/**
 * A streaming event (partial message), emitted when `includePartialMessages` is on. Every backend
 * that streams uses Anthropic's Messages API shape for the model's text and reasoning as they are
 * written: `{ type: "content_block_delta", index, delta: { type: "text_delta", text } }` (reasoning:
 * `delta: { type: "thinking_delta", thinking }`). Claude Code passes on every event of the API
 * stream (`message_start`, `content_block_start`, …); Codex (app-server), ACP agents and Cursor
 * send only the deltas, with `item_id` naming the message a delta belongs to where the CLI gives
 * one. Read the text with {@link textDeltaOf}.
 */
export interface StreamEventMessage extends MessageBase {
  type: "stream_event";
  /** The streaming event, e.g. `{ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }`. */
  event: RawObject;
  parentToolUseId: string | null;
}

/** A message type this SDK version does not know. Passed through, never an exception. */
export interface UnknownMessage extends MessageBase {
  type: "unknown";
  /** The message's `type` on the wire. */
  wireType: string;
}

/** Every message an agent session can yield. Discriminate on `type`. */
export type Message =
  | UserMessage
  | AssistantMessage
  | SystemMessage
  | ResultMessage
  | StreamEventMessage
  | UnknownMessage;

/**
 * The typed `data` of every known `system` subtype, by subtype (Claude Code's events: see
 * {@link ClaudeSystemMessageData}). Subtypes only other backends emit (Codex `codex_error`, …)
 * and subtypes a newer CLI adds are still delivered as {@link SystemMessage} with untyped `data`.
 */
export interface SystemMessageDataMap extends Omit<ClaudeSystemMessageData, "init" | "compact_boundary"> {
  /**
   * Claude's `init` fields. Codex (the thread, `session_id`) and Cursor (`model`, `cwd`, …) send
   * `init` too, with fewer fields, so every field is optional here.
   */
  init: Partial<InitEventData>;
  /** Claude's fields; Codex reports its own compactions with fewer, so every field is optional. */
  compact_boundary: Partial<CompactBoundaryEventData>;
}

/** A known `system` subtype. */
export type KnownSystemSubtype = keyof SystemMessageDataMap;

/** A {@link SystemMessage} of subtype `S`, its `data` typed. Narrow to it with {@link isSystemMessage}. */
export interface TypedSystemMessage<S extends KnownSystemSubtype> extends SystemMessage {
  subtype: S;
  data: SystemMessageDataMap[S] & RawObject;
}

/**
 * Narrowing helper for system messages: `if (isSystemMessage(m, "task_started")) m.data.task_id`.
 * Pass no subtype to narrow to any {@link SystemMessage}.
 */
export function isSystemMessage<S extends KnownSystemSubtype>(
  message: Message,
  subtype: S,
): message is TypedSystemMessage<S>;
export function isSystemMessage(message: Message): message is SystemMessage;
export function isSystemMessage(message: Message, subtype?: string): boolean {
  return message.type === "system" && (subtype === undefined || message.subtype === subtype);
}

/** Narrowing helper: `if (isResult(m)) m.totalCostUsd`. */
export function isResult(message: Message): message is ResultMessage {
  return message.type === "result";
}

/** Concatenates the text blocks of an assistant message. */
export function textOf(message: AssistantMessage | UserMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .filter((b): b is TextBlock => b.type === "text")
    .map((b) => b.text)
    .join("");
}

/**
 * The piece of model text a streaming message carries: the `text` of a `content_block_delta` /
 * `text_delta` event (see {@link StreamEventMessage}), the same on every backend that streams
 * (`includePartialMessages: true`). `undefined` for any other message or event (reasoning deltas
 * included). Sub-agent text comes too: check `parentToolUseId === null` for the top-level answer.
 *
 * @example
 * for await (const m of query({ prompt, options: { includePartialMessages: true } })) {
 *   const piece = textDeltaOf(m);
 *   if (piece !== undefined) process.stdout.write(piece);
 * }
 */
export function textDeltaOf(message: Message): string | undefined {
  if (message.type !== "stream_event") return undefined;
  const event = message.event;
  if (typeof event !== "object" || event === null || event.type !== "content_block_delta") return undefined;
  const delta = event.delta as { type?: unknown; text?: unknown } | null | undefined;
  if (typeof delta !== "object" || delta === null || delta.type !== "text_delta") return undefined;
  return typeof delta.text === "string" ? delta.text : undefined;
}
