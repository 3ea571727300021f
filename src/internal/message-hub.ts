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
 * reading still gets the whole turn, including the messages the monitor took first.
 */

/** How many already-read messages of the current turn are kept for a late response view. */
const TURN_RETENTION = 10_000;

interface Cursor {
  position: number;
  wake: (() => void) | undefined;
}

/** A multi-reader queue with end-of-stream and error propagation. */
export class MessageHub<T> {
  private log: T[] = [];
  /** Absolute index of `log[0]`. */
  private base = 0;
  /** Absolute index of the first message that no subscriber has received yet. */
  private unread = 0;
  private readonly cursors = new Set<Cursor>();
  private ended = false;
  private failure: unknown;
  /** Absolute index just after the last boundary item any reader has received. */
  private turnStart = 0;

  /** @param isBoundary marks the last item of a turn (a `result`); without it there are no turns. */
  constructor(private readonly isBoundary?: (item: T) => boolean) {
    if (!isBoundary) this.turnStart = Number.POSITIVE_INFINITY;
  }

  /** Appends a message and wakes readers. Ignored after `end()`. */
  push(item: T): void {
    if (this.ended) return;
    this.log.push(item);
    this.wakeAll();
  }

  /** Ends the stream; readers finish after draining. With `error`, readers throw it after draining. */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = error;
    this.wakeAll();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /**
   * Reads messages. `stopAfter` ends this subscription after the first item it matches (that item
   * is delivered). Breaking out of the loop releases the subscription.
   */
  subscribe(stopAfter?: (item: T) => boolean): AsyncGenerator<T, void, undefined> {
    return this.read(this.unread, stopAfter);
  }

  /** Reads the current turn from its start, up to and including its boundary item. */
  subscribeTurn(): AsyncGenerator<T, void, undefined> {
    return this.read(Math.max(this.base, Math.min(this.unread, this.turnStart)), this.isBoundary);
  }

  private async *read(start: number, stopAfter?: (item: T) => boolean): AsyncGenerator<T, void, undefined> {
    const cursor: Cursor = { position: start, wake: undefined };
    this.cursors.add(cursor);
    try {
      for (;;) {
        if (cursor.position < this.base + this.log.length) {
          const item = this.log[cursor.position - this.base] as T;
          cursor.position += 1;
          if (cursor.position > this.unread) this.unread = cursor.position;
          if (cursor.position > this.turnStart && this.isBoundary?.(item)) this.turnStart = cursor.position;
          this.trim();
          yield item;
          if (stopAfter?.(item)) return;
          continue;
        }
        if (this.ended) {
          if (this.failure !== undefined) throw this.failure;
          return;
        }
        await new Promise<void>((resolve) => {
          cursor.wake = resolve;
        });
        cursor.wake = undefined;
      }
    } finally {
      this.cursors.delete(cursor);
      this.trim();
    }
  }

  private wakeAll(): void {
    for (const cursor of this.cursors) cursor.wake?.();
  }

  /** Drops messages every reader (present and future) has passed. */
  private trim(): void {
    // The current turn is kept for late response views, but never more than TURN_RETENTION
    // messages of it (a long turn with partial events must not grow without bound).
    let keepFrom = Math.min(this.unread, Math.max(this.turnStart, this.unread - TURN_RETENTION));
    for (const cursor of this.cursors) keepFrom = Math.min(keepFrom, cursor.position);
    const drop = keepFrom - this.base;
    if (drop > 1024 || (drop > 0 && drop === this.log.length)) {
      this.log = this.log.slice(drop);
      this.base = keepFrom;
    }
  }
}
