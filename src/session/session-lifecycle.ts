/**
 * The part of a backend session that does not depend on the CLI: the message stream, closing once
 * (also when the caller's signal fires), and `idle()`: whether every turn sent has its `result`.
 */
import { type JsonDecodeError, OutputClosedError } from "../errors.js";
import type { Message } from "../messages.js";
import { abortErrorFor } from "../signals/abort.js";
import { type FlowLimits, flowLimits, ReadFlow } from "../transport/read-flow.js";
import { approximateSize as approximateValueSize } from "../wire/approximate-size.js";
import { DEFAULT_TURN_RETENTION, MessageHub, type Subscription } from "./message-hub.js";
import { type NativeLimits, TurnGuard, type TurnLimitOptions } from "./turn-guard.js";

/**
 * Owned by each session. The session counts what it sends ({@link turnSent}) and the results it
 * delivers ({@link resultSeen}); this object answers `idle()`, runs the session's shutdown exactly
 * once, and ends the stream with the right reason.
 */
export class SessionLifecycle {
  private readonly hub = new MessageHub<Message>((m) => m.type === "result");
  private closing: Promise<void> | undefined;
  private turnsSent = 0;
  private resultsSeen = 0;
  private backgroundTasks = 0;
  private backgroundWait: NodeJS.Timeout | undefined;
  private backgroundWaitOver = false;
  private idleWaiters: (() => void)[] = [];
  /** Waiters of {@link runningTurnSettled}: each wakes once `resultsSeen` reaches its target. */
  private resultWaiters: { target: number; wake: () => void }[] = [];
  private readonly abortListener: (() => void) | undefined;
  /** Shapes every result alike and enforces the portable limits (see {@link enforceLimits}). */
  private readonly guard = new TurnGuard();
  /**
   * The backpressure between the message log and the CLI's output: pass it to the read loop
   * (`readTransport`, `PeerChannel`) of every transport the session reads.
   */
  readonly flow: ReadFlow;

  /**
   * @param signal The caller's signal. When it fires the session closes, and readers get an
   *   `AbortError` (see {@link abortErrorFor}).
   * @param shutdown Releases the session's processes and resources and ends the stream (usually
   *   through {@link end}). Runs once, for the first {@link close} or abort.
   * @param limits The log's bounds (from the options; see {@link flowLimits}).
   * @param backgroundTaskTimeoutMs How long input may stay open for background tasks (see `backgroundTaskTimeoutMs`).
   */
  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly shutdown: (error: unknown) => Promise<void>,
    limits: FlowLimits = flowLimits({}),
    private readonly backgroundTaskTimeoutMs = DEFAULT_BACKGROUND_TASK_TIMEOUT_MS,
  ) {
    this.flow = new ReadFlow(limits);
    this.hub.limitBy(this.flow);
    if (signal) {
      this.abortListener = () => void this.close(abortErrorFor(signal.reason));
      signal.addEventListener("abort", this.abortListener, { once: true });
    }
  }

  /** True from the first {@link close} on. */
  get isClosing(): boolean {
    return this.closing !== undefined;
  }

  /** True once the message stream has ended. */
  get isEnded(): boolean {
    return this.hub.isEnded;
  }

  /** Why the stream ended: its error, or `undefined` (not ended, or ended cleanly). `Session.endReason`. */
  get endReason(): unknown {
    return this.hub.endError;
  }

  /** Neither ended nor closing: the process can still take a turn (`Session.isAlive`). */
  get isAlive(): boolean {
    return !this.isEnded && !this.isClosing;
  }

  /** True while a turn sent (see {@link turnSent}) still waits for its `result`. */
  get hasPendingTurn(): boolean {
    return this.resultsSeen < this.turnsSent;
  }

  /**
   * Delivers a message to subscribers (a `result` completed to the one shape of every backend, see
   * {@link TurnGuard}). Ignored once the stream has ended.
   */
  push(message: Message): void {
    if (this.hub.isEnded) return;
    this.hub.push(this.guard.observe(message));
  }

  /**
   * Enforces the portable limits of `options` on this session: `timeoutMs` (the turn ends with a
   * `TimeoutError` and the session closes), and unless the CLI enforces them itself (`native`),
   * `maxTurns` and `maxBudgetTokens` (the turn is interrupted through `interrupt` and its result
   * becomes `error_max_turns` / `error_max_budget_tokens`). Call once, before the first turn is sent.
   *
   * @param inputIncludesCache Whether the CLI's input token count includes cached tokens (Codex).
   */
  enforceLimits(
    options: TurnLimitOptions,
    interrupt: () => Promise<void>,
    native: NativeLimits = {},
    inputIncludesCache = false,
  ): void {
    this.guard.enforce(
      options,
      {
        interrupt,
        close: (reason) => this.close(reason),
        deliver: (message) => {
          if (this.hub.isEnded) return;
          this.push(message);
          if (message.type === "result") this.resultSeen();
        },
      },
      native,
      inputIncludesCache,
    );
  }

  /** `Session.subscribe`: with `untilResult`, the current turn from its start through its `result`. */
  subscribe(opts: { untilResult?: boolean } = {}): Subscription<Message> {
    return opts.untilResult ? this.hub.subscribeTurn() : this.hub.subscribe();
  }

  /**
   * `Session.retainTurns`: from now on, the messages of the current turn stay available to a
   * response view (`subscribe({ untilResult: true })`) even after another reader took them, within
   * {@link DEFAULT_TURN_RETENTION}. For sessions with several readers (`AgentSdkClient`); call it
   * before anything is read.
   */
  retainTurns(): void {
    this.hub.retainTurns({ ...DEFAULT_TURN_RETENTION, weigh: approximateSize });
  }

  /** `Session.close`: runs the shutdown once; every call returns the same promise. */
  close(reason?: unknown): Promise<void> {
    if (!this.closing) {
      this.guard.dispose();
      if (this.abortListener) this.signal?.removeEventListener("abort", this.abortListener);
      this.closing = this.shutdown(reason);
    }
    return this.closing;
  }

  /**
   * Resolves once every turn sent so far has its `result` and no background task the agent reported
   * is still running (for at most `backgroundTaskTimeoutMs` after the last result), or the stream
   * has ended.
   */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    const waiting = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.armBackgroundWait();
    return waiting;
  }

  /**
   * How many background tasks (a `run_in_background` command, a background subagent, …) the agent
   * reports running. While there are any, {@link idle} waits, so input stays open and the agent's
   * follow-up turn, with its `result`, still reaches the caller.
   */
  setBackgroundTasks(count: number): void {
    this.backgroundTasks = count;
    if (count === 0) {
      clearTimeout(this.backgroundWait);
      this.backgroundWait = undefined;
      this.backgroundWaitOver = false;
    }
    this.wakeIdleIfDone();
    if (this.idleWaiters.length > 0) this.armBackgroundWait();
  }

  /** A user turn was sent: `idle()` now waits for one more `result`. */
  turnSent(): void {
    if (!this.hasPendingTurn) this.guard.turnStarted();
    this.turnsSent += 1;
  }

  /** A turn counted by {@link turnSent} never started, so no `result` will come for it. */
  turnWithdrawn(): void {
    this.turnsSent -= 1;
    if (!this.hasPendingTurn) this.guard.turnEnded();
    this.wakeIdleIfDone();
  }

  /** A turn's `result` was delivered. */
  resultSeen(): void {
    this.resultsSeen += 1;
    this.guard.turnEnded();
    if (this.hasPendingTurn) this.guard.turnStarted();
    this.wakeResultWaiters(false);
    this.wakeIdleIfDone();
  }

  /**
   * Resolves once the oldest turn now waiting for its `result` has it, or the stream has ended;
   * `undefined` when no turn waits. Unlike {@link idle} it waits neither for later turns nor for
   * background tasks: what a client waits for after an interrupt before it sends the next turn.
   */
  runningTurnSettled(): Promise<void> | undefined {
    if (!this.hasPendingTurn || this.hub.isEnded) return undefined;
    const target = this.resultsSeen + 1;
    return new Promise<void>((wake) => this.resultWaiters.push({ target, wake }));
  }

  private wakeResultWaiters(all: boolean): void {
    if (this.resultWaiters.length === 0) return;
    const waiting: { target: number; wake: () => void }[] = [];
    for (const waiter of this.resultWaiters) {
      if (all || waiter.target <= this.resultsSeen) waiter.wake();
      else waiting.push(waiter);
    }
    this.resultWaiters = waiting;
  }

  /** Ends the stream (readers get `error` after draining; none: they finish) and wakes `idle()`. */
  end(error?: unknown): void {
    this.endStream(error);
    this.wakeIdle();
  }

  /** {@link end}'s first half, for a session that has more to release before `idle()` wakes. */
  endStream(error?: unknown): void {
    this.guard.dispose();
    this.hub.end(this.failureOf(error));
    this.flow.dispose();
  }

  /**
   * What ending with `error` reports. A CLI that closed its stdout once every turn sent had its
   * `result` (it was then terminated, see {@link OutputClosedError}) failed nothing the caller
   * asked for: the answers are complete, so the stream ends cleanly. Mid-turn it is the failure.
   */
  private failureOf(error: unknown): unknown {
    const answered = this.resultsSeen > 0 && this.resultsSeen >= this.turnsSent;
    return error instanceof OutputClosedError && answered ? undefined : error;
  }

  /** Resolves every pending `idle()` (and, the stream having ended, every `runningTurnSettled()`). */
  wakeIdle(): void {
    if (this.hub.isEnded) this.wakeResultWaiters(true);
    clearTimeout(this.backgroundWait);
    this.backgroundWait = undefined;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }

  /**
   * The session ended by itself (its process exited, its last turn finished): ends the stream with
   * `error` and closes. Does nothing once closing, since the shutdown ends the stream itself, with
   * the reason close() was given.
   */
  finish(error?: unknown): void {
    if (this.closing) return;
    this.end(error);
    void this.close();
  }

  private isIdle(): boolean {
    if (this.hub.isEnded) return true;
    if (this.resultsSeen < this.turnsSent) return false;
    return this.backgroundTasks === 0 || this.backgroundWaitOver;
  }

  private wakeIdleIfDone(): void {
    if (this.isIdle()) this.wakeIdle();
    else if (this.idleWaiters.length > 0) this.armBackgroundWait();
  }

  /** Bounds the wait for background tasks: input must close some time, even for a runaway task. */
  private armBackgroundWait(): void {
    if (this.backgroundWait || this.backgroundTasks === 0 || this.resultsSeen < this.turnsSent) return;
    // `Infinity`: no bound, input stays open until the tasks are done.
    if (!Number.isFinite(this.backgroundTaskTimeoutMs)) return;
    this.backgroundWait = setTimeout(() => {
      this.backgroundWaitOver = true;
      this.wakeIdleIfDone();
    }, this.backgroundTaskTimeoutMs);
    // The session's own process keeps the host alive while it runs; this timer need not.
    this.backgroundWait.unref();
  }
}

/** How long input stays open for running background tasks after the last `result` (10 minutes). */
export const DEFAULT_BACKGROUND_TASK_TIMEOUT_MS = 600_000;

/**
 * The in-band report of a stdout line that was not JSON. Reported as a message rather than thrown,
 * so one bad line never ends a session (some CLIs print their errors as plain text).
 */
export function malformedLineMessage(error: JsonDecodeError): Message {
  return {
    type: "system",
    subtype: "sdk_malformed_line",
    data: { error: error.message, line_head: error.lineHead, line_length: error.lineLength },
    raw: { type: "system", subtype: "sdk_malformed_line", line_head: error.lineHead },
  };
}

/** Roughly how many bytes a message holds: what its wire object holds (strings by length). */
export function approximateSize(message: Message): number {
  return approximateValueSize(message.raw);
}
