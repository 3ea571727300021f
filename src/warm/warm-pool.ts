/**
 * A pool of warm CLI processes for servers: `size` processes started ahead of time for one set of
 * options, one handed to each query or client, a replacement started in the background.
 *
 * Bounded: at most `size` processes wait at once (plus the ones being started to replace those
 * handed out); one that waits longer than `idleTimeoutMs` is closed and not replaced until the
 * pool is used again, so an unused pool shrinks to nothing. `close()` ends every waiting process;
 * the ones already handed out belong to their queries and clients, and end with them — at once
 * when one ends before it starts (closed, disconnected, or its `signal` aborted), also after the
 * pool's `close()`. A query or client whose `signal` has already fired gets no process.
 *
 * With `spares: true` it keeps spares (`prewarm()`) instead, for any folder, handed out by `claim()`.
 *
 * The replacement starts at once, or `refillDelayMs` later: on a host with few cores a CLI
 * starting up (Claude Code: ~300 ms of CPU) slows the one that is answering the query just handed
 * out, and the delay lets that answer go first.
 */
import { AgentSdkClient } from "../client.js";
import { AgentSdkError, InvalidOptionsError, UnsupportedFeatureError, WarmStartError } from "../errors.js";
import type { AgentOptions } from "../options.js";
import type { Prompt } from "../prompt.js";
import { type Query, query } from "../query.js";
import { checkSignalOption } from "../signals/abort.js";
import { type ClaimOptions, checkClaimOptions } from "./claim.js";
import { conflictingOptions } from "./option-conflicts.js";
import {
  type ClaimedClient,
  type ClaimedQuery,
  claimOnNewSpare,
  clientOnNewSpare,
  prewarm,
  type SpareSession,
} from "./spare.js";
import {
  checkDuration,
  DEFAULT_WARM_IDLE_TIMEOUT_MS,
  MAX_TIMER_MS,
  startup,
  type WarmSession,
} from "./warm-session.js";

/** Options of a {@link WarmPool}. */
export interface WarmPoolOptions {
  /** The options every pooled process is started with (see {@link startup}). */
  options?: AgentOptions;
  /** How many processes to keep waiting (default 1, at most 64). */
  size?: number;
  /** How long a process may wait unused before it is closed, in ms (default 10 minutes). */
  idleTimeoutMs?: number;
  /** Bound on each process's start-up, in ms (see {@link startup}). */
  startupTimeoutMs?: number;
  /**
   * How long after handing a process out the pool starts its replacement, in ms (default 0: at
   * once). On a host with few cores the replacement's start-up competes for CPU with the process
   * answering the query just handed out: measured on 2 vCPUs with an instant offline model, Claude
   * Code's first message came ~16 ms later (≈ 110 instead of 94 ms) while a replacement started
   * beside it. A delay of 100–300 ms covers a CLI's work on a new prompt before it waits for the
   * model; the pool is one short for that long (processes handed out meanwhile are replaced with
   * it). {@link WarmPool.ready} starts a delayed replacement at once.
   */
  refillDelayMs?: number;
  /**
   * Keep spares instead (`prewarm()`, Claude only): processes parked before their folder is known,
   * so one pool serves every folder. Hand them out with {@link WarmPool.claim}; `query()` and
   * `client()` are for pools of warm processes.
   */
  spares?: boolean;
  /**
   * Called when a background start fails (the pool then serves cold starts until one succeeds);
   * default: nothing, the next query reports its own failure.
   */
  onError?: (error: unknown) => void;
}

/** What a pool has done, for monitoring. */
export interface WarmPoolStats {
  /** Processes waiting to be handed out. */
  ready: number;
  /** Processes being started. */
  starting: number;
  /** Queries and clients served by a warm process. */
  warmHits: number;
  /** Queries and clients that started cold because no warm process was ready. */
  coldStarts: number;
}

const MAX_POOL_SIZE = 64;

/**
 * Keeps `size` warm processes ready for one set of options.
 *
 * @example
 * await using pool = new WarmPool({ options: { cwd: repo }, size: 2 });
 * await pool.ready(); // optional: wait until the first processes are up
 * for await (const message of pool.query("Summarize the diff")) console.log(message.type);
 */
export class WarmPool implements AsyncDisposable {
  private readonly options: AgentOptions;
  private readonly size: number;
  private readonly idleTimeoutMs: number;
  private readonly startupTimeoutMs: number | undefined;
  private readonly onError: ((error: unknown) => void) | undefined;
  private readonly refillDelayMs: number;
  private readonly spares: boolean;
  private readonly waiting: (WarmSession | SpareSession)[] = [];
  private readonly starting = new Set<Promise<void>>();
  /** The timer of a delayed refill (see `refillDelayMs`), while one is pending. */
  private refillTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private counts = { warmHits: 0, coldStarts: 0 };

  constructor(options: WarmPoolOptions = {}) {
    const size = options.size ?? 1;
    if (!Number.isInteger(size) || size < 1 || size > MAX_POOL_SIZE)
      throw new InvalidOptionsError([`size: must be an integer from 1 to ${MAX_POOL_SIZE}`]);
    this.options = options.options ?? {};
    checkSignalOption(this.options.signal, "options.signal");
    this.size = size;
    // Checked here, not first in a background start where only `onError` would hear of it.
    this.idleTimeoutMs = checkDuration(
      "idleTimeoutMs",
      options.idleTimeoutMs ?? DEFAULT_WARM_IDLE_TIMEOUT_MS,
    );
    this.startupTimeoutMs =
      options.startupTimeoutMs === undefined
        ? undefined
        : checkDuration("startupTimeoutMs", options.startupTimeoutMs);
    this.onError = options.onError;
    this.spares = options.spares === true;
    if (this.spares && (this.options.backend ?? "claude") !== "claude")
      throw new UnsupportedFeatureError("a pool of spares (prewarm)", this.options.backend ?? "claude");
    this.refillDelayMs = options.refillDelayMs ?? 0;
    if (!Number.isFinite(this.refillDelayMs) || this.refillDelayMs < 0 || this.refillDelayMs > MAX_TIMER_MS)
      throw new InvalidOptionsError([
        `refillDelayMs: must be a number of milliseconds in [0, ${MAX_TIMER_MS}]`,
      ]);
    this.fill();
  }

  /** Counts of waiting and starting processes, warm hits and cold starts. */
  get stats(): WarmPoolStats {
    return { ready: this.live().length, starting: this.starting.size, ...this.counts };
  }

  /** The pids of the processes waiting to be handed out (for monitoring). */
  readyPids(): number[] {
    return this.live().flatMap((warm) => (warm.pid === undefined ? [] : [warm.pid]));
  }

  /**
   * Resolves once the processes being started are up (or failed: failures go to `onError`). A
   * replacement waiting for its `refillDelayMs` is started now.
   */
  async ready(): Promise<void> {
    if (this.refillTimer !== undefined) this.refillNow();
    while (this.starting.size > 0) await Promise.all([...this.starting]);
  }

  /**
   * A query on a warm process, or a cold one if none is ready. `options` as for
   * {@link WarmSession.query}: conflicting options throw {@link WarmStartError}.
   */
  query(prompt: Prompt, options: AgentOptions = {}): Query {
    this.check(options);
    const warm = this.takeWarm(options.signal);
    if (warm) return warm.query(prompt, options);
    return query({ prompt, options: { ...this.options, ...options } });
  }

  /** An {@link AgentSdkClient} on a warm process, or a cold one if none is ready. */
  client(options: AgentOptions = {}): AgentSdkClient {
    this.check(options);
    const warm = this.takeWarm(options.signal);
    if (warm) return warm.client(options);
    return new AgentSdkClient({ ...this.options, ...options });
  }

  /**
   * A pool of spares (`spares: true`): claims a ready spare for a session in `options.cwd` and runs
   * `prompt` there (see {@link SpareSession.claim}); with none ready, a spare is started for this
   * claim (a cold start). The returned query's `claimed` tells how the claim went.
   *
   * @throws InvalidOptionsError for malformed claim options (before a spare is taken).
   */
  claim(prompt: Prompt, options: ClaimOptions): ClaimedQuery {
    this.checkSparePool(options);
    const spare = this.take(options.signal) as SpareSession | undefined;
    if (spare) return spare.claim(prompt, options);
    return claimOnNewSpare(this.startParams(), prompt, options);
  }

  /**
   * A pool of spares (`spares: true`): an {@link AgentSdkClient} for a conversation in
   * `options.cwd`, on a ready spare (its `connect()` sends the claim) or, with none ready, on one it
   * starts at `connect()`. The client's `claimed` tells how the claim went.
   *
   * @throws InvalidOptionsError for malformed claim options (before a spare is taken).
   */
  claimClient(options: ClaimOptions): ClaimedClient {
    this.checkSparePool(options);
    const spare = this.take(options.signal) as SpareSession | undefined;
    if (spare) return spare.client(options);
    return clientOnNewSpare(this.startParams(), options);
  }

  /** Closes every waiting process and stops starting new ones. Handed-out ones are not touched. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.refillTimer);
    this.refillTimer = undefined;
    await Promise.allSettled([...this.starting]);
    await Promise.all(this.waiting.splice(0).map((warm) => warm.close()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private checkSparePool(options: ClaimOptions): void {
    if (this.closed) throw new AgentSdkError("The warm pool is closed");
    if (!this.spares)
      throw new AgentSdkError(
        "claim() and claimClient() need a pool of spares (new WarmPool({ spares: true, … })); this pool's processes serve query() and client()",
      );
    checkClaimOptions(options);
  }

  private check(options: AgentOptions): void {
    if (this.closed) throw new AgentSdkError("The warm pool is closed");
    checkSignalOption(options.signal);
    if (this.spares)
      throw new AgentSdkError(
        "This pool keeps spares (spares: true): hand them out with claim(prompt, { cwd, … }) or claimClient({ cwd, … })",
      );
    const conflicts = conflictingOptions(this.options, options);
    if (conflicts.length > 0)
      throw new WarmStartError(
        "conflicting-options",
        `The pool's processes were started with other options: ${conflicts.join(", ")}`,
        conflicts,
      );
  }

  private takeWarm(signal: AbortSignal | undefined): WarmSession | undefined {
    return this.take(signal) as WarmSession | undefined;
  }

  /**
   * A ready process (dropping any that died or timed out), and a replacement started. None for a
   * query whose `signal` has already fired: it ends before it starts, and a cold one spawns nothing.
   */
  private take(signal: AbortSignal | undefined): WarmSession | SpareSession | undefined {
    if (signal?.aborted) return undefined;
    const live = this.live();
    const warm = live.shift();
    this.waiting.splice(0, this.waiting.length, ...live);
    if (warm) this.counts.warmHits += 1;
    else this.counts.coldStarts += 1;
    if (this.refillDelayMs === 0) this.fill();
    else this.refillTimer ??= setTimeout(() => this.refillNow(), this.refillDelayMs).unref();
    return warm;
  }

  private refillNow(): void {
    clearTimeout(this.refillTimer);
    this.refillTimer = undefined;
    this.fill();
  }

  /** The waiting sessions still ready; the rest are dropped (their processes are gone already). */
  private live(): (WarmSession | SpareSession)[] {
    return this.waiting.filter((warm) => warm.state === "ready");
  }

  /** Starts processes until `size` are waiting or starting. */
  private fill(): void {
    while (!this.closed && this.live().length + this.starting.size < this.size) {
      const start = this.startOne();
      this.starting.add(start);
      void start.finally(() => this.starting.delete(start));
    }
  }

  private startParams(): { options: AgentOptions; idleTimeoutMs: number; timeoutMs?: number } {
    return {
      options: this.options,
      idleTimeoutMs: this.idleTimeoutMs,
      ...(this.startupTimeoutMs !== undefined ? { timeoutMs: this.startupTimeoutMs } : {}),
    };
  }

  private async startOne(): Promise<void> {
    try {
      const warm = this.spares ? await prewarm(this.startParams()) : await startup(this.startParams());
      if (this.closed) await warm.close();
      else this.waiting.push(warm);
    } catch (error) {
      this.onError?.(error);
    }
  }
}
