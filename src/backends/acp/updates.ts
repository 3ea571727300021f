/**
 * `session/update` notifications → the unified message model.
 *
 * | ACP update                          | message                                                         |
 * |-------------------------------------|-----------------------------------------------------------------|
 * | `agent_message_chunk` (text)        | assistant `text` block (consecutive chunks joined into one)      |
 * | `agent_thought_chunk` (text)        | assistant `thinking` block (likewise)                            |
 * | `tool_call`                         | assistant `tool_use` (name from `kind`, see {@link acpToolName}) |
 * | `tool_call_update` completed/failed | user `tool_result` (`isError` when failed)                       |
 * | `user_message_chunk`                | user message, `isReplay` (a `session/load` replays history)      |
 * | `plan`                              | system `todo_list`                                               |
 * | `available_commands_update`, `current_mode_update`, `config_option_update`, `session_info_update`, `usage_update`, others | system `acp_<sessionUpdate>` |
 * | the `session/prompt` response       | `result` (`stopReason`, `usage` when the agent gives them)       |
 *
 * `usage_update` (still a system message) also feeds the result's cost: `totalCostUsd` is the turn's
 * share of the session's cumulative `cost`, `sessionCostUsd` the cumulative amount (USD only; see
 * `turn-usage.ts`), and the prompt answer's `usage` becomes the turn's `tokenUsage`.
 *
 * Chunks are joined into one assistant message until something else arrives, the agent's
 * `messageId` changes, or the session flushes them ({@link AcpUpdateMapper.flushText}, which it does
 * shortly after the first chunk, so text never waits on the next update): a reply is a few assistant
 * messages rather than one per token. With `includePartialMessages` every chunk is also a
 * `stream_event` (`content_block_delta` with a `text_delta` or `thinking_delta`) whose `item_id` is
 * the `messageId` of the assistant message that will hold it.
 */

import type {
  AssistantMessage,
  ContentBlock,
  Message,
  RawObject,
  ResultMessage,
  SystemMessage,
} from "../../messages.js";
import { asObject, isObject, str } from "../../wire/read.js";
import { unifiedAcpInput } from "./tool-input.js";
import { type AcpTurnFigures, AcpTurnUsage } from "./turn-usage.js";

/**
 * The SDK's tool name for an ACP tool kind: the names the other backends use where one fits
 * (`execute` → `Bash`, `edit` → `Edit`, `read` → `Read`, `search` → `Grep`, `fetch` → `WebFetch`),
 * else the kind in PascalCase (`delete` → `Delete`, `move` → `Move`, `think` → `Think`,
 * `switch_mode` → `SwitchMode`); `other` or none: `Tool`. The input is the agent's own `rawInput`,
 * whose fields differ per agent.
 */
export function acpToolName(kind: unknown): string {
  switch (kind) {
    case "execute":
      return "Bash";
    case "edit":
      return "Edit";
    case "read":
      return "Read";
    case "search":
      return "Grep";
    case "fetch":
      return "WebFetch";
    case undefined:
    case null:
    case "other":
      return "Tool";
    default:
      return typeof kind === "string" && kind.length > 0
        ? kind.replace(/(^|_)([a-z])/g, (_m, _sep, c: string) => c.toUpperCase())
        : "Tool";
  }
}

/** The readable text of ACP tool-call content (`content` blocks, `diff`s, `terminal`s) or `rawOutput`. */
export function toolContentText(update: RawObject): string {
  const parts: string[] = [];
  const content = Array.isArray(update.content) ? update.content : [];
  for (const item of content) {
    const entry = asObject(item);
    if (entry.type === "content") {
      const block = asObject(entry.content);
      if (typeof block.text === "string") parts.push(block.text);
    } else if (entry.type === "diff") {
      parts.push(`diff ${String(entry.path)}`);
    }
  }
  if (parts.length > 0) return parts.join("\n");
  const raw = update.rawOutput;
  if (typeof raw === "string") return raw;
  if (Array.isArray(raw)) {
    // Text blocks, or Cline's per-call `{ query, result, success, error? }` entries (a failed one's
    // `result` is empty: its `error` is the text).
    const texts = raw
      .map((b) => {
        const entry = asObject(b);
        return (
          entry.text ??
          (entry.success === false && typeof entry.error === "string" ? entry.error : entry.result)
        );
      })
      .filter((t): t is string => typeof t === "string");
    if (texts.length > 0) return texts.join("\n");
  }
  if (isObject(raw)) {
    // CodeBuddy Code's is a text block: `{ type: "text", text }`.
    for (const key of ["output", "stdout", "content", "result", "message", "error", "text"]) {
      if (typeof raw[key] === "string") return raw[key] as string;
    }
    return JSON.stringify(raw);
  }
  return "";
}

interface ToolState {
  id: string;
  kind: unknown;
  title: unknown;
  input: Record<string, unknown>;
  /** The agent sent `rawInput`: that is the input, whatever else arrives. */
  rawInput: boolean;
  /** Without `rawInput`: the last content text that was a JSON object (Kimi streams its arguments so). */
  argsText?: string;
  /**
   * It opened pending with one empty text block and no `rawInput` (Kimi Code): the in-progress
   * updates whose content is JSON text are its arguments being streamed, not yet worth a tool_use.
   */
  awaitingArgs?: boolean;
  announced: boolean;
  /**
   * It opened with an empty `rawInput` while in progress: status-less updates with a `rawInput` are
   * its arguments half streamed (CodeBuddy Code parses the partial JSON into them), not its input.
   */
  streamingArgs?: boolean;
  /** The last `diff` content it showed: a file's path and its whole new text. */
  diff?: { path: string; newText: string };
  finished: boolean;
  raw: RawObject;
}

/** What the mapper needs from its session. */
export interface AcpMapperContext {
  /** The ACP session id (known once `session/new` or `session/load` answered). */
  sessionId(): string | undefined;
  /** The agent's name, reported as the assistant messages' `model`. */
  model: string;
  includePartialMessages: boolean;
  now?: () => number;
  /** The session was loaded or resumed: its cost before this process is not known. */
  resumed?: boolean;
  /** True when the agent's `session/prompt` `usage` is a running total (asked at each result). */
  cumulativeUsage?: () => boolean;
}

/** Turns one session's updates into messages; one instance per session, {@link beginTurn} per prompt. */
export class AcpUpdateMapper {
  private pending:
    | { kind: "text" | "thinking"; text: string; raw: RawObject[]; key: string; wireId: unknown }
    | undefined;
  private segments = 0;
  private readonly tools = new Map<string, ToolState>();
  /** The text of the turn's last assistant message: the result's `result`. */
  private turnText = "";
  private lastTextId: unknown;
  private turnStartedAt = 0;
  private replayUser: { text: string; raw: RawObject[] } | undefined;
  private readonly now: () => number;
  private readonly usage: AcpTurnUsage;

  constructor(private readonly ctx: AcpMapperContext) {
    this.now = ctx.now ?? Date.now;
    this.usage = new AcpTurnUsage(ctx.resumed === true, ctx.cumulativeUsage);
  }

  /** A prompt was sent: the result's text and duration count from here. */
  beginTurn(): void {
    this.turnText = "";
    this.lastTextId = undefined;
    this.turnStartedAt = this.now();
    this.tools.clear();
    this.usage.beginTurn();
  }

  /** The messages for one `session/update` notification (the whole JSON-RPC message). */
  map(notification: RawObject): Message[] {
    const params = asObject(notification.params);
    const update = asObject(params.update);
    const kind = str(update.sessionUpdate) ?? "unknown";
    const out: Message[] = [];
    if (kind === "usage_update") this.usage.onUsageUpdate(update);
    switch (kind) {
      case "agent_message_chunk":
      case "agent_thought_chunk": {
        this.flushReplayUser(out);
        const block = asObject(update.content);
        const text = typeof block.text === "string" ? block.text : undefined;
        if (text === undefined) {
          this.flush(out);
          out.push(this.system(`acp_${kind}`, update, notification));
          break;
        }
        const chunkKind = kind === "agent_message_chunk" ? "text" : "thinking";
        const wireId = update.messageId ?? undefined;
        if (this.pending && (this.pending.kind !== chunkKind || this.pending.wireId !== wireId))
          this.flush(out);
        this.pending ??= {
          kind: chunkKind,
          text: "",
          raw: [],
          key: `${typeof wireId === "string" ? wireId : "acp-message"}#${++this.segments}`,
          wireId,
        };
        this.pending.text += text;
        this.pending.raw.push(notification);
        if (chunkKind === "text") {
          // The result is the last message's text: a new message (by the agent's id) starts it over.
          if (wireId !== this.lastTextId) this.turnText = "";
          this.lastTextId = wireId;
          this.turnText += text;
        }
        if (this.ctx.includePartialMessages && text !== "") {
          out.push(this.delta(chunkKind, text, this.pending.key, notification));
        }
        break;
      }
      case "user_message_chunk": {
        this.flush(out);
        const text = str(asObject(update.content).text) ?? "";
        this.replayUser ??= { text: "", raw: [] };
        this.replayUser.text += text;
        this.replayUser.raw.push(notification);
        break;
      }
      case "tool_call":
      case "tool_call_update":
        this.flush(out);
        this.flushReplayUser(out);
        // Text before a tool call is not the answer; what comes after it is.
        this.turnText = "";
        this.onToolUpdate(kind, update, notification, out);
        break;
      case "plan":
        this.flush(out);
        out.push(this.system("todo_list", { items: update.entries ?? [], phase: "updated" }, notification));
        break;
      default:
        this.flush(out);
        this.flushReplayUser(out);
        out.push(this.system(`acp_${kind}`, update, notification));
    }
    return out;
  }

  /**
   * Announces a tool call before a permission is asked for it, so the caller sees the `tool_use`
   * before the decision. Returns the SDK tool name and input of the call.
   */
  toolForPermission(toolCall: RawObject, out: Message[]): { name: string; input: Record<string, unknown> } {
    this.flush(out);
    const id = str(toolCall.toolCallId) ?? "";
    const state = this.toolState(id, toolCall);
    merge(state, toolCall);
    this.announce(state, out);
    return { name: acpToolName(state.kind), input: this.inputOf(state) };
  }

  /**
   * The write a call showed as a `diff` (path and whole new text), for the client's `fs/write_text_file`
   * it leads to (CodeBuddy's Edit shows `old_string`/`new_string` as input and the new file as diff).
   */
  diffWrite(toolCallId: unknown): { file_path: string; content: string } | undefined {
    const diff = typeof toolCallId === "string" ? this.tools.get(toolCallId)?.diff : undefined;
    return diff && { file_path: diff.path, content: diff.newText };
  }

  /** The call's input in the SDK's tool vocabulary (see `unifiedAcpInput`). */
  private inputOf(state: ToolState): Record<string, unknown> {
    return unifiedAcpInput(acpToolName(state.kind), state.input, state.title, state.raw, state.argsText);
  }

  /** True while chunks wait to be joined into a message. */
  hasPendingText(): boolean {
    return this.pending !== undefined;
  }

  /** The buffered chunks as a message now (the next chunk starts a new one). */
  flushText(): Message[] {
    const out: Message[] = [];
    this.flush(out);
    return out;
  }

  /** Whatever is still buffered (the end of a turn or of a load). */
  flushAll(): Message[] {
    const out: Message[] = [];
    this.flush(out);
    this.flushReplayUser(out);
    for (const state of this.tools.values()) this.announce(state, out);
    return out;
  }

  /** The `result` of a finished `session/prompt` (`result`: the text of the turn's last message). */
  result(response: RawObject): ResultMessage {
    const stopReason = str(response.stopReason) ?? "end_turn";
    const usage = isObject(response.usage) ? response.usage : undefined;
    const figures = this.usage.finishTurn(usage);
    const cancelled = stopReason === "cancelled";
    const isError = cancelled || stopReason === "refusal";
    const subtype =
      stopReason === "max_turn_requests"
        ? "error_max_turns"
        : stopReason === "max_tokens"
          ? "error_max_tokens"
          : isError
            ? "error_during_execution"
            : "success";
    return this.resultMessage({
      subtype,
      isError: isError || subtype !== "success",
      stopReason,
      ...(cancelled ? { terminalReason: "interrupted" } : {}),
      ...(usage ? { usage } : {}),
      ...this.costFields(figures),
      raw: { type: "result", ...response, ...(figures.cost ? { cost: figures.cost } : {}) },
    });
  }

  /** The `result` of a `session/prompt` the agent answered with an error. */
  errorResult(message: string, raw: RawObject): ResultMessage {
    const figures = this.usage.finishTurn(undefined);
    return this.resultMessage({
      subtype: "error_during_execution",
      isError: true,
      errors: [message],
      result: message,
      ...this.costFields(figures),
      raw: { type: "result", error: raw, ...(figures.cost ? { cost: figures.cost } : {}) },
    });
  }

  private costFields(figures: AcpTurnFigures): Partial<ResultMessage> {
    return {
      totalCostUsd: figures.totalCostUsd,
      tokenUsage: figures.tokenUsage,
      ...(figures.sessionCostUsd !== undefined ? { sessionCostUsd: figures.sessionCostUsd } : {}),
    };
  }

  private resultMessage(
    fields: Partial<ResultMessage> & { subtype: string; isError: boolean; raw: RawObject },
  ): ResultMessage {
    const sessionId = this.ctx.sessionId() ?? "";
    const message: ResultMessage = {
      type: "result",
      durationMs: Math.max(0, this.now() - this.turnStartedAt),
      // ACP reports no API time or round trips: null, never a made-up number.
      durationApiMs: null,
      numTurns: null,
      sessionId,
      totalCostUsd: null,
      tokenUsage: null,
      result: this.turnText,
      ...fields,
    };
    return message;
  }

  private onToolUpdate(kind: string, update: RawObject, params: RawObject, out: Message[]): void {
    const id = str(update.toolCallId) ?? "";
    const state = this.toolState(id, params);
    const status = update.status;
    // CodeBuddy Code opens a call in progress with an empty rawInput, then streams its arguments as
    // status-less updates whose rawInput is the partial JSON parsed (keys and values cut short):
    // those are not its input, and the tool_use waits for a status, a permission request or the end.
    const partialArgs =
      state.streamingArgs === true &&
      kind === "tool_call_update" &&
      (status === undefined || status === null) &&
      isObject(update.rawInput);
    if (!partialArgs) merge(state, update);
    // The first `tool_call` often comes before the input is known (pending or in progress, empty
    // rawInput): the tool_use waits for the input, or for anything else to happen.
    const inputUnknown =
      kind === "tool_call" &&
      (status === "pending" || status === "in_progress") &&
      !state.rawInput &&
      isObject(update.rawInput);
    if (inputUnknown && status === "in_progress") state.streamingArgs = true;
    // Kimi Code opens a call with an empty text and no rawInput, then streams its arguments as JSON
    // text: the tool_use waits for the permission request (which names the command), the rawInput
    // that follows its start, or the end.
    const opening = kind === "tool_call" && status === "pending" && isEmptyTextOpening(update);
    if (opening) state.awaitingArgs = true;
    const streamingText =
      state.awaitingArgs === true &&
      kind === "tool_call_update" &&
      status === "in_progress" &&
      update.rawInput === undefined &&
      Array.isArray(update.content) &&
      toolContentText({ content: update.content }).startsWith("{");
    if (!inputUnknown && !partialArgs && !opening && !streamingText) this.announce(state, out);
    if ((status === "completed" || status === "failed") && !state.finished) {
      state.finished = true;
      this.announce(state, out);
      out.push({
        type: "user",
        content: [
          {
            type: "tool_result",
            toolUseId: id,
            content: toolContentText(update),
            isError: status === "failed",
          },
        ],
        parentToolUseId: null,
        sessionId: this.ctx.sessionId(),
        toolUseResult: update.rawOutput ?? update.content,
        raw: params,
      });
      // What the call was is in the messages now; kept is only that it finished (a late update must
      // not announce it again), so a long turn's finished calls do not pin their inputs and wire lines.
      state.raw = {};
      state.input = {};
      state.diff = undefined;
      state.argsText = undefined;
    }
  }

  private toolState(id: string, raw: RawObject): ToolState {
    let state = this.tools.get(id);
    if (!state) {
      state = {
        id,
        kind: undefined,
        title: undefined,
        input: {},
        rawInput: false,
        announced: false,
        finished: false,
        raw,
      };
      this.tools.set(id, state);
    }
    return state;
  }

  private announce(state: ToolState, out: Message[]): void {
    if (state.announced) return;
    state.announced = true;
    const block: ContentBlock = {
      type: "tool_use",
      id: state.id,
      name: acpToolName(state.kind),
      input: this.inputOf(state),
    };
    out.push(this.assistant([block], { ...state.raw, title: state.title }));
  }

  private flush(out: Message[]): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    const block: ContentBlock =
      pending.kind === "text"
        ? { type: "text", text: pending.text }
        : { type: "thinking", thinking: pending.text, signature: "" };
    // Agents send empty chunks (claude-code-acp opens each reply with one): nothing to report.
    if (pending.text === "") return;
    // One chunk: its notification as it came; several: all of them.
    const raw = pending.raw.length === 1 ? (pending.raw[0] as RawObject) : { chunks: pending.raw };
    out.push({ ...this.assistant([block], raw), messageId: pending.key });
  }

  private flushReplayUser(out: Message[]): void {
    const replay = this.replayUser;
    if (!replay) return;
    this.replayUser = undefined;
    out.push({
      type: "user",
      content: replay.text,
      parentToolUseId: null,
      isReplay: true,
      sessionId: this.ctx.sessionId(),
      raw: { chunks: replay.raw },
    });
  }

  private assistant(content: ContentBlock[], raw: RawObject): AssistantMessage {
    return {
      type: "assistant",
      content,
      model: this.ctx.model,
      parentToolUseId: null,
      sessionId: this.ctx.sessionId(),
      raw,
    };
  }

  private delta(kind: "text" | "thinking", text: string, key: string, raw: RawObject): Message {
    const delta = kind === "text" ? { type: "text_delta", text } : { type: "thinking_delta", thinking: text };
    return {
      type: "stream_event",
      event: { type: "content_block_delta", index: 0, item_id: key, delta },
      parentToolUseId: null,
      sessionId: this.ctx.sessionId(),
      raw,
    };
  }

  /** A system message whose `data` is `data` plus the session id. */
  system(subtype: string, data: RawObject, raw: RawObject): SystemMessage {
    const sessionId = this.ctx.sessionId();
    return { type: "system", subtype, data: { ...data, session_id: sessionId }, sessionId, raw };
  }
}

/** A `tool_call` with no `rawInput` whose content is one empty text block (Kimi Code's opening). */
function isEmptyTextOpening(update: RawObject): boolean {
  if (update.rawInput !== undefined || !Array.isArray(update.content) || update.content.length !== 1)
    return false;
  const entry = asObject(update.content[0]);
  return entry.type === "content" && asObject(entry.content).text === "";
}

function merge(state: ToolState, update: RawObject): void {
  for (const item of Array.isArray(update.content) ? update.content : []) {
    const entry = asObject(item);
    if (entry.type === "diff" && typeof entry.path === "string" && typeof entry.newText === "string")
      state.diff = { path: entry.path, newText: entry.newText };
  }
  if (update.kind !== undefined && update.kind !== null) state.kind = update.kind;
  if (update.title !== undefined && update.title !== null) state.title = update.title;
  if (isObject(update.rawInput) && Object.keys(update.rawInput).length > 0) {
    state.input = update.rawInput;
    state.rawInput = true;
    state.argsText = undefined;
  } else if (!state.rawInput) {
    state.input = describedInput(state.title, update, state.input);
    const text = Array.isArray(update.content) ? toolContentText({ content: update.content }) : "";
    if (text.startsWith("{")) state.argsText = text;
  }
}

/**
 * The input of a tool call whose agent sends no `rawInput` (Gemini CLI): what it shows instead, its
 * `title` (for a command, the command line), the text of its `content` as `description`, and its
 * `locations`. Nothing is made up: fields the agent did not send are absent.
 */
function describedInput(
  title: unknown,
  update: RawObject,
  previous: Record<string, unknown>,
): Record<string, unknown> {
  const input: Record<string, unknown> = { ...previous };
  if (typeof title === "string") input.title = title;
  const description = Array.isArray(update.content) ? toolContentText({ content: update.content }) : "";
  if (description !== "") input.description = description;
  if (Array.isArray(update.locations) && update.locations.length > 0) input.locations = update.locations;
  return input;
}
