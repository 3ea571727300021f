/**
 * Maps the JSON lines of `codex exec --json` onto the unified message model:
 *
 * | exec event                        | message                                                    |
 * |-----------------------------------|------------------------------------------------------------|
 * | `thread.started`                  | system `init` (`sessionId` = `thread_id`)                  |
 * | `turn.started`                    | — (starts the turn clock and state)                        |
 * | `item.started/updated/completed`  | see `turn-messages.ts`                                     |
 * | `turn.completed`                  | result `success` (`usage` as the CLI reports it)           |
 * | `turn.failed`                     | result `error_during_execution`, `isError`, the error text |
 * | `error`                           | system `codex_error` (retries and the text of a failure)   |
 * | anything else                     | `unknown`                                                  |
 */

import type { AssistantMessage, Message, RawObject } from "../../messages.js";
import { asObject, isObject } from "../../wire/read.js";
import { viewExecItem } from "./items.js";
import { TurnMessages } from "./turn-messages.js";

/** What the mapper knows about the run. */
export interface ExecMapperOptions {
  /** The model asked for (exec does not report it). */
  model?: string | undefined;
  /** Parse the final text as JSON into `result.structuredOutput` (`outputFormat` was given). */
  structuredOutput?: boolean;
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
}

/** Stateful mapper for one `codex exec` run. */
export class ExecEventMapper {
  private threadIdValue: string | undefined;
  private readonly messages: TurnMessages;
  private readonly now: () => number;
  private startedAt: number;

  constructor(options: ExecMapperOptions = {}) {
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    const model = options.model ?? "";
    this.messages = new TurnMessages({
      sessionId: () => this.threadIdValue,
      model: () => model,
      structuredOutput: options.structuredOutput ?? false,
    });
  }

  /** The thread id from `thread.started`, once seen. */
  get threadId(): string | undefined {
    return this.threadIdValue;
  }

  /** Restarts the turn clock (call when the prompt is sent). */
  markStart(): void {
    this.startedAt = this.now();
  }

  /**
   * The common event alone: for an `item.completed` agent message the one message {@link map} maps
   * it to, built without the item view (as `viewExecItem` + `completed` would build it) and without
   * the array; `undefined` for any other line (then {@link map} it). The read loop asks this first
   * for every line, so a message costs no array and no switch.
   */
  agentMessage(raw: RawObject): AssistantMessage | undefined {
    if (raw.type !== "item.completed") return undefined;
    const item = raw.item;
    if (!isObject(item) || item.type !== "agent_message") return undefined;
    const id = item.id;
    const text = item.text;
    return this.messages.agentText(
      typeof id === "string" ? id : "",
      typeof text === "string" ? text : "",
      raw,
    );
  }

  /** The messages for one event line (possibly none). */
  map(raw: RawObject): Message[] {
    switch (raw.type) {
      case "thread.started": {
        const threadId = typeof raw.thread_id === "string" ? raw.thread_id : undefined;
        this.threadIdValue = threadId;
        return [this.messages.system("init", { ...raw, session_id: threadId }, raw)];
      }
      case "turn.started":
        this.messages.beginTurn();
        return [];
      case "item.completed": {
        const agent = this.agentMessage(raw);
        if (agent !== undefined) return [agent];
        const item = asObject(raw.item);
        return this.messages.completed(viewExecItem(item, true), raw, item);
      }
      case "item.started":
      case "item.updated": {
        const item = asObject(raw.item);
        const view = viewExecItem(item, false);
        return raw.type === "item.started"
          ? this.messages.started(view, raw)
          : this.messages.updated(view, raw);
      }
      case "turn.completed":
        return [
          this.messages.result({
            status: "completed",
            durationMs: this.elapsed(),
            ...(isObject(raw.usage) ? { usage: raw.usage } : {}),
            raw,
          }),
        ];
      case "turn.failed": {
        const error =
          isObject(raw.error) && typeof raw.error.message === "string" ? raw.error.message : undefined;
        return [
          this.messages.result({
            status: "failed",
            ...(error !== undefined ? { error } : {}),
            durationMs: this.elapsed(),
            raw,
          }),
        ];
      }
      case "error":
        return [this.messages.system("codex_error", { ...raw }, raw)];
      default:
        return [withSession({ type: "unknown", wireType: String(raw.type), raw }, this.threadIdValue)];
    }
  }

  /** The result reported when the caller interrupts the run (the process is killed). */
  interruptedResult(): Message {
    return this.messages.result({
      status: "interrupted",
      durationMs: this.elapsed(),
      raw: { type: "interrupted" },
    });
  }

  private elapsed(): number {
    return Math.max(0, this.now() - this.startedAt);
  }
}

function withSession(message: Message, sessionId: string | undefined): Message {
  if (sessionId !== undefined) message.sessionId = sessionId;
  return message;
}
