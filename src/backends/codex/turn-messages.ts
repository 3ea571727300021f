/**
 * Builds unified messages from Codex items, turn by turn. Shared by the exec and app-server
 * sessions; each feeds it the items of its dialect (see `items.ts`).
 *
 * - agent message → assistant `text`; reasoning → assistant `thinking` (empty signature);
 * - tool item started → assistant `tool_use`; tool item completed → user `tool_result` (preceded by
 *   the `tool_use` if the start was never reported, e.g. a declined command);
 * - todo list → a `TodoWrite` tool_use and its tool_result each time the list is reported with a
 *   change (started, updated, completed), as Claude Code reports its todo list; the tool_use id is
 *   the item id, suffixed `#2`, `#3`… for later versions of the same list;
 * - non-fatal error item → system `codex_warning`; context compaction → system `compact_boundary`;
 * - any other item → system `codex_item` when it completes (`data.item` holds it).
 *
 * Every message keeps the wire line it came from in `raw`.
 */

import type {
  AssistantMessage,
  ContentBlock,
  Message,
  RawObject,
  ResultMessage,
  SystemMessage,
  ToolResultBlock,
  UserMessage,
} from "../../messages.js";
import { tokenUsage } from "../../session/token-usage.js";
import { type ItemView, todoInput } from "./items.js";

/** What the builder needs to know about the session. */
export interface TurnMessageContext {
  /** The thread id, once known. */
  sessionId(): string | undefined;
  /** The model, when known (`""` otherwise). */
  model(): string;
  /** Whether to parse the final text as JSON into `structuredOutput`. */
  structuredOutput: boolean;
}

/** How a turn ended, for {@link TurnMessages.result}. */
export interface TurnEnd {
  status: "completed" | "interrupted" | "failed";
  /** The failure text, for `failed` / `interrupted`. */
  error?: string;
  durationMs: number;
  usage?: RawObject;
  raw: RawObject;
}

/** Per-session message builder; {@link beginTurn} resets the per-turn state. */
export class TurnMessages {
  private toolUsesSent = new Set<string>();
  private lastText: string | undefined;
  /** Per todo list item: how many versions were reported, and the last one's JSON. */
  private todoVersions = new Map<string, { count: number; json: string }>();

  constructor(private readonly ctx: TurnMessageContext) {}

  /** Forgets the previous turn's final text and tool calls. */
  beginTurn(): void {
    this.toolUsesSent.clear();
    this.lastText = undefined;
    this.todoVersions.clear();
  }

  /** The last agent message of the current turn. */
  get finalText(): string | undefined {
    return this.lastText;
  }

  started(view: ItemView, raw: RawObject): Message[] {
    if (view.kind === "tool") return [this.toolUse(view.id, view.name, view.input, raw)];
    if (view.kind === "todo") return this.todoList(view.id, view.items, raw);
    return [];
  }

  updated(view: ItemView, raw: RawObject): Message[] {
    if (view.kind === "todo") return this.todoList(view.id, view.items, raw);
    return [];
  }

  completed(view: ItemView, raw: RawObject, item: RawObject): Message[] {
    switch (view.kind) {
      case "text":
        return [this.agentText(view.id, view.text, raw)];
      case "reasoning":
        return [this.assistant([{ type: "thinking", thinking: view.text, signature: "" }], view.id, raw)];
      case "tool": {
        const out: Message[] = [];
        if (!this.toolUsesSent.has(view.id)) out.push(this.toolUse(view.id, view.name, view.input, raw));
        const outcome = view.outcome ?? { content: "", isError: false };
        out.push(this.toolResult(view.id, outcome.content, outcome.isError, item, raw, outcome.exitCode));
        return out;
      }
      case "todo":
        return this.todoList(view.id, view.items, raw);
      case "warning":
        return [this.system("codex_warning", { message: view.message, item }, raw)];
      case "compaction":
        return [this.system("compact_boundary", { item }, raw)];
      case "user":
        return [];
      case "other":
        return [this.system("codex_item", { item_type: view.type, item }, raw)];
    }
  }

  /** A completed agent message: assistant `text`, and the turn's final text so far. */
  agentText(id: string, text: string, raw: RawObject): AssistantMessage {
    this.lastText = text;
    const sessionId = this.ctx.sessionId();
    if (id && sessionId !== undefined) {
      // The common case built whole, in the order of the fields added below: an object literal has
      // no room for fields added later, so each message would also get a property array.
      return {
        type: "assistant",
        content: [{ type: "text", text }],
        model: this.ctx.model(),
        parentToolUseId: null,
        raw,
        messageId: id,
        sessionId,
      };
    }
    // What `assistant` builds, built here: this runs for every agent message, and each function
    // on that path is one more thing V8 compiles (and compiles again into its callers).
    const message: AssistantMessage = {
      type: "assistant",
      content: [{ type: "text", text }],
      model: this.ctx.model(),
      parentToolUseId: null,
      raw,
    };
    if (id) message.messageId = id;
    if (sessionId !== undefined) message.sessionId = sessionId;
    return message;
  }

  /** A system message in this session. */
  system(subtype: string, data: RawObject, raw: RawObject): SystemMessage {
    const message: SystemMessage = { type: "system", subtype, data, raw };
    return withSession(message, this.ctx.sessionId());
  }

  /** The `result` that ends a turn. `result` is the final agent text, or the error text. */
  result(end: TurnEnd): ResultMessage {
    const isError = end.status !== "completed";
    const text = isError ? (end.error ?? defaultError(end.status)) : this.lastText;
    const message: ResultMessage = {
      type: "result",
      subtype: isError ? "error_during_execution" : "success",
      isError,
      durationMs: end.durationMs,
      // Codex reports neither API time, round trips nor cost: null, not a made-up number.
      durationApiMs: null,
      numTurns: null,
      sessionId: this.ctx.sessionId() ?? "",
      totalCostUsd: null,
      tokenUsage: tokenUsage(end.usage),
      stopReason: null,
      terminalReason: end.status,
      raw: end.raw,
    };
    if (text !== undefined) message.result = text;
    if (isError) message.errors = [message.result ?? defaultError(end.status)];
    if (end.usage) message.usage = end.usage;
    if (!isError && this.ctx.structuredOutput && this.lastText !== undefined) {
      const parsed = parseJson(this.lastText);
      if (parsed !== undefined) message.structuredOutput = parsed;
    }
    return message;
  }

  private assistant(content: ContentBlock[], messageId: string, raw: RawObject): AssistantMessage {
    const message: AssistantMessage = {
      type: "assistant",
      content,
      model: this.ctx.model(),
      parentToolUseId: null,
      raw,
    };
    if (messageId) message.messageId = messageId;
    return withSession(message, this.ctx.sessionId());
  }

  private toolUse(
    id: string,
    name: string,
    input: Record<string, unknown>,
    raw: RawObject,
  ): AssistantMessage {
    this.toolUsesSent.add(id);
    return this.assistant([{ type: "tool_use", id, name, input }], id, raw);
  }

  private toolResult(
    id: string,
    content: unknown,
    isError: boolean,
    item: RawObject,
    raw: RawObject,
    exitCode?: number,
  ) {
    const block: ToolResultBlock = { type: "tool_result", toolUseId: id, content, isError };
    if (exitCode !== undefined) block.exitCode = exitCode;
    const message: UserMessage = {
      type: "user",
      content: [block],
      parentToolUseId: null,
      toolUseResult: item,
      raw,
    };
    return withSession(message, this.ctx.sessionId());
  }

  /** A `TodoWrite` call and its result, unless this version of the list was already reported. */
  todoList(itemId: string, items: unknown[], raw: RawObject): Message[] {
    const input = todoInput(items);
    const json = JSON.stringify(input);
    const seen = this.todoVersions.get(itemId);
    if (seen?.json === json) return [];
    const count = (seen?.count ?? 0) + 1;
    this.todoVersions.set(itemId, { count, json });
    const id = count === 1 ? itemId : `${itemId}#${count}`;
    return [this.toolUse(id, "TodoWrite", input, raw), this.toolResult(id, "", false, raw, raw)];
  }
}

function withSession<T extends { sessionId?: string | undefined }>(
  message: T,
  sessionId: string | undefined,
): T {
  if (sessionId !== undefined) message.sessionId = sessionId;
  return message;
}

function defaultError(status: TurnEnd["status"]): string {
  return status === "interrupted" ? "The turn was interrupted" : "The turn failed";
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
