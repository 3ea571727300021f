/**
 * Maps Claude Code's stream-json stdout lines onto the unified message model.
 *
 * Lenient by design: the CLI adds and renames fields between releases, and one odd line must never
 * end a session. Missing or ill-typed fields get neutral defaults, unknown message and block types
 * pass through as `unknown`, and every message keeps its wire object in `raw`.
 */
import { MessageParseError } from "../../errors.js";
import type {
  AssistantMessage,
  ContentBlock,
  Message,
  RawObject,
  ResultMessage,
  StreamEventMessage,
  SystemMessage,
  UnknownMessage,
  UserMessage,
} from "../../messages.js";
import { tokenUsage } from "../../session/token-usage.js";
import { asObject, compact, isObject, num, str } from "../../wire/read.js";
import { CLAUDE_EVENT_LINE_TYPES } from "./events.js";

/**
 * Parses one stdout object of the Claude Code CLI.
 *
 * Event lines with a type of their own (`command_lifecycle`, `rate_limit_event`, `tool_progress`,
 * … — see {@link CLAUDE_EVENT_LINE_TYPES}) become `system` messages with that `subtype`.
 * Control-protocol lines (`control_request`, `control_response`, `control_cancel_request`,
 * `keep_alive`) belong to the session, not here; if one arrives anyway it comes back as `unknown`.
 *
 * @throws MessageParseError only when `raw.type` is not a string (the line is not a message at all).
 */
export function parseClaudeMessage(raw: Record<string, unknown>): Message {
  if (!isObject(raw) || typeof raw.type !== "string") {
    throw new MessageParseError("Claude message has no string 'type' field", raw);
  }
  switch (raw.type) {
    case "user":
      return parseUser(raw);
    case "assistant":
      return parseAssistant(raw);
    case "system":
      return parseSystem(raw);
    case "result":
      return parseResult(raw);
    case "stream_event":
      return parseStreamEvent(raw);
    default:
      // Event lines with a type of their own are system events of that subtype.
      if (CLAUDE_EVENT_LINE_TYPES.has(raw.type)) {
        return withIds<SystemMessage>({ type: "system", subtype: raw.type, data: raw, raw }, raw);
      }
      return withIds<UnknownMessage>({ type: "unknown", wireType: raw.type, raw }, raw);
  }
}

/**
 * Parses one content block. Never throws: a block this SDK does not know (or a malformed one)
 * becomes `{ type: "unknown", wireType, raw }`.
 */
export function parseClaudeContentBlock(block: unknown): ContentBlock {
  if (!isObject(block)) return { type: "unknown", wireType: "", raw: { value: block } };
  switch (block.type) {
    case "text": {
      const text = block.text;
      return { type: "text", text: typeof text === "string" ? text : "" };
    }
    case "thinking":
      return { type: "thinking", thinking: str(block.thinking) ?? "", signature: str(block.signature) ?? "" };
    case "tool_use":
      return {
        type: "tool_use",
        id: str(block.id) ?? "",
        name: str(block.name) ?? "",
        input: asObject(block.input),
      };
    case "tool_result":
      return {
        type: "tool_result",
        toolUseId: str(block.tool_use_id) ?? "",
        content: block.content,
        isError: block.is_error === true,
      };
    default:
      return { type: "unknown", wireType: str(block.type) ?? "", raw: block };
  }
}

// The parsers below build each message in one fixed field order and set an optional field only
// when the wire has it (rather than deleting `undefined` ones afterwards, which would turn every
// message into a slow dictionary-mode object): messages of one type share one shape.

function parseUser(raw: RawObject): UserMessage {
  const content = asObject(raw.message).content;
  const out: UserMessage = {
    type: "user",
    content: typeof content === "string" ? content : blocks(content),
    parentToolUseId: str(raw.parent_tool_use_id) ?? null,
    raw,
  };
  // Kept only when present: `undefined` and "no tool output" must stay distinguishable.
  if ("tool_use_result" in raw) out.toolUseResult = raw.tool_use_result;
  if (typeof raw.isReplay === "boolean") out.isReplay = raw.isReplay;
  return withIds(out, raw);
}

function parseAssistant(raw: RawObject): AssistantMessage {
  // Every assistant message passes here: fields are read inline rather than through str() and
  // asObject(), which measured 5% of a 100 000-message session's time.
  const wire = raw.message;
  const message = isObject(wire) ? wire : EMPTY;
  const model = message.model;
  const parent = raw.parent_tool_use_id;
  const content = blocks(message.content);
  const modelName = typeof model === "string" ? model : "";
  const parentToolUseId = typeof parent === "string" ? parent : null;
  const messageId = message.id;
  const error = raw.error;
  const usage = message.usage;
  const sessionId = raw.session_id;
  const uuid = raw.uuid;
  // The two common shapes (the CLI's: id, usage, session and uuid; a minimal one: id and session)
  // built whole, fields in the order the general case below adds them: an object literal has no
  // room for fields added later, so each message would also get a property array (two, past three
  // fields).
  if (typeof messageId === "string" && typeof error !== "string" && typeof sessionId === "string") {
    if (isObject(usage) && typeof uuid === "string") {
      return {
        type: "assistant",
        content,
        model: modelName,
        parentToolUseId,
        raw,
        messageId,
        usage,
        sessionId,
        uuid,
      };
    }
    if (usage === undefined && uuid === undefined) {
      return { type: "assistant", content, model: modelName, parentToolUseId, raw, messageId, sessionId };
    }
  }
  const out: AssistantMessage = { type: "assistant", content, model: modelName, parentToolUseId, raw };
  if (typeof messageId === "string") out.messageId = messageId;
  if (typeof error === "string") out.error = error;
  if (isObject(usage)) out.usage = usage;
  return withIds(out, raw);
}

function parseSystem(raw: RawObject): SystemMessage {
  return withIds<SystemMessage>({ type: "system", subtype: str(raw.subtype) ?? "", data: raw, raw }, raw);
}

function parseResult(raw: RawObject): ResultMessage {
  const subtype = str(raw.subtype) ?? "";
  return compact<ResultMessage>({
    type: "result",
    subtype,
    // `is_error` is authoritative (API errors arrive as subtype "success" with is_error true); the
    // subtype is only a fallback for a line that lacks it.
    isError: typeof raw.is_error === "boolean" ? raw.is_error : subtype.startsWith("error"),
    durationMs: num(raw.duration_ms) ?? 0,
    durationApiMs: num(raw.duration_api_ms) ?? null,
    numTurns: num(raw.num_turns) ?? null,
    uuid: str(raw.uuid),
    sessionId: str(raw.session_id) ?? "",
    totalCostUsd: num(raw.total_cost_usd) ?? null,
    tokenUsage: tokenUsage(raw.usage),
    usage: isObject(raw.usage) ? raw.usage : undefined,
    modelUsage: isObject(raw.modelUsage) ? raw.modelUsage : undefined,
    result: str(raw.result),
    ...("structured_output" in raw ? { structuredOutput: raw.structured_output } : {}),
    errors: Array.isArray(raw.errors)
      ? raw.errors.filter((e): e is string => typeof e === "string")
      : undefined,
    stopReason: raw.stop_reason === null ? null : str(raw.stop_reason),
    terminalReason: str(raw.terminal_reason),
    permissionDenials: Array.isArray(raw.permission_denials) ? raw.permission_denials : undefined,
    apiErrorStatus: raw.api_error_status === null ? null : num(raw.api_error_status),
    raw,
  });
}

function parseStreamEvent(raw: RawObject): StreamEventMessage {
  const out: StreamEventMessage = {
    type: "stream_event",
    event: asObject(raw.event),
    parentToolUseId: str(raw.parent_tool_use_id) ?? null,
    raw,
  };
  return withIds(out, raw);
}

/** Stands in for an absent or ill-typed `message` object; only ever read. */
const EMPTY: RawObject = Object.freeze({}) as RawObject;

function blocks(content: unknown): ContentBlock[] {
  if (!Array.isArray(content)) return [];
  // Most messages carry a single block: one exact-size array, no callback.
  if (content.length === 1) return [parseClaudeContentBlock(content[0])];
  const out: ContentBlock[] = [];
  for (const block of content) out.push(parseClaudeContentBlock(block));
  return out;
}

/** Sets `sessionId` and `uuid` on `message` when the wire has them. */
function withIds<M extends Message>(message: M, raw: RawObject): M {
  const sessionId = raw.session_id;
  if (typeof sessionId === "string") message.sessionId = sessionId;
  const uuid = raw.uuid;
  if (typeof uuid === "string") message.uuid = uuid;
  return message;
}
