/**
 * Maps the stream-json events of one Cursor Agent turn onto the unified message model.
 *
 * Stateful per turn (one parser per process): Cursor streams thinking and, with
 * `--stream-partial-output`, text as deltas, and the parser assembles them so that every piece of
 * text reaches the caller exactly once as an `assistant` message, with the deltas alongside as
 * `stream_event`s. Lenient like the Claude parser: odd fields get neutral defaults, unknown events
 * pass through as `unknown`, and nothing here throws.
 *
 * Mapping (wire → message):
 * - `system` → `system` (`init` carries the chat id as `sessionId`, and `model`, `cwd`).
 * - `user` → `user` (the prompt echo).
 * - `assistant` → `assistant` text. With partial output, a line with `timestamp_ms` and no
 *   `model_call_id` is a delta → `stream_event` `content_block_delta`/`text_delta`; the whole
 *   message that follows is the `assistant` message. Deltas no whole message follows are assembled
 *   into one; a later whole message repeating delivered text is dropped.
 * - `thinking` `delta` → accumulated (and a `thinking_delta` stream event with partial output);
 *   `completed` → an `assistant` message with one thinking block (empty signature).
 * - `tool_call` `started` → `assistant` with a `tool_use` block; `completed` → `user` with a
 *   `tool_result` block (`isError` unless the outcome is `success`), keyed by `call_id`.
 * - `result` → `result`. `error` → held; the session turns it into an error `result` if the
 *   process ends without one, or it is delivered as a `system` message (`subtype: "error"`).
 */

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
import { decodeCursorToolCall } from "./tool-call.js";

/** How the turn was started. */
export interface CursorParserOptions {
  /** `--stream-partial-output` was passed: text deltas are expected and become stream events. */
  partialOutput: boolean;
}

/** Parses the events of one turn, in order. */
export class CursorTurnParser {
  /** The chat id, from the last event that carried `session_id`. */
  sessionId: string | undefined;
  /** The model named by `system/init`. */
  model = "";
  /** A `result` event has been parsed. */
  sawResult = false;
  /** An `error` event that came before any `result`; the session decides what it becomes. */
  pendingError: RawObject | undefined;

  private readonly partialOutput: boolean;
  /** Text deltas of the current segment, not yet delivered as an assistant message. */
  private segment = "";
  /** Text of every assistant message delivered this turn, in order. */
  private readonly delivered: string[] = [];
  /** Segments assembled from deltas whose own whole message has not been seen (yet). */
  private readonly assembled: string[] = [];
  private thinking = "";
  private readonly startedCalls = new Set<string>();

  constructor(options: CursorParserOptions) {
    this.partialOutput = options.partialOutput;
  }

  /** The messages for one event (possibly none, possibly several). */
  parse(raw: RawObject): Message[] {
    const sessionId = str(raw.session_id);
    if (sessionId) this.sessionId = sessionId;
    switch (raw.type) {
      case "assistant":
        return this.onAssistant(raw);
      case "thinking":
        return this.onThinking(raw);
      case "system":
        if (raw.subtype === "init" && typeof raw.model === "string") this.model = raw.model;
        return [...this.flush(), this.system(str(raw.subtype) ?? "", raw)];
      case "user":
        return [...this.flush(), this.user(raw)];
      case "tool_call":
        return [...this.flush(), ...this.onToolCall(raw)];
      case "result":
        return [...this.flush(), ...this.onResult(raw)];
      case "error":
        return [...this.flush(), ...this.onError(raw)];
      default:
        return [...this.flush(), this.unknown(raw)];
    }
  }

  /** Delivers whatever is still assembled from deltas. Call when the turn's output ends. */
  finish(): Message[] {
    return this.flush();
  }

  private onAssistant(raw: RawObject): Message[] {
    const message = asObject(raw.message);
    const blocks = contentBlocks(message.content);
    const text = textOf(blocks);
    const isDelta =
      this.partialOutput && typeof raw.timestamp_ms === "number" && raw.model_call_id === undefined;
    const out = this.flushThinking();
    if (isDelta) {
      this.segment += text;
      out.push(this.streamEvent({ type: "content_block_delta", delta: { type: "text_delta", text } }, raw));
      return out;
    }
    const fromDeltas = this.segment;
    this.segment = "";
    if (fromDeltas === "") {
      // A whole message for a segment already assembled from its deltas.
      const index = this.assembled.indexOf(text);
      if (text !== "" && index >= 0) {
        this.assembled.splice(index, 1);
        return out;
      }
    }
    let content = blocks;
    const before = this.delivered.join("");
    if (before !== "" && text === before + fromDeltas) {
      // A consolidated message repeating the whole turn: only its new part is news.
      if (fromDeltas === "") return out;
      content = [{ type: "text", text: fromDeltas }];
    }
    this.delivered.push(textOf(content));
    out.push(this.assistant(content, raw));
    return out;
  }

  private onThinking(raw: RawObject): Message[] {
    const out = this.flushText();
    const text = str(raw.text) ?? "";
    if (raw.subtype === "delta") {
      this.thinking += text;
      if (this.partialOutput && text !== "") {
        out.push(
          this.streamEvent(
            { type: "content_block_delta", delta: { type: "thinking_delta", thinking: text } },
            raw,
          ),
        );
      }
      return out;
    }
    if (raw.subtype === "completed") {
      const thinking = this.thinking || text;
      this.thinking = "";
      if (thinking !== "") out.push(this.assistant([{ type: "thinking", thinking, signature: "" }], raw));
      return out;
    }
    out.push(this.unknown(raw));
    return out;
  }

  private onToolCall(raw: RawObject): Message[] {
    const callId = str(raw.call_id) ?? "";
    const call = decodeCursorToolCall(raw.tool_call);
    const toolUse: ContentBlock = { type: "tool_use", id: callId, name: call.name, input: call.input };
    if (raw.subtype === "started") {
      this.startedCalls.add(callId);
      return [this.assistant([toolUse], raw)];
    }
    if (raw.subtype !== "completed") return [this.unknown(raw)];
    const out: Message[] = [];
    // A result must always follow its use, even if the `started` line was never seen.
    if (!this.startedCalls.delete(callId)) out.push(this.assistant([toolUse], raw));
    const outcome = call.outcome ?? { isError: false, content: "", value: undefined };
    out.push(
      compact<UserMessage>({
        type: "user",
        content: [
          outcome.exitCode === undefined
            ? { type: "tool_result", toolUseId: callId, content: outcome.content, isError: outcome.isError }
            : {
                type: "tool_result",
                toolUseId: callId,
                content: outcome.content,
                isError: outcome.isError,
                exitCode: outcome.exitCode,
              },
        ],
        parentToolUseId: null,
        toolUseResult: outcome.value,
        sessionId: str(raw.session_id),
        raw,
      }),
    );
    return out;
  }

  /**
   * Cost and tokens: no Cursor `result` seen (a real capture of 2026.01.28: `duration_ms`,
   * `duration_api_ms`, `is_error`, `result`, `session_id`, `request_id`; drivers also mention
   * `usage`) carries `total_cost_usd`, so `totalCostUsd` is `null` in practice. Each turn is its own
   * process (`--resume <chatId>`), so a `usage` there is taken as that turn's; whether a
   * `total_cost_usd`, if Cursor ever sends one, is the run's or the chat's running total (as Claude
   * Code's is) no capture can tell: it is passed through as this turn's cost, unverified.
   */
  private onResult(raw: RawObject): Message[] {
    const out: Message[] = [];
    // An error the CLI reported before its own result: news, but not the turn's end.
    if (this.pendingError) out.push(this.system("error", this.pendingError));
    this.pendingError = undefined;
    this.sawResult = true;
    const subtype = str(raw.subtype) ?? "";
    out.push(
      compact<ResultMessage>({
        type: "result",
        subtype,
        isError: typeof raw.is_error === "boolean" ? raw.is_error : subtype !== "success",
        durationMs: num(raw.duration_ms) ?? 0,
        durationApiMs: num(raw.duration_api_ms) ?? null,
        numTurns: num(raw.num_turns) ?? null,
        sessionId: str(raw.session_id) ?? this.sessionId ?? "",
        totalCostUsd: num(raw.total_cost_usd) ?? null,
        tokenUsage: tokenUsage(raw.usage),
        usage: isObject(raw.usage) ? raw.usage : undefined,
        result: str(raw.result),
        errors: typeof raw.error === "string" ? [raw.error] : undefined,
        raw,
      }),
    );
    return out;
  }

  private onError(raw: RawObject): Message[] {
    if (this.sawResult || this.pendingError) return [this.system("error", raw)];
    this.pendingError = raw;
    return [];
  }

  private flush(): Message[] {
    return [...this.flushThinking(), ...this.flushText()];
  }

  private flushText(): Message[] {
    const text = this.segment;
    if (text === "") return [];
    this.segment = "";
    this.assembled.push(text);
    this.delivered.push(text);
    const raw = {
      type: "assistant",
      message: { role: "assistant", content: [{ type: "text", text }] },
      ...(this.sessionId ? { session_id: this.sessionId } : {}),
      sdk_assembled_from_deltas: true,
    };
    return [this.assistant([{ type: "text", text }], raw)];
  }

  private flushThinking(): Message[] {
    const thinking = this.thinking;
    if (thinking === "") return [];
    this.thinking = "";
    const raw = {
      type: "thinking",
      subtype: "completed",
      text: thinking,
      ...(this.sessionId ? { session_id: this.sessionId } : {}),
      sdk_assembled_from_deltas: true,
    };
    return [this.assistant([{ type: "thinking", thinking, signature: "" }], raw)];
  }

  private assistant(content: ContentBlock[], raw: RawObject): AssistantMessage {
    return compact<AssistantMessage>({
      type: "assistant",
      content,
      model: this.model,
      parentToolUseId: null,
      sessionId: str(raw.session_id),
      raw,
    });
  }

  private user(raw: RawObject): UserMessage {
    const message = asObject(raw.message);
    const content = message.content;
    return compact<UserMessage>({
      type: "user",
      content: typeof content === "string" ? content : contentBlocks(content),
      parentToolUseId: null,
      sessionId: str(raw.session_id),
      raw,
    });
  }

  private system(subtype: string, raw: RawObject): SystemMessage {
    return compact<SystemMessage>({
      type: "system",
      subtype,
      data: raw,
      sessionId: str(raw.session_id),
      raw,
    });
  }

  private streamEvent(event: RawObject, raw: RawObject): StreamEventMessage {
    return compact<StreamEventMessage>({
      type: "stream_event",
      event,
      parentToolUseId: null,
      sessionId: str(raw.session_id),
      raw,
    });
  }

  private unknown(raw: RawObject): UnknownMessage {
    return compact<UnknownMessage>({
      type: "unknown",
      wireType: str(raw.type) ?? "",
      sessionId: str(raw.session_id),
      raw,
    });
  }
}

/** What the session knows about a turn that ended without a `result`. */
export interface SyntheticResultContext {
  sessionId: string | undefined;
  /** Wall time of the turn, in milliseconds. */
  durationMs: number;
}

/** The `result` for a turn whose process ended after an `error` event and no `result`. */
export function resultFromError(error: RawObject, ctx: SyntheticResultContext): ResultMessage {
  const text = errorText(error);
  return compact<ResultMessage>({
    type: "result",
    subtype: "error_during_execution",
    isError: true,
    durationMs: ctx.durationMs,
    durationApiMs: null,
    numTurns: null,
    sessionId: str(error.session_id) ?? ctx.sessionId ?? "",
    totalCostUsd: null,
    tokenUsage: null,
    result: text,
    errors: [text],
    raw: error,
  });
}

/** The `result` for a turn ended by `interrupt()` (Cursor interrupts by ending the process). */
export function interruptedResult(ctx: SyntheticResultContext): ResultMessage {
  const sessionId = ctx.sessionId ?? "";
  return {
    type: "result",
    subtype: "error_during_execution",
    isError: true,
    durationMs: ctx.durationMs,
    durationApiMs: null,
    numTurns: null,
    sessionId,
    totalCostUsd: null,
    tokenUsage: null,
    terminalReason: "interrupted",
    raw: {
      type: "result",
      subtype: "error_during_execution",
      is_error: true,
      duration_ms: ctx.durationMs,
      session_id: sessionId,
      terminal_reason: "interrupted",
      sdk_synthesized: true,
    },
  };
}

function errorText(error: RawObject): string {
  if (typeof error.message === "string") return error.message;
  if (typeof error.error === "string") return error.error;
  if (isObject(error.error) && typeof error.error.message === "string") return error.error.message;
  return "cursor-agent reported an error";
}

function contentBlocks(content: unknown): ContentBlock[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  return content.map((block): ContentBlock => {
    if (isObject(block) && block.type === "text") return { type: "text", text: str(block.text) ?? "" };
    if (isObject(block)) return { type: "unknown", wireType: str(block.type) ?? "", raw: block };
    return { type: "unknown", wireType: "", raw: { value: block } };
  });
}

function textOf(blocks: ContentBlock[]): string {
  return blocks.map((b) => (b.type === "text" ? b.text : "")).join("");
}
