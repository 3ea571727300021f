/**
 * What every backend's session does alike with the messages of a turn, in the one place they all
 * pass through ({@link SessionLifecycle.push}):
 * - the result gets the same set of fields on every backend (`null` where the CLI reports nothing),
 *   the session's running cost, and a failed turn's `errorKind` (see {@link classifyFailure});
 * - the portable limits of the options: `timeoutMs` (the turn ends with a `TimeoutError`, its process
 *   stopped), and where the CLI has no such limit of its own, `maxTurns` and `maxBudgetTokens` (the
 *   turn is interrupted and its result becomes `error_max_turns` / `error_max_budget_tokens`, as
 *   Claude Code reports `error_max_turns`).
 */
import { TimeoutError } from "../errors.js";
import type { Message, RawObject, ResultMessage, TokenUsage } from "../messages.js";
import { isObject } from "../wire/read.js";
import { classifyFailure } from "./error-kind.js";

/** The limits of the options this module enforces. */
export interface TurnLimitOptions {
  timeoutMs?: number | undefined;
  maxTurns?: number | undefined;
  maxBudgetTokens?: number | undefined;
}

/** How the guard reaches its session. */
export interface GuardedSession {
  /** Interrupts the running turn; its `result` follows. */
  interrupt(): Promise<void>;
  /** Ends the session with `reason` (the process group is terminated). */
  close(reason: unknown): Promise<void>;
  /** Delivers a message (a result the guard had to make up itself). */
  deliver(message: Message): void;
}

/** What the CLI itself enforces (the guard then leaves that limit to it). */
export interface NativeLimits {
  /** The CLI ends a turn at `maxTurns` by itself (Claude Code's `--max-turns`). */
  maxTurns?: boolean;
}

/** How long an interrupted turn may take to deliver its result before the guard closes the session. */
export const LIMIT_SETTLE_TIMEOUT_MS = 10_000;

/** A limit of the options that ended a turn. */
interface Breach {
  subtype: "error_max_turns" | "error_max_budget_tokens";
  message: string;
}

/** Tokens a usage counts against `maxBudgetTokens`: input (cache reads and writes included) and output. */
export function budgetTokens(usage: TokenUsage | null, inputIncludesCache: boolean): number {
  if (!usage) return 0;
  const cache = inputIncludesCache ? 0 : (usage.cacheReadInputTokens ?? 0);
  return (usage.inputTokens ?? 0) + cache + (usage.cacheCreationInputTokens ?? 0) + (usage.outputTokens ?? 0);
}

/** Shapes the results and enforces the limits of one session. */
export class TurnGuard {
  private limits: TurnLimitOptions = {};
  private session: GuardedSession | undefined;
  private inputIncludesCache = false;
  /** Sum of every known turn cost; `null` once a turn's cost was unknown. */
  private costTotal: number | null = 0;
  /** Tokens used by the session's finished turns. */
  private tokensUsed = 0;
  private timer: NodeJS.Timeout | undefined;
  private turn = freshTurn();
  private breach: Breach | undefined;
  private settleTimer: NodeJS.Timeout | undefined;

  /** Turns on the limits of `options` for `session` (limits in `native` are left to the CLI). */
  enforce(
    options: TurnLimitOptions,
    session: GuardedSession,
    native: NativeLimits = {},
    inputIncludesCache = false,
  ): void {
    this.limits = {
      timeoutMs: options.timeoutMs,
      maxTurns: native.maxTurns ? undefined : options.maxTurns,
      maxBudgetTokens: options.maxBudgetTokens,
    };
    this.session = session;
    this.inputIncludesCache = inputIncludesCache;
  }

  /** A turn starts (the first one sent while none was pending, or the next queued one). */
  turnStarted(): void {
    this.turn = freshTurn();
    this.breach = undefined;
    this.armTimeout();
    // A session already over its token budget does not start another turn's work.
    const budget = this.limits.maxBudgetTokens;
    if (budget !== undefined && this.tokensUsed >= budget) {
      this.stop({
        subtype: "error_max_budget_tokens",
        message: `Reached the token budget (maxBudgetTokens: ${budget}; ${this.tokensUsed} used)`,
      });
    }
  }

  /** The turn's result was delivered: no turn is running. */
  turnEnded(): void {
    clearTimeout(this.timer);
    clearTimeout(this.settleTimer);
    this.timer = undefined;
    this.settleTimer = undefined;
  }

  /** The session ended: no timer may outlive it. */
  dispose(): void {
    this.turnEnded();
    this.session = undefined;
  }

  /** Looks at a message on its way to the readers; returns it, a result completed. */
  observe(message: Message): Message {
    switch (message.type) {
      case "assistant": {
        if (message.error !== undefined) {
          this.turn.cliKind = message.error;
          const text = message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
          if (text) this.turn.texts.push(text);
        }
        if (message.parentToolUseId === null) this.turn.sawAssistant = true;
        break;
      }
      case "user":
        if (message.parentToolUseId === null && isToolResults(message.content)) this.toolResults();
        break;
      case "system":
        this.systemFacts(message.subtype, message.data);
        break;
      case "result":
        return this.complete(message);
      default:
        break;
    }
    return message;
  }

  /** A round of tool results: the model will be asked again, which is one more turn of `maxTurns`. */
  private toolResults(): void {
    if (!this.turn.sawAssistant) return;
    this.turn.sawAssistant = false;
    const max = this.limits.maxTurns;
    if (max !== undefined && this.turn.rounds >= max && !this.breach) {
      this.stop({ subtype: "error_max_turns", message: `Reached maximum number of turns (${max})` });
      return;
    }
    this.turn.rounds += 1;
  }

  private systemFacts(subtype: string, data: RawObject): void {
    if (subtype === "codex_error") {
      if (data.willRetry === true || data.will_retry === true) return;
      const error = isObject(data.error) ? data.error : data;
      const message = typeof error.message === "string" ? error.message : undefined;
      if (message) this.turn.texts.push(message);
      const info = error.codexErrorInfo ?? data.codexErrorInfo;
      if (typeof info === "string") this.turn.cliKind = info;
      else if (isObject(info)) {
        const [name] = Object.keys(info);
        if (name !== undefined) this.turn.cliKind = name;
        const inner = name !== undefined ? info[name] : undefined;
        if (isObject(inner) && typeof inner.httpStatusCode === "number")
          this.turn.status = inner.httpStatusCode;
      }
    } else if (subtype === "rate_limit_event") {
      const info = isObject(data.rate_limit_info) ? data.rate_limit_info : undefined;
      if (info?.status === "rejected" && typeof info.resetsAt === "number")
        this.turn.resetsAt = info.resetsAt;
    } else if (subtype === "api_retry" || subtype === "error") {
      const status = data.error_status ?? data.status;
      if (typeof status === "number") this.turn.status = status;
    }
  }

  /** The result with every field of the one shape, the running cost and, for a failure, its class. */
  private complete(result: ResultMessage): ResultMessage {
    const out: ResultMessage = { ...result };
    const breach = this.breach;
    if (breach) {
      out.subtype = breach.subtype;
      out.isError = true;
      out.result = breach.message;
      out.errors = [breach.message];
      out.terminalReason = breach.subtype === "error_max_turns" ? "max_turns" : "max_budget_tokens";
      if (breach.subtype === "error_max_turns") out.numTurns = this.turn.rounds;
    }
    // Cost: this turn's, and the session's running total (Claude reports its own).
    if (out.totalCostUsd === null || this.costTotal === null) this.costTotal = null;
    else this.costTotal = roundCost(this.costTotal + out.totalCostUsd);
    if (out.sessionCostUsd === undefined) out.sessionCostUsd = this.costTotal;
    this.tokensUsed += budgetTokens(out.tokenUsage, this.inputIncludesCache);
    out.modelUsage ??= null;
    out.permissionDenials ??= null;
    out.stopReason ??= null;
    out.terminalReason ??= null;
    const failed = out.isError && !breach && !isLimitOrInterrupt(out);
    const status = out.apiErrorStatus ?? this.turn.status;
    out.apiErrorStatus = status;
    if (failed) {
      const texts = [...this.turn.texts, out.result ?? "", ...(out.errors ?? [])];
      const failure = classifyFailure({
        status,
        cliKind: this.turn.cliKind,
        texts,
        stopReason: out.stopReason,
      });
      out.errorKind = failure.errorKind;
      out.retryAfterMs = failure.retryAfterMs;
      out.resetsAt =
        failure.resetsAt ??
        (failure.errorKind === "usage_limit" && this.turn.resetsAt !== undefined
          ? new Date(this.turn.resetsAt * 1000).toISOString()
          : null);
    } else {
      out.errorKind = null;
      out.retryAfterMs = null;
      out.resetsAt = null;
    }
    const budget = this.limits.maxBudgetTokens;
    if (!breach && budget !== undefined && this.tokensUsed > budget && !out.isError) {
      // The answer is complete, but the session is over its budget: the result says so (as
      // Claude Code's `error_max_budget_usd` does for a USD budget); the next turn is refused.
      out.subtype = "error_max_budget_tokens";
      out.isError = true;
      out.errors = [`Reached the token budget (maxBudgetTokens: ${budget}; ${this.tokensUsed} used)`];
      out.terminalReason = "max_budget_tokens";
    }
    return out;
  }

  /** Ends the running turn for `breach`: interrupt, then its result is rewritten (bounded wait). */
  private stop(breach: Breach): void {
    this.breach = breach;
    const session = this.session;
    if (!session) return;
    // Not from inside the session's own call (a send, a push): on the next turn of the loop.
    setImmediate(() => {
      if (this.breach === breach) session.interrupt().catch(() => this.giveUp(breach));
    });
    this.settleTimer = setTimeout(() => this.giveUp(breach), LIMIT_SETTLE_TIMEOUT_MS);
    this.settleTimer.unref();
  }

  /** The interrupted turn did not end: its result is made up here and the session closed. */
  private giveUp(breach: Breach): void {
    const session = this.session;
    if (!session || this.breach !== breach) return;
    clearTimeout(this.settleTimer);
    session.deliver(limitResult(breach));
    void session.close(undefined);
  }

  private armTimeout(): void {
    clearTimeout(this.timer);
    const timeoutMs = this.limits.timeoutMs;
    if (timeoutMs === undefined || !Number.isFinite(timeoutMs) || !this.session) return;
    const session = this.session;
    this.timer = setTimeout(() => void session.close(new TimeoutError("timeoutMs", timeoutMs)), timeoutMs);
    // The CLI's process keeps the host alive while the turn runs; the limit on it need not.
    this.timer.unref();
  }
}

interface TurnFacts {
  /** Model round trips so far (1: the first answer). */
  rounds: number;
  /** A top-level assistant message came since the last tool results. */
  sawAssistant: boolean;
  cliKind: string | undefined;
  status: number | null;
  texts: string[];
  /** A rejected rate limit's reset time (epoch seconds), from Claude's `rate_limit_event`. */
  resetsAt: number | undefined;
}

function freshTurn(): TurnFacts {
  return { rounds: 1, sawAssistant: false, cliKind: undefined, status: null, texts: [], resetsAt: undefined };
}

function isToolResults(content: unknown): boolean {
  return Array.isArray(content) && content.some((b) => isObject(b) && b.type === "tool_result");
}

/** A result that ended by a limit or an interrupt, not by an API failure: no `errorKind`. */
function isLimitOrInterrupt(result: ResultMessage): boolean {
  if (result.subtype.startsWith("error_max")) return true;
  const reason = result.terminalReason;
  return reason === "interrupted" || reason === "aborted_streaming" || reason === "cancelled";
}

function roundCost(value: number): number {
  return Number(value.toFixed(12));
}

/** The result of a turn a limit ended, when the CLI gave none. */
function limitResult(breach: Breach): ResultMessage {
  return {
    type: "result",
    subtype: breach.subtype,
    isError: true,
    durationMs: 0,
    durationApiMs: null,
    numTurns: null,
    sessionId: "",
    totalCostUsd: null,
    tokenUsage: null,
    result: breach.message,
    errors: [breach.message],
    raw: { type: "result", subtype: breach.subtype, is_error: true, sdk_generated: true },
  };
}
