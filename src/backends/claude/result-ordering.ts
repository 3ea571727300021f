/**
 * Keeps a turn's `result` the last message of that turn.
 *
 * Every user message this SDK sends carries a `uuid`, so Claude Code 2.1.330 reports its progress as
 * `command_lifecycle` lines (`queued`, `started`, then `completed` or `cancelled`). The terminal one
 * is written just after the turn's `result` (about 5 ms later in the captures), so a one-shot stream
 * would end with it rather than with its result, and `receiveResponse()` would leave it to the start
 * of the next turn. This stage holds back a `result` while a user message it answers
 * (`user_message_uuids`) has reported `started` but not yet its end, lets that lifecycle line pass
 * ahead, then delivers the result. Any other message, the end of the stream, or `graceMs` releases
 * a held result at once, so nothing waits on a line that never comes.
 */
import type { Message, RawObject, ResultMessage } from "../../messages.js";

/** How long a result waits for its lifecycle lines at most. They follow within milliseconds. */
export const RESULT_HOLD_MS = 1000;

/** Open commands remembered at most (the CLI ends each one; a bound for one that never ends). */
const MAX_OPEN_COMMANDS = 1024;

/** Puts a turn's lifecycle lines before its `result`; see the module comment. */
export class ResultOrdering {
  /** Command uuids that started and have not ended. */
  private readonly open = new Set<string>();
  private held: ResultMessage | undefined;
  private waitingFor = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deliver: (message: Message) => void,
    private readonly holdMs = RESULT_HOLD_MS,
  ) {}

  /** Takes the next message in wire order. */
  push(message: Message): void {
    if (message.type === "system") {
      if (message.subtype === "command_lifecycle") {
        this.track(message.raw);
        this.deliver(message);
        if (this.held !== undefined && this.waitingFor.size === 0) this.flush();
        return;
      }
      // Only with CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS: lifecycle noise too, never a reason to hold.
      if (message.subtype === "session_state_changed" && this.held !== undefined) {
        this.deliver(message);
        return;
      }
    }
    this.flush();
    if (message.type === "result" && this.hold(message)) return;
    this.deliver(message);
  }

  /** Delivers a held result now (stream end, session close, timeout). */
  flush(): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    this.waitingFor.clear();
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.deliver(held);
  }

  private hold(result: ResultMessage): boolean {
    for (const id of answeredCommands(result.raw)) if (this.open.has(id)) this.waitingFor.add(id);
    if (this.waitingFor.size === 0) return false;
    this.held = result;
    this.timer = setTimeout(() => this.flush(), this.holdMs);
    this.timer.unref?.();
    return true;
  }

  private track(raw: RawObject): void {
    const id = raw.command_uuid;
    if (typeof id !== "string") return;
    if (raw.state === "completed" || raw.state === "cancelled") {
      this.open.delete(id);
      this.waitingFor.delete(id);
    } else if (raw.state === "started") {
      if (this.open.size >= MAX_OPEN_COMMANDS) {
        const oldest = this.open.values().next().value;
        if (oldest !== undefined) this.open.delete(oldest);
      }
      this.open.add(id);
    }
  }
}

/** The user messages a result answers (`user_message_uuids`, or the older `user_message_uuid`). */
function answeredCommands(raw: RawObject): string[] {
  const many = raw.user_message_uuids;
  if (Array.isArray(many)) return many.filter((id): id is string => typeof id === "string");
  return typeof raw.user_message_uuid === "string" ? [raw.user_message_uuid] : [];
}
