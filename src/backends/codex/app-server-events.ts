/**
 * Maps `codex app-server` notifications onto the unified message model:
 *
 * | notification                            | message                                                |
 * |-----------------------------------------|--------------------------------------------------------|
 * | `item/started`, `item/completed`        | as for exec items (see `turn-messages.ts`)             |
 * | `item/agentMessage/delta`               | `stream_event` `content_block_delta` / `text_delta`    |
 * | `item/reasoning/summaryTextDelta`, …    | `stream_event` `content_block_delta` / `thinking_delta`|
 * | `turn/completed`                        | result (`completed` / `interrupted` / `failed`)        |
 * | `turn/plan/updated`                     | `TodoWrite` tool_use + tool_result                     |
 * | `error`                                 | system `codex_error` (`data.willRetry`)                |
 * | `warning`, `configWarning`, …           | system `codex_warning`                                 |
 * | bookkeeping (status, rate limits, …)    | —                                                      |
 * | anything else                           | system `codex_notification` (`data.method`, `.params`) |
 *
 * Deltas are only emitted with `includePartialMessages`; they are shaped like Anthropic streaming
 * events so code written for Claude's `stream_event`s reads them unchanged. Notifications about other
 * threads (sub-agents) are skipped. Token usage of a turn is the sum of the per-request usage the
 * server reports for that turn id (after `thread/resume` it replays the last turn's usage, which must
 * not count), in the snake_case shape `codex exec` reports.
 */

import type { Message, RawObject } from "../../messages.js";
import { asObject, isObject, str } from "../../wire/read.js";
import { viewThreadItem } from "./items.js";
import type { TokenUsageBreakdown } from "./protocol.js";
import { TurnMessages } from "./turn-messages.js";

/** What the mapper needs from its session. */
export interface AppServerMapperContext {
  threadId(): string | undefined;
  model(): string;
  includePartialMessages: boolean;
  structuredOutput: boolean;
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
}

/** Bookkeeping notifications that carry nothing a caller needs (or that the session consumes). */
const IGNORED = new Set([
  "thread/started",
  "thread/status/changed",
  "thread/tokenUsage/updated",
  "thread/goal/cleared",
  "thread/goal/updated",
  "thread/name/updated",
  "thread/readState/changed",
  "thread/settings/updated",
  "turn/started",
  "turn/diff/updated",
  "serverRequest/resolved",
  "account/rateLimits/updated",
  "account/updated",
  "remoteControl/status/changed",
  "skills/changed",
  "app/list/updated",
  "fs/changed",
  "item/reasoning/summaryPartAdded",
  "item/commandExecution/outputDelta",
  "item/commandExecution/terminalInteraction",
  "item/fileChange/outputDelta",
  "item/fileChange/patchUpdated",
  "item/mcpToolCall/progress",
  "item/plan/delta",
  "command/exec/outputDelta",
  "process/outputDelta",
]);

const WARNINGS = new Set(["warning", "configWarning", "deprecationNotice", "guardianWarning"]);

/** Stateful mapper for one app-server session. */
export class AppServerEventMapper {
  private readonly messages: TurnMessages;
  private readonly now: () => number;
  private readonly items = new Map<string, RawObject>();
  private turnStartedAt = 0;
  /** Usage summed per turn id, until the turn completes. */
  private readonly usageByTurn = new Map<string, TokenUsageBreakdown>();

  constructor(private readonly ctx: AppServerMapperContext) {
    this.now = ctx.now ?? Date.now;
    this.messages = new TurnMessages({
      sessionId: ctx.threadId,
      model: ctx.model,
      structuredOutput: ctx.structuredOutput,
    });
  }

  /** Starts the clock and usage accounting of a turn; call when `turn/start` is sent. */
  beginTurn(): void {
    this.messages.beginTurn();
    this.items.clear();
    this.turnStartedAt = this.now();
  }

  /** The items of the current turn, for approval requests. */
  readonly turnItems = {
    byId: (id: string): RawObject | undefined => this.items.get(id),
    latest: (predicate: (item: RawObject) => boolean): RawObject | undefined =>
      [...this.items.values()].reverse().find(predicate),
  };

  /** A system message in this session (for the session's own reports). */
  system(subtype: string, data: RawObject, raw: RawObject): Message {
    return this.messages.system(subtype, data, raw);
  }

  /** The messages for one notification (possibly none). */
  map(method: string, params: RawObject, raw: RawObject): Message[] {
    const threadId = this.ctx.threadId();
    if (typeof params.threadId === "string" && threadId !== undefined && params.threadId !== threadId) {
      return [];
    }
    switch (method) {
      case "item/started":
      case "item/completed": {
        const item = asObject(params.item);
        const finished = method === "item/completed";
        if (typeof item.id === "string") this.items.set(item.id, item);
        const view = viewThreadItem(item, finished);
        return finished ? this.messages.completed(view, raw, item) : this.messages.started(view, raw);
      }
      case "item/agentMessage/delta":
        return this.delta({ type: "text_delta", text: str(params.delta) ?? "" }, params, raw);
      case "item/reasoning/summaryTextDelta":
      case "item/reasoning/textDelta":
        return this.delta({ type: "thinking_delta", thinking: str(params.delta) ?? "" }, params, raw);
      case "thread/tokenUsage/updated": {
        const usage = asObject(params.tokenUsage);
        if (typeof params.turnId === "string" && isObject(usage.last))
          this.addUsage(params.turnId, usage.last);
        return [];
      }
      case "turn/completed":
        return [this.turnResult(asObject(params.turn), raw)];
      case "turn/plan/updated":
        return this.messages.todoList(
          `plan-${str(params.turnId) ?? ""}`,
          Array.isArray(params.plan) ? params.plan : [],
          raw,
        );
      case "mcpServer/startupStatus/updated": {
        // A server that failed to start (or timed out) is a warning: the turn goes on without its tools.
        if (params.status !== "failed") return [];
        const name = str(params.name) ?? "";
        const message = str(params.error) || `MCP server \`${name}\` failed to start`;
        return [this.messages.system("codex_warning", { ...params, method, message }, raw)];
      }
      case "error": {
        const error = asObject(params.error);
        return [this.messages.system("codex_error", { ...params, message: str(error.message) ?? "" }, raw)];
      }
      default:
        if (WARNINGS.has(method)) {
          const message = str(params.summary) || str(params.message) || method;
          return [this.messages.system("codex_warning", { ...params, method, message }, raw)];
        }
        if (IGNORED.has(method)) return [];
        return [this.messages.system("codex_notification", { method, params }, raw)];
    }
  }

  private turnResult(turn: RawObject, raw: RawObject): Message {
    const status = turn.status === "interrupted" || turn.status === "failed" ? turn.status : "completed";
    const error = str(asObject(turn.error).message) ?? "";
    const usage = this.turnUsage(str(turn.id) ?? "");
    return this.messages.result({
      status,
      ...(error ? { error } : {}),
      durationMs: Math.max(0, this.now() - this.turnStartedAt),
      ...(usage ? { usage } : {}),
      raw,
    });
  }

  private delta(delta: RawObject, params: RawObject, raw: RawObject): Message[] {
    if (!this.ctx.includePartialMessages) return [];
    const message: Message = {
      type: "stream_event",
      event: { type: "content_block_delta", index: 0, item_id: params.itemId, delta },
      parentToolUseId: null,
      raw,
    };
    const threadId = this.ctx.threadId();
    if (threadId !== undefined) message.sessionId = threadId;
    return [message];
  }

  private addUsage(turnId: string, last: RawObject): void {
    const sum = this.usageByTurn.get(turnId) ?? {
      totalTokens: 0,
      inputTokens: 0,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      outputTokens: 0,
      reasoningOutputTokens: 0,
    };
    for (const key of Object.keys(sum) as (keyof TokenUsageBreakdown)[]) {
      const value = last[key];
      if (typeof value === "number") sum[key] = (sum[key] ?? 0) + value;
    }
    this.usageByTurn.set(turnId, sum);
  }

  /** The usage of a finished turn in the snake_case shape `codex exec` reports. */
  private turnUsage(turnId: string): RawObject | undefined {
    const sum = this.usageByTurn.get(turnId);
    if (!sum) return undefined;
    this.usageByTurn.delete(turnId);
    return {
      input_tokens: sum.inputTokens,
      cached_input_tokens: sum.cachedInputTokens,
      cache_write_input_tokens: sum.cacheWriteInputTokens ?? 0,
      output_tokens: sum.outputTokens,
      reasoning_output_tokens: sum.reasoningOutputTokens,
      total_tokens: sum.totalTokens,
    };
  }
}
