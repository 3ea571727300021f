/**
 * Fan-out of session messages to any number of subscribers (`receiveMessages()` and
 * `receiveResponse()` may be consumed at the same time).
 *
 * Messages are kept in a log until every interested reader has passed them. A new subscriber
 * starts at the first message no earlier subscriber has received, so nothing emitted before the
 * caller started reading is lost, and nothing already consumed is delivered twice.
 *
 * A *response* subscription (one that stops at a turn boundary, e.g. a `result`) instead starts at
 * the beginning of the current turn: the first message after the last boundary any reader has
 * received. So a `receiveResponse()` started while a `receiveMessages()` monitor is already
 * reading still gets the whole turn, including the messages the monitor took first. That needs the
 * turn's already-delivered messages to be kept, which costs memory and time on every message, so it
 * is off until {@link MessageHub.retainTurns} turns it on (the multi-reader client does; a
 * single-reader `query()` never needs it), and bounded (see {@link TurnRetentionLimits}).
 */

import { ReaderOverflowError } from "../errors.js";
import type { ReadFlow } from "../transport/read-flow.js";

/** Bounds on the already-delivered messages of the current turn kept for a late response view. */
export interface TurnRetentionLimits<T> {
  /** At most this many messages. */
  maxMessages: number;
  /** At most about this many bytes, as `weigh` estimates them. */
  maxBytes: number;
  /** Estimated size of one message, in bytes. */
  weigh: (item: T) => number;
}

/** Default retention: the last 10 000 messages of the turn, or 32 MiB of them, whichever is less. */
export const DEFAULT_TURN_RETENTION: Omit<TurnRetentionLimits<unknown>, "weigh"> = {
  maxMessages: 10_000,
  maxBytes: 32 * 1024 * 1024,
};

/** Consumed log entries are dropped in slices of at least this many (one array copy per slice). */
const TRIM_SLICE = 1024;

/** Hooks of one subscription, for a consumer that must act on each message without a wrapper. */
export interface SubscriptionHooks<T> {
  /** Called with each item as it is handed to the reader (before the reader sees it). */
  observe?(item: T): void;
  /**
   * Called once when the subscription ends (the stream ended, failed, or the reader stopped). The
   * reader's final `next()` settles only after the returned promise does: with the error it
   * resolves to, or done when that is `undefined`. `error` is the stream's own failure, if any.
   */
  finish?(error: unknown): Promise<unknown>;
}

interface Waiter<T> {
  resolve(result: IteratorResult<T, void>): void;
  reject(error: unknown): void;
}

const DONE: IteratorResult<never, void> = Object.freeze({ done: true, value: undefined });

/** A multi-reader queue with end-of-stream and error propagation. */
export class MessageHub<T> {
  // The log and the end state are read by this module's Subscription (`@internal`, not API).
  /** @internal Messages not yet passed by every reader; `log[0]` is at absolute index `base`. */
  log: T[] = [];
  /** @internal */
  base = 0;
  /** @internal */
  ended = false;
  /** @internal The error readers get after draining, if the stream failed. */
  failure: unknown;
  /** @internal Absolute index of the first message that no subscriber has received yet. */
  unread = 0;
  private readonly readers = new Set<Subscription<T>>();
  /** Readers blocked in `next()`, served as soon as something arrives. */
  private readonly waiting = new Set<Subscription<T>>();
  /** `waiting.size`, as a plain field: `push()` reads it for every message. */
  private waitingCount = 0;
  /**
   * With retention on: absolute index just after the last boundary item any reader has received.
   * Without it, the turn start is found when a response view asks for it (see {@link currentTurnStart}),
   * so reading costs no boundary check per message.
   */
  private turnStart = 0;
  private retention: TurnRetentionLimits<T> | undefined;
  /**
   * Sizes of the delivered messages of the current turn that are kept: `retainedSizes[retainedHead]`
   * is the size of the message at `retainFrom`.
   */
  private retainedSizes: number[] = [];
  private retainedHead = 0;
  private retainedBytes = 0;
  /** Absolute index of the first delivered message still kept for a response view. */
  private retainFrom = 0;
  /** With flow control: the session's read flow, whose byte count marks each message. */
  private flow: ReadFlow | undefined;
  /** `marks[i]`: bytes of output read when `log[i]` arrived (so a span's bytes are a difference). */
  private marks: number[] = [];
  /** The mark of the message just before `log[0]` (0 at the start). */
  private baseMark = 0;
  /** The mark of the message just before `unread`: what no reader has received starts after it. */
  private unreadMark = 0;

  /** @param isBoundary marks the last item of a turn (a `result`); without it there are no turns. */
  constructor(private readonly isBoundary?: (item: T) => boolean) {
    if (!isBoundary) this.turnStart = Number.POSITIVE_INFINITY;
  }

  /**
   * Keeps the delivered messages of the current turn (within `limits`) so a response view started
   * late still sees the turn from its start. Call before anything is read.
   */
  retainTurns(limits: TurnRetentionLimits<T>): void {
    if (!this.isBoundary || this.retention) return;
    // From now on the turn start is tracked as readers pass boundaries.
    this.turnStart = this.currentTurnStart();
    this.retainFrom = this.turnStart;
    this.retention = limits;
  }

  /**
   * Bounds the log by `flow` (call before anything is pushed): reading pauses while more than its
   * high-water mark of output waits for the furthest reader, and a reader that falls more than its
   * `maxReaderLagBytes` behind the furthest one is dropped with a {@link ReaderOverflowError}.
   */
  limitBy(flow: ReadFlow): void {
    this.flow = flow;
    flow.measureWith(() => flow.bytesRead - this.unreadMark);
  }

  /** Appends a message and wakes readers. Ignored after `end()`. */
  push(item: T): void {
    if (this.ended) return;
    this.log.push(item);
    const flow = this.flow;
    if (flow !== undefined) {
      const mark = flow.bytesRead;
      this.marks.push(mark);
      if (mark - this.unreadMark > flow.highWaterMark) flow.overHighWater();
    }
    if (this.waitingCount > 0) this.wake();
  }

  /** Ends the stream; readers finish after draining. With `error`, readers throw it after draining. */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = error;
    if (this.waitingCount > 0) this.wake();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** The error the stream ended with (`undefined`: not ended, or ended cleanly). */
  get endError(): unknown {
    return this.failure;
  }

  /**
   * Reads messages. `stopAfter` ends this subscription after the first item it matches (that item
   * is delivered). Stopping early (`return()`, `break`) releases the subscription.
   */
  subscribe(stopAfter?: (item: T) => boolean, hooks?: SubscriptionHooks<T>): Subscription<T> {
    return this.open(this.unread, stopAfter, hooks);
  }

  /** Reads the current turn from its start, up to and including its boundary item. */
  subscribeTurn(hooks?: SubscriptionHooks<T>): Subscription<T> {
    const start = this.retention
      ? Math.max(this.base, this.retainFrom, Math.min(this.unread, this.turnStart))
      : this.currentTurnStart();
    return this.open(start, this.isBoundary, hooks);
  }

  /**
   * Without retention: the first message after the last boundary any reader has received, or the
   * first message still in the log if that boundary was dropped (or there are no turns: the first
   * message no reader has received).
   */
  private currentTurnStart(): number {
    const isBoundary = this.isBoundary;
    if (!isBoundary) return this.unread;
    for (let position = this.unread; position > this.base; position--) {
      if (isBoundary(this.log[position - 1 - this.base] as T)) return position;
    }
    return this.base;
  }

  private open(
    start: number,
    stopAfter?: (item: T) => boolean,
    hooks?: SubscriptionHooks<T>,
  ): Subscription<T> {
    const reader = new Subscription(this, start, stopAfter, hooks);
    this.readers.add(reader);
    return reader;
  }

  /**
   * @internal A reader took the item at absolute index `position - 1`, the first reader to take it
   * (`position > unread`): only the furthest reader gets here.
   */
  firstTaken(position: number, item: T): void {
    this.unread = position;
    const flow = this.flow;
    if (flow !== undefined) {
      this.unreadMark = this.marks[position - 1 - this.base]!;
      if (flow.isPaused && flow.bytesRead - this.unreadMark <= flow.lowWaterMark) flow.belowLowWater();
    }
    const retention = this.retention;
    if (retention === undefined) return;
    this.retain(item);
    // Only the first reader past a boundary can move the turn start (turnStart <= unread).
    if (this.isBoundary!(item)) this.newTurn(position);
  }

  /** @internal */
  blocked(reader: Subscription<T>): void {
    this.waiting.add(reader);
    this.waitingCount = this.waiting.size;
  }

  /** @internal */
  release(reader: Subscription<T>): void {
    this.readers.delete(reader);
    this.waiting.delete(reader);
    this.waitingCount = this.waiting.size;
    this.trim();
  }

  /**
   * Serves the blocked readers. The rest of a batch pushed in the same tick (a whole stdout chunk)
   * waits in the log, where their next `next()` takes it without waiting.
   */
  private wake(): void {
    const waiting = this.waiting;
    if (waiting.size === 1) {
      const [reader] = waiting;
      waiting.clear();
      this.waitingCount = 0;
      reader!.serveWaiters();
      return;
    }
    const readers = [...waiting];
    waiting.clear();
    this.waitingCount = 0;
    for (const reader of readers) reader.serveWaiters();
  }

  /** A message was delivered for the first time: keep it for response views, within the limits. */
  private retain(item: T): void {
    const limits = this.retention!;
    const sizes = this.retainedSizes;
    const size = limits.weigh(item);
    sizes.push(size);
    this.retainedBytes += size;
    while (
      this.retainedHead < sizes.length &&
      (sizes.length - this.retainedHead > limits.maxMessages || this.retainedBytes > limits.maxBytes)
    ) {
      this.retainedBytes -= sizes[this.retainedHead]!;
      this.retainedHead += 1;
      this.retainFrom += 1;
    }
    if (this.retainedHead >= TRIM_SLICE && this.retainedHead * 2 >= sizes.length) {
      this.retainedSizes = sizes.slice(this.retainedHead);
      this.retainedHead = 0;
    }
  }

  /** A reader passed a boundary first: the next turn starts at `position`. */
  private newTurn(position: number): void {
    this.turnStart = position;
    // The first reader past a boundary is the furthest one, so nothing after it is delivered yet.
    this.retainFrom = position;
    this.retainedSizes = [];
    this.retainedHead = 0;
    this.retainedBytes = 0;
  }

  /** @internal Drops messages every reader (present and future) has passed. */
  trim(): void {
    let keepFrom = this.retention
      ? Math.min(this.unread, Math.max(this.turnStart, this.retainFrom))
      : this.unread;
    let laggards: Subscription<T>[] | undefined;
    for (const reader of this.readers) {
      if (reader.position < this.unread && this.isTooFarBehind(reader.position)) {
        laggards ??= [];
        laggards.push(reader);
        continue;
      }
      keepFrom = Math.min(keepFrom, reader.position);
    }
    if (laggards !== undefined) {
      // Dropping them releases them, which trims again without them.
      for (const reader of laggards) reader.overflow(this.overflowError(reader.position));
      return;
    }
    const drop = keepFrom - this.base;
    if (drop <= 0) return;
    if (drop === this.log.length) {
      // Emptied in place: a new `[]` would start with small-integer elements again, and pushing a
      // message onto it would throw away the optimized code of the read path (a deopt, then the
      // whole path compiled again) once per query.
      if (this.flow !== undefined) {
        this.baseMark = this.marks[drop - 1]!;
        this.marks.length = 0;
      }
      this.log.length = 0;
    } else if (drop >= TRIM_SLICE) {
      if (this.flow !== undefined) {
        this.baseMark = this.marks[drop - 1]!;
        this.marks = this.marks.slice(drop);
      }
      this.log = this.log.slice(drop);
    } else return;
    this.base = keepFrom;
  }

  /** Whether a reader at `position` is further behind the furthest reader than the flow allows. */
  private isTooFarBehind(position: number): boolean {
    const flow = this.flow;
    if (flow === undefined) return false;
    return this.unreadMark - this.markBefore(position) > flow.maxReaderLagBytes;
  }

  /** The mark of the message just before absolute index `position` (which is in the log or at its end). */
  private markBefore(position: number): number {
    return position > this.base ? this.marks[position - 1 - this.base]! : this.baseMark;
  }

  private overflowError(position: number): ReaderOverflowError {
    const limit = this.flow!.maxReaderLagBytes;
    return new ReaderOverflowError(limit, this.unreadMark - this.markBefore(position));
  }
}

/**
 * One reader of a {@link MessageHub}: an async iterator written by hand, so a buffered message
 * costs one resolved promise and no generator machinery. Concurrent `next()` calls are served in
 * order.
 */
export class Subscription<T> implements AsyncGenerator<T, void, undefined> {
  /** @internal Absolute index of the next item to read. */
  position: number;
  private done = false;
  private waiters: Waiter<T>[] = [];
  /** Once ended: what the first `next()` after the end gets (done, or the failure)... */
  private final: Promise<IteratorResult<T, void>> | undefined;
  /** ...and what every later one gets. */
  private afterFinal: Promise<IteratorResult<T, void>> | undefined;

  /** @internal */
  constructor(
    private readonly hub: MessageHub<T>,
    start: number,
    private readonly stopAfter: ((item: T) => boolean) | undefined,
    private hooks: SubscriptionHooks<T> | undefined,
  ) {
    this.position = start;
  }

  /**
   * Installs hooks (see {@link SubscriptionHooks}) on a subscription nothing has read yet, so its
   * owner can act on each message without wrapping the iterator.
   */
  intercept(hooks: SubscriptionHooks<T>): this {
    this.hooks = hooks;
    return this;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** `next()` calls not yet answered (while an item is handed out, its own call included). */
  get waiting(): number {
    return this.waiters.length;
  }

  next(): Promise<IteratorResult<T, void>> {
    if (this.waiters.length === 0) {
      // The common case first: a message is waiting in the log.
      if (!this.done) {
        const hub = this.hub;
        const index = this.position - hub.base;
        if (index < hub.log.length) return Promise.resolve(this.deliver(hub, index));
      }
      const ready = this.take();
      if (ready !== undefined) return ready instanceof Promise ? ready : Promise.resolve(ready);
    }
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.hub.blocked(this);
    });
  }

  /** Stops reading (as `break` does): resolves done once the subscription's `finish` hook has run. */
  return(): Promise<IteratorResult<T, void>> {
    const result = this.done ? this.afterFinal! : this.stop("return", undefined);
    this.cancelWaiters();
    return result;
  }

  /** Stops reading and rejects with `error`, as a generator that does not catch it. */
  throw(error: unknown): Promise<IteratorResult<T, void>> {
    const result = this.done ? this.afterFinal!.then(() => Promise.reject(error)) : this.stop("throw", error);
    this.cancelWaiters();
    return result;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  /** @internal The hub has something new (or ended): serve blocked `next()` calls in order. */
  serveWaiters(): void {
    while (this.waiters.length > 0) {
      const ready = this.take();
      if (ready === undefined) {
        this.hub.blocked(this);
        return;
      }
      const waiter = this.waiters.shift()!;
      if (ready instanceof Promise) ready.then(waiter.resolve, waiter.reject);
      else waiter.resolve(ready);
    }
  }

  /** The next result if one is available now, else `undefined` (the caller waits). */
  private take(): IteratorResult<T, void> | Promise<IteratorResult<T, void>> | undefined {
    if (this.done) return this.taken();
    const hub = this.hub;
    const index = this.position - hub.base;
    if (index < hub.log.length) return this.deliver(hub, index);
    if (hub.ended) {
      this.stop("end", hub.failure);
      return this.taken();
    }
    return undefined;
  }

  /** Hands out the log entry at `index` (which exists) and moves past it. */
  private deliver(hub: MessageHub<T>, index: number): IteratorResult<T, void> {
    const log = hub.log;
    const item = log[index] as T;
    const position = this.position + 1;
    this.position = position;
    if (position > hub.unread) hub.firstTaken(position, item);
    // Trim when the reader caught up (usually: once per stdout chunk) or is far ahead.
    if (index + 1 === log.length || index >= TRIM_SLICE) hub.trim();
    const hooks = this.hooks;
    if (hooks !== undefined && hooks.observe !== undefined) hooks.observe(item);
    if (this.stopAfter?.(item)) this.stop("end", undefined);
    return { done: false, value: item };
  }

  /** The final result, for the first caller after the end; done (once it has settled) for the others. */
  private taken(): Promise<IteratorResult<T, void>> {
    const final = this.final!;
    this.final = this.afterFinal;
    return final;
  }

  /**
   * Ends the subscription (once): releases its place in the log and runs `hooks.finish`. `end`:
   * the stream ended, with `error` when it failed; `return`: the reader stopped; `throw`: the reader
   * stopped with `error`. Returns the final result (for `end`, kept for the next `next()`).
   */
  private stop(how: "end" | "return" | "throw", error: unknown): Promise<IteratorResult<T, void>> {
    this.done = true;
    this.hub.release(this);
    const finish = this.hooks?.finish;
    let final: Promise<IteratorResult<T, void>>;
    if (finish) {
      final = finish(how === "end" ? error : undefined).then((reported) => {
        if (how === "throw") throw error;
        if (how === "end" && reported !== undefined) throw reported;
        return DONE;
      });
    } else if (how === "throw" || (how === "end" && error !== undefined)) {
      final = Promise.reject(error);
    } else {
      final = Promise.resolve(DONE);
    }
    this.afterFinal = final.then(
      () => DONE,
      () => DONE,
    );
    if (how === "end") {
      // Kept for the next `next()`; until then, a failure must not count as unhandled.
      final.catch(() => undefined);
      this.final = final;
    } else {
      this.final = this.afterFinal;
    }
    return final;
  }

  /**
   * @internal The reader fell too far behind: it is released at once (what it has not read is no
   * longer kept for it) and its next `next()` rejects with `error`.
   */
  overflow(error: unknown): void {
    if (this.done) return;
    this.stop("end", error);
    this.serveWaiters();
  }

  /** Resolves `next()` calls still waiting once the reader stopped. */
  private cancelWaiters(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.resolve(DONE);
  }
}
