/**
 * A bound on the bytes one session's file reads hold at once. Each read takes its share before
 * it loads anything and gives it back when its answer is handed over; a read that does not fit
 * waits, first come first served (a big read is not starved by a stream of small ones).
 */

/** Bytes held by the reads of one session, at most `capacity` at a time. */
export class ByteBudget {
  private used = 0;
  private peak = 0;
  private readonly waiting: { bytes: number; grant: () => void }[] = [];

  /** @param capacity The most bytes held at once (a request for more takes the whole budget). */
  constructor(readonly capacity: number) {}

  /** The most bytes that were ever held at once (for measurements). */
  get peakBytes(): number {
    return this.peak;
  }

  /**
   * Resolves once `bytes` (at most the capacity) are available, with the function that gives them
   * back. The release function is idempotent.
   */
  async acquire(bytes: number): Promise<() => void> {
    const share = Math.max(0, Math.min(bytes, this.capacity));
    if (this.waiting.length > 0 || this.used + share > this.capacity) {
      await new Promise<void>((grant) => this.waiting.push({ bytes: share, grant }));
    } else {
      this.take(share);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= share;
      this.grantWaiting();
    };
  }

  private take(bytes: number): void {
    this.used += bytes;
    if (this.used > this.peak) this.peak = this.used;
  }

  private grantWaiting(): void {
    for (;;) {
      const next = this.waiting[0];
      if (!next || this.used + next.bytes > this.capacity) return;
      this.waiting.shift();
      this.take(next.bytes);
      next.grant();
    }
  }
}
