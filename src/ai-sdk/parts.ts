/**
 * This SDK's unified messages → AI SDK stream parts (the `LanguageModelV3StreamPart`s a provider
 * streams): text and reasoning as start/delta/end, the agent's own tool calls and their results as
 * provider-executed dynamic tool parts under the unified tool names, and the finish with usage and
 * provider metadata. One mapper per call; it keeps the little state the mapping needs.
 */
import type {
  JSONObject,
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  SharedV3ProviderMetadata,
} from "@ai-sdk/provider";
import type { ContentBlock, Message, ResultMessage } from "../messages.js";
import type { BackendKind } from "../options.js";
import { describeValue, trySerialise } from "../wire/safe-json.js";
import { AgentTurnError } from "./errors.js";
import { METADATA_KEY } from "./metadata.js";
import { usageOf } from "./usage.js";

/** Claude Code's structured-output tool: an implementation detail of `outputFormat`, never shown. */
const STRUCTURED_OUTPUT_TOOL = "StructuredOutput";

/** Options of {@link PartMapper}. */
export interface PartMapperOptions {
  backend: BackendKind;
  /**
   * The call asked for JSON and the backend produces it natively (`outputFormat`): the turn's text
   * is held back and the result's structured output becomes the one text part.
   */
  nativeJson: boolean;
  /** The name the caller knows a tool by (the caller's own tools lose their MCP prefix). Default: as is. */
  toolName?: (wireName: string) => string;
}

/** Parses JSON from the wire as a JSON value for provider metadata; `undefined` when it has no JSON form. */
export function jsonSafe(value: unknown): JSONObject | undefined {
  const s = trySerialise(value);
  if (!s.ok) return undefined;
  const parsed = JSON.parse(s.line) as unknown;
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
    ? (parsed as JSONObject)
    : undefined;
}

/** The mapping state of one call. */
export class PartMapper {
  private sessionId: string | undefined;
  private result: ResultMessage | undefined;
  private sentMetadata = false;
  private nextId = 0;
  /** Ids of API messages whose text and reasoning arrived as stream events (not to be sent twice). */
  private readonly streamed = new Set<string>();
  /** Blocks open in the current streamed message, by content index. */
  private readonly open = new Map<number, { kind: "text" | "reasoning" | "tool"; id: string }>();
  /** Tool names by call id, for the results. */
  private readonly toolNames = new Map<string, string>();
  /** Calls not shown to the caller (the structured-output tool), whose results are hidden too. */
  private readonly hidden = new Set<string>();
  private readonly heldText: string[] = [];
  /** The run failed before its result (see {@link PartMapper.finish}). */
  private failed = false;
  /** Tool calls whose input arrived as stream events. */
  private readonly inputStreamed = new Set<string>();
  /** Tool calls shown already (by {@link PartMapper.ensureToolCall} before the agent's message), with their input. */
  private readonly shownCalls = new Map<string, string>();

  constructor(private readonly options: PartMapperOptions) {}

  /** The session id seen so far. */
  get session(): string | undefined {
    return this.sessionId;
  }

  /** The turn's result, once it arrived. */
  get turnResult(): ResultMessage | undefined {
    return this.result;
  }

  /** The parts one message maps to (often none). */
  map(message: Message): LanguageModelV3StreamPart[] {
    if (message.sessionId && !this.sessionId) this.sessionId = message.sessionId;
    const out: LanguageModelV3StreamPart[] = [];
    if (!this.sentMetadata && this.sessionId) {
      this.sentMetadata = true;
      const model =
        message.type === "system" && typeof message.data.model === "string" ? message.data.model : undefined;
      out.push({
        type: "response-metadata",
        id: this.sessionId,
        timestamp: new Date(),
        ...(model ? { modelId: model } : {}),
      });
    }
    // What an ACP session/load replays is history the caller has: not this turn's answer.
    if ((message.type === "assistant" || message.type === "user") && message.isReplay) return out;
    switch (message.type) {
      case "stream_event":
        if (message.parentToolUseId === null) this.streamEvent(message.event, out);
        break;
      case "assistant":
        if (message.parentToolUseId === null) this.assistant(message.content, message.messageId, out);
        break;
      case "user":
        if (message.parentToolUseId === null && Array.isArray(message.content))
          this.toolResults(message.content, out);
        break;
      case "result":
        this.result = message;
        if (message.sessionId) this.sessionId ??= message.sessionId;
        break;
      default:
        break;
    }
    return out;
  }

  /**
   * The closing parts: the structured answer (JSON mode), an error for a failed turn, the finish.
   * `failed`: the run failed without a result (the caller has sent the error part).
   */
  finish(failed = false): LanguageModelV3StreamPart[] {
    this.failed = failed;
    const out: LanguageModelV3StreamPart[] = [];
    for (const [, block] of this.open) this.close(block, out);
    this.open.clear();
    const result = this.result;
    if (this.options.nativeJson) {
      const answer =
        result?.structuredOutput !== undefined
          ? trySerialise(result.structuredOutput)
          : { ok: true as const, line: this.heldText.join("") };
      if (answer.ok && answer.line !== "") this.text(answer.line, out);
    }
    if (result?.isError) {
      const detail = result.errors?.length ? result.errors.join("; ") : (result.result ?? result.subtype);
      out.push({
        type: "error",
        error: new AgentTurnError(
          `The agent's turn failed (${result.subtype}): ${detail}`,
          result.subtype,
          result.sessionId,
        ),
      });
    }
    out.push({
      type: "finish",
      finishReason: this.finishReason(),
      usage: usageOf(result, this.options.backend, jsonSafe(result?.usage)),
      providerMetadata: this.finishMetadata(),
    });
    return out;
  }

  /**
   * The tool call `toolCallId`, unless it was shown already: a permission request can arrive before
   * the message carrying its call has been read (or, from some backends, without one).
   */
  ensureToolCall(
    toolCallId: string,
    wireName: string,
    input: Record<string, unknown>,
    out: LanguageModelV3StreamPart[],
  ): void {
    if (this.shownCalls.has(toolCallId)) return;
    this.toolCall(toolCallId, wireName, input, out);
  }

  /**
   * The tool call `toolCallId` again, as shown before: a call that goes on with an approved (or
   * denied) tool shows its call ahead of its result, as the AI SDK wants a result's call in the
   * same response.
   */
  repeatToolCall(toolCallId: string): LanguageModelV3StreamPart[] {
    const toolName = this.toolNames.get(toolCallId);
    const input = this.shownCalls.get(toolCallId);
    if (toolName === undefined || input === undefined) return [];
    const providerMetadata = this.partMetadata();
    return [
      {
        type: "tool-call",
        toolCallId,
        toolName,
        input,
        providerExecuted: true,
        dynamic: true,
        ...(providerMetadata ? { providerMetadata } : {}),
      },
    ];
  }

  /**
   * The parts that end a call whose turn waits for the caller's approval: open blocks closed, a
   * finish with reason `tool-calls` (raw `tool-approval-request`) and no usage yet.
   */
  pause(): LanguageModelV3StreamPart[] {
    const out: LanguageModelV3StreamPart[] = [];
    for (const [, block] of this.open) this.close(block, out);
    this.open.clear();
    out.push({
      type: "finish",
      finishReason: { unified: "tool-calls", raw: "tool-approval-request" },
      usage: usageOf(undefined, this.options.backend, undefined),
      providerMetadata: this.finishMetadata(),
    });
    return out;
  }

  private finishReason(): LanguageModelV3FinishReason {
    const result = this.result;
    if (!result) return { unified: this.failed ? "error" : "other", raw: undefined };
    const raw = result.stopReason ?? result.subtype;
    if (result.isError) return { unified: result.subtype === "error_max_turns" ? "length" : "error", raw };
    if (result.stopReason === "max_tokens") return { unified: "length", raw };
    if (result.stopReason === "refusal") return { unified: "content-filter", raw };
    return { unified: "stop", raw };
  }

  private finishMetadata(): SharedV3ProviderMetadata {
    const r = this.result;
    const entry: JSONObject = { backend: this.options.backend };
    if (this.sessionId) entry.sessionId = this.sessionId;
    if (r) {
      entry.costUsd = r.totalCostUsd;
      entry.durationMs = r.durationMs;
      entry.numTurns = r.numTurns;
      entry.isError = r.isError;
      entry.subtype = r.subtype;
      const raw = jsonSafe(r.raw);
      if (raw) entry.result = raw;
    }
    return { [METADATA_KEY]: entry };
  }

  private partMetadata(): SharedV3ProviderMetadata | undefined {
    return this.sessionId
      ? { [METADATA_KEY]: { sessionId: this.sessionId, backend: this.options.backend } }
      : undefined;
  }

  private toolName(wireName: string): string {
    return this.options.toolName ? this.options.toolName(wireName) : wireName;
  }

  private id(prefix: string): string {
    this.nextId += 1;
    return `${prefix}-${this.nextId}`;
  }

  private text(text: string, out: LanguageModelV3StreamPart[]): void {
    const id = this.id("text");
    const providerMetadata = this.partMetadata();
    const meta = providerMetadata ? { providerMetadata } : {};
    out.push(
      { type: "text-start", id, ...meta },
      { type: "text-delta", id, delta: text },
      { type: "text-end", id, ...meta },
    );
  }

  private reasoning(text: string, out: LanguageModelV3StreamPart[]): void {
    const id = this.id("reasoning");
    const providerMetadata = this.partMetadata();
    const meta = providerMetadata ? { providerMetadata } : {};
    out.push(
      { type: "reasoning-start", id, ...meta },
      { type: "reasoning-delta", id, delta: text },
      { type: "reasoning-end", id, ...meta },
    );
  }

  private close(
    block: { kind: "text" | "reasoning" | "tool"; id: string },
    out: LanguageModelV3StreamPart[],
  ): void {
    const providerMetadata = this.partMetadata();
    const meta = providerMetadata ? { providerMetadata } : {};
    if (block.kind === "text") out.push({ type: "text-end", id: block.id, ...meta });
    else if (block.kind === "reasoning") out.push({ type: "reasoning-end", id: block.id, ...meta });
    else out.push({ type: "tool-input-end", id: block.id });
  }

  /** Claude's partial messages (`includePartialMessages`): live deltas. */
  private streamEvent(event: Record<string, unknown>, out: LanguageModelV3StreamPart[]): void {
    const index = typeof event.index === "number" ? event.index : -1;
    switch (event.type) {
      case "message_start": {
        const id = (event.message as { id?: unknown } | undefined)?.id;
        if (typeof id === "string") this.streamed.add(id);
        this.open.clear();
        break;
      }
      case "content_block_start": {
        const block = event.content_block as { type?: unknown; id?: unknown; name?: unknown } | undefined;
        const providerMetadata = this.partMetadata();
        const meta = providerMetadata ? { providerMetadata } : {};
        if (block?.type === "text" && !this.options.nativeJson) {
          const id = this.id("text");
          this.open.set(index, { kind: "text", id });
          out.push({ type: "text-start", id, ...meta });
        } else if (block?.type === "thinking") {
          const id = this.id("reasoning");
          this.open.set(index, { kind: "reasoning", id });
          out.push({ type: "reasoning-start", id, ...meta });
        } else if (
          block?.type === "tool_use" &&
          typeof block.id === "string" &&
          typeof block.name === "string" &&
          !this.shownCalls.has(block.id)
        ) {
          if (this.options.nativeJson && block.name === STRUCTURED_OUTPUT_TOOL) break;
          this.open.set(index, { kind: "tool", id: block.id });
          this.inputStreamed.add(block.id);
          out.push({
            type: "tool-input-start",
            id: block.id,
            toolName: this.toolName(block.name),
            providerExecuted: true,
            dynamic: true,
            ...meta,
          });
        }
        break;
      }
      case "content_block_delta": {
        const block = this.open.get(index);
        const delta = event.delta as {
          type?: unknown;
          text?: unknown;
          thinking?: unknown;
          partial_json?: unknown;
        };
        if (!block || !delta) break;
        if (block.kind === "text" && delta.type === "text_delta" && typeof delta.text === "string")
          out.push({ type: "text-delta", id: block.id, delta: delta.text });
        else if (
          block.kind === "reasoning" &&
          delta.type === "thinking_delta" &&
          typeof delta.thinking === "string"
        )
          out.push({ type: "reasoning-delta", id: block.id, delta: delta.thinking });
        else if (
          block.kind === "tool" &&
          delta.type === "input_json_delta" &&
          typeof delta.partial_json === "string"
        )
          out.push({ type: "tool-input-delta", id: block.id, delta: delta.partial_json });
        break;
      }
      case "content_block_stop": {
        const block = this.open.get(index);
        if (block) {
          this.close(block, out);
          this.open.delete(index);
        }
        break;
      }
      default:
        break;
    }
  }

  private assistant(
    blocks: ContentBlock[],
    messageId: string | undefined,
    out: LanguageModelV3StreamPart[],
  ): void {
    const streamed = messageId !== undefined && this.streamed.has(messageId);
    for (const block of blocks) {
      if (block.type === "text") {
        if (this.options.nativeJson) this.heldText.push(block.text);
        else if (!streamed && block.text !== "") this.text(block.text, out);
      } else if (block.type === "thinking") {
        if (!streamed && block.thinking !== "") this.reasoning(block.thinking, out);
      } else if (block.type === "tool_use") {
        if (this.options.nativeJson && block.name === STRUCTURED_OUTPUT_TOOL) {
          this.hidden.add(block.id);
          continue;
        }
        if (this.shownCalls.has(block.id)) continue;
        this.toolCall(block.id, block.name, block.input, out);
      }
    }
  }

  /** A tool call's parts (input start, delta and end unless streamed, then the call). */
  private toolCall(id: string, wireName: string, rawInput: unknown, out: LanguageModelV3StreamPart[]): void {
    const toolName = this.toolName(wireName);
    this.toolNames.set(id, toolName);
    // Claude Code sends the whole block before its content_block_stop: end the input first.
    for (const [index, open] of this.open) {
      if (open.kind === "tool" && open.id === id) {
        this.close(open, out);
        this.open.delete(index);
      }
    }
    const input = trySerialise(rawInput);
    this.shownCalls.set(id, input.ok ? input.line : "{}");
    const providerMetadata = this.partMetadata();
    const meta = providerMetadata ? { providerMetadata } : {};
    if (!this.inputStreamed.has(id)) {
      // The backend gives the call whole: its input as one delta, so every backend shows a
      // call the same way (input-streaming, then input-available) in the AI SDK's UI.
      out.push(
        { type: "tool-input-start", id, toolName, providerExecuted: true, dynamic: true, ...meta },
        { type: "tool-input-delta", id, delta: input.ok ? input.line : "{}" },
        { type: "tool-input-end", id },
      );
    }
    out.push({
      type: "tool-call",
      toolCallId: id,
      toolName,
      input: input.ok ? input.line : "{}",
      providerExecuted: true,
      dynamic: true,
      ...(providerMetadata ? { providerMetadata } : {}),
    });
  }

  private toolResults(blocks: ContentBlock[], out: LanguageModelV3StreamPart[]): void {
    for (const block of blocks) {
      if (block.type !== "tool_result" || this.hidden.has(block.toolUseId)) continue;
      const toolName = this.toolNames.get(block.toolUseId);
      if (toolName === undefined) continue;
      const providerMetadata = this.partMetadata();
      out.push({
        type: "tool-result",
        toolCallId: block.toolUseId,
        toolName,
        result: resultValue(block.content, block.exitCode),
        ...(block.isError ? { isError: true } : {}),
        dynamic: true,
        ...(providerMetadata ? { providerMetadata } : {}),
      });
    }
  }
}

/** A tool result's content as JSON: its text when it is text (or text blocks), else the JSON itself. */
function resultValue(content: unknown, exitCode: number | undefined): NonNullable<JSONObject[string]> {
  let value: NonNullable<JSONObject[string]>;
  if (typeof content === "string") value = content;
  else if (
    Array.isArray(content) &&
    content.every((b) => typeof b === "object" && b !== null && (b as { type?: unknown }).type === "text")
  )
    value = content.map((b) => String((b as { text?: unknown }).text ?? "")).join("");
  else {
    const s = trySerialise(content ?? "");
    value = s.ok ? (JSON.parse(s.line) as NonNullable<JSONObject[string]>) : describeValue(content);
  }
  return exitCode === undefined ? value : { output: value, exitCode };
}
