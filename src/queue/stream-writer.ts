/**
 * Appends one attempt's entries to a run's Redis stream, in order, several to an XADD: the entries
 * added in one turn of the event loop (the messages the CLI's output chunk held) go out together, as
 * one batch (entries.ts), up to {@link MAX_BATCH_ENTRIES} entries or {@link MAX_BATCH_CHARS}
 * characters of JSON. While the previous batch has not been answered, the next one waits for its
 * answer (as Nagle's algorithm does): a loaded machine, whose CLI output comes in more and smaller
 * chunks, then still writes few XADDs, and an idle one loses no time. Up to {@link StreamWriter.WINDOW} batches are in flight; beyond that `add()`
 * waits, so a slow or absent Redis pauses the run (and so the CLI, through its stdout pipe) instead
 * of buffering: what a writer holds is bounded by the window, one batch being filled, and the
 * entries larger than a batch (one each).
 */
import type { Redis } from "ioredis";
import type { EntrySigner } from "./auth.js";
import { encodeBatch, encodePart, MAX_BATCH_ENTRIES, type UnplacedEntry } from "./entries.js";

/** A batch is sent once its entries' JSON reaches this many characters (an entry larger goes alone). */
export const MAX_BATCH_CHARS = 64 * 1024;

export class StreamWriter {
  /** Batches (XADDs) in flight at most. */
  static readonly WINDOW = 16;
  private seq = 0;
  /** The batch being filled: its entries' JSON, its size, the seq of its first entry. */
  private parts: string[] = [];
  private chars = 0;
  private firstSeq = 0;
  /** Sends the batch being filled at the end of this turn of the event loop. */
  private immediate: NodeJS.Immediate | undefined;
  /** The last XADD until Redis answers it; and whether the batch being filled waits for that. */
  private unanswered: Promise<unknown> | undefined;
  private afterAnswer = false;
  private readonly inFlight: Promise<unknown>[] = [];
  private failure: unknown;

  constructor(
    private readonly redis: Redis,
    readonly key: string,
    private readonly attempt: number,
    private readonly maxLen: number,
    /** MACs each stream entry when the worker has a queue key. */
    private readonly signer: EntrySigner | undefined,
    /** A failed write as the run reports it (a `QueueConnectionError` with context). */
    private readonly typed: (error: unknown) => Error,
  ) {}

  /**
   * Adds an entry to the batch being filled (sent at the end of this turn of the event loop, or at
   * once when full). Resolves once fewer than {@link WINDOW} batches are in flight; rejects with the
   * typed error of a write that failed (a write fails once Redis has been gone for
   * `reconnectTimeoutMs`: the connection gives up, so the wait is bounded).
   */
  async add(entry: UnplacedEntry): Promise<void> {
    const part = encodePart(entry);
    if (this.parts.length > 0 && this.chars + part.length > MAX_BATCH_CHARS) this.send();
    if (this.parts.length === 0) this.firstSeq = this.seq;
    this.seq++;
    this.parts.push(part);
    this.chars += part.length;
    if (this.parts.length >= MAX_BATCH_ENTRIES || this.chars >= MAX_BATCH_CHARS) this.send();
    else this.immediate ??= setImmediate(() => this.sendWhenAnswered());
    while (this.inFlight.length >= StreamWriter.WINDOW) await this.inFlight.shift()?.catch(() => {});
    if (this.failure) throw this.failure;
  }

  /**
   * Sends the batch being filled now (its XADD is issued before this returns, so a command issued
   * next on the same connection runs after it).
   */
  send(): void {
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
    this.afterAnswer = false;
    if (this.parts.length === 0) return;
    const fields = encodeBatch(this.attempt, this.firstSeq, this.parts);
    this.parts = [];
    this.chars = 0;
    const write = this.redis.xadd(
      this.key,
      "MAXLEN",
      "~",
      this.maxLen,
      "*",
      ...(this.signer ? this.signer.sign(fields) : fields),
    );
    write.catch((error: unknown) => {
      this.failure ??= this.typed(error);
    });
    this.inFlight.push(write);
    this.unanswered = write;
    const answered = () => {
      if (this.unanswered !== write) return;
      this.unanswered = undefined;
      if (this.afterAnswer) this.send();
    };
    write.then(answered, answered);
  }

  /** Sends the batch being filled now, or once Redis has answered the last XADD. */
  private sendWhenAnswered(): void {
    this.immediate = undefined;
    if (this.unanswered) this.afterAnswer = true;
    else this.send();
  }

  /** Sends what is pending and waits for every write; rejects with the first failure's typed error. */
  async flush(): Promise<void> {
    this.send();
    await Promise.allSettled(this.inFlight.splice(0));
    if (this.failure) throw this.failure;
  }
}
