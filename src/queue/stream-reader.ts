/**
 * The producer's reads of its runs' streams, on few connections: the reads waiting for entries go
 * into one `XREAD BLOCK` over their streams per 32 of them, so a producer following hundreds of
 * runs holds a blocked connection per 32, not one per run, and one reply brings the entries of
 * every run of the lane that has some.
 */
import type { Redis } from "ioredis";

/** A stream entry as XREAD gives it: its id and its fields. */
export type StreamItem = [id: string, fields: unknown];

/**
 * Stream entries one read takes at most. Each is a batch of up to 64 entries (entries.ts), so what
 * a reader holds between reads (a slow consumer's, too) stays at most 1 024 of them: 16 × the
 * writer's 64 KiB batches, or 16 entries larger than a batch.
 */
export const READ_COUNT = 16;

/** A read waiting for entries. */
interface PendingRead {
  readonly key: string;
  /** The id of the last entry the reader has: it wants those after it. */
  readonly after: string;
  /** When it stops waiting and resolves `null` (`performance.now()` time). */
  readonly deadline: number;
  resolve(items: StreamItem[] | null): void;
  reject(error: unknown): void;
}

/** Reads one connection's XREAD waits for at most: past it, another connection (lane) opens. */
export const LANE_READS = 32;

/** Lanes kept open while no read waits on them (the rest close when they fall idle). */
const IDLE_LANES = 2;

/**
 * Reads streams for many readers over few connections. A read asks for the entries of one stream
 * after an id and waits up to a time for them; the reads waiting at once share one blocking XREAD
 * per {@link LANE_READS} of them (a lane: one connection), so a producer following hundreds of runs
 * holds a connection per 32 waiting runs, not one per run, and the XREAD a lane sends again after
 * each reply names at most 32 streams. Only reads that are waiting are asked for: a reader that has
 * not come back for more holds at most {@link READ_COUNT} entries.
 */
export class StreamReader {
  private readonly lanes: ReadLane[] = [];
  /** Lanes opened so far: numbers each lane's wake stream. */
  private opened = 0;
  private closedWith: unknown;

  /**
   * @param open opens a connection of its own for a lane (it blocks in XREAD)
   * @param commands a connection for the wake entries (not blocked)
   * @param wakeKey the wake stream of the lane numbered so: keys no one else writes
   */
  constructor(
    private readonly open: () => Redis,
    private readonly commands: Redis,
    private readonly wakeKey: (lane: number) => string,
  ) {}

  /**
   * The entries of stream `key` after the id `after` (at most {@link READ_COUNT}, oldest first) as
   * soon as there are some, or `null` when `waitMs` passed without any. Rejects with the error of
   * the connection (it gave up on Redis, a command failed) or the one this reader was closed with.
   */
  read(key: string, after: string, waitMs: number): Promise<StreamItem[] | null> {
    if (this.closedWith !== undefined) return Promise.reject(this.closedWith);
    // A lane whose connection gave up on Redis (reconnectTimeoutMs) is replaced by a new one.
    for (const dead of this.lanes.filter((l) => !l.usable)) this.retire(dead);
    let lane = this.lanes.find((l) => l.waiting < LANE_READS);
    if (!lane) {
      const opened = new ReadLane(this.open(), this.commands, this.wakeKey(this.opened++), () => {
        // Fallen idle: kept for later reads, unless enough others are.
        if (this.lanes.length > IDLE_LANES && this.closedWith === undefined) this.retire(opened);
      });
      this.lanes.push(opened);
      lane = opened;
    }
    return lane.read(key, after, waitMs);
  }

  /** Rejects every waiting read and later ones with `error`, and closes the connections. */
  close(error: unknown): void {
    if (this.closedWith !== undefined) return;
    this.closedWith = error;
    for (const lane of this.lanes.splice(0)) lane.close(error);
  }

  /** Closes a lane that is idle or dead (it has no waiting read) and forgets it. */
  private retire(lane: ReadLane): void {
    const at = this.lanes.indexOf(lane);
    if (at >= 0) this.lanes.splice(at, 1);
    lane.close(new Error("the reader's lane was closed"));
  }
}

/**
 * One connection's reads: those waiting at once share one blocking XREAD. A read that the XREAD in
 * flight does not cover, or that times out before it, wakes it (an entry on the lane's own wake
 * stream, which every XREAD includes), and the next XREAD covers it.
 */
class ReadLane {
  private readonly pending = new Set<PendingRead>();
  /** The XREAD loop, while one runs. */
  private looping = false;
  /** The streams the XREAD in flight reads, with the id it reads each after. */
  private inFlight: Map<string, string> | undefined;
  /** When the XREAD in flight stops blocking (`performance.now()` time). */
  private inFlightUntil = 0;
  /** Whether a wake was sent for the XREAD in flight. */
  private woken = false;
  /** The id of the last entry read from the wake stream. */
  private wakeSeen = "0-0";
  private closedWith: unknown;

  constructor(
    private readonly connection: Redis,
    private readonly commands: Redis,
    private readonly wakeKey: string,
    /** Called when the last waiting read is answered. */
    private readonly idle: () => void,
  ) {}

  /** Reads waiting. */
  get waiting(): number {
    return this.pending.size;
  }

  /** False once the connection has given up on Redis for good (its reads then fail). */
  get usable(): boolean {
    return this.connection.status !== "end" || this.pending.size > 0;
  }

  /** See {@link StreamReader.read}. */
  read(key: string, after: string, waitMs: number): Promise<StreamItem[] | null> {
    if (this.closedWith !== undefined) return Promise.reject(this.closedWith);
    return new Promise((resolve, reject) => {
      const deadline = performance.now() + Math.max(1, waitMs);
      this.pending.add({ key, after, deadline, resolve, reject });
      if (!this.looping) void this.loop();
      // The XREAD in flight must end early for a read it does not cover, or that times out first.
      else if (this.inFlight && (!covers(this.inFlight, key, after) || deadline < this.inFlightUntil))
        this.wake();
    });
  }

  /** Rejects every waiting read with `error` and closes the connection. */
  close(error: unknown): void {
    if (this.closedWith !== undefined) return;
    this.closedWith = error;
    this.fail(error);
    this.connection.disconnect();
  }

  /** Ends the XREAD in flight early, once, so that the next one covers the reads added since. */
  private wake(): void {
    if (this.woken) return;
    this.woken = true;
    // A failure here is the commands connection's: the read is then covered by the next XREAD,
    // at the latest when the one in flight times out.
    this.commands.xadd(this.wakeKey, "MAXLEN", "1", "*", "w", "1").catch(() => {});
    this.commands.pexpire(this.wakeKey, 3_600_000).catch(() => {});
  }

  private async loop(): Promise<void> {
    this.looping = true;
    try {
      for (;;) {
        // The readers just given entries come back for more first (each resumes in a microtask
        // or an I/O callback): the next XREAD then covers them without a wake.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.closedWith !== undefined) return;
        const streams = this.streamsToRead();
        if (streams.size === 0) return; // every read is answered or timed out
        const blockMs = Math.max(1, Math.ceil(this.nextDeadline() - performance.now()));
        this.woken = false;
        this.inFlight = streams;
        this.inFlightUntil = performance.now() + blockMs;
        let reply: unknown;
        try {
          reply = await this.connection.xread(
            "COUNT",
            READ_COUNT,
            "BLOCK",
            blockMs,
            "STREAMS",
            this.wakeKey,
            ...streams.keys(),
            this.wakeSeen,
            ...streams.values(),
          );
        } catch (error) {
          // A stream that is not one (a key of another type) fails the whole XREAD: its reads get
          // the error, the others read on. Anything else (the connection) fails every read.
          if (
            !(error instanceof Error && error.name === "ReplyError") ||
            !(await this.isolate(streams, error))
          )
            throw error;
          continue;
        } finally {
          this.inFlight = undefined;
        }
        this.deliver(streamReply(reply), streams);
      }
    } catch (error) {
      this.fail(error);
    } finally {
      this.looping = false;
      if (this.closedWith === undefined && this.pending.size === 0) this.idle();
    }
  }

  /**
   * Resolves the reads whose time is up with `null`, and gives, for each stream of the rest, the id
   * to read after: the smallest any of its reads has.
   */
  private streamsToRead(): Map<string, string> {
    const now = performance.now();
    const streams = new Map<string, string>();
    for (const read of this.pending) {
      if (read.deadline <= now) {
        this.pending.delete(read);
        read.resolve(null);
        continue;
      }
      const after = streams.get(read.key);
      if (after === undefined || compareIds(read.after, after) < 0) streams.set(read.key, read.after);
    }
    return streams;
  }

  /**
   * Rejects with `error` the reads of those `streams` whose key holds something other than a
   * stream; whether there was any (when not, the error is not theirs).
   */
  private async isolate(streams: Map<string, string>, error: Error): Promise<boolean> {
    const keys = [...streams.keys()];
    const types = await Promise.all(keys.map((key) => this.commands.type(key)));
    const wrong = new Set(keys.filter((_, i) => types[i] !== "stream" && types[i] !== "none"));
    for (const read of this.pending) {
      if (!wrong.has(read.key)) continue;
      this.pending.delete(read);
      read.reject(error);
    }
    return wrong.size > 0;
  }

  private nextDeadline(): number {
    let next = Number.POSITIVE_INFINITY;
    for (const read of this.pending) next = Math.min(next, read.deadline);
    return next;
  }

  /**
   * Gives each read that the XREAD of `streams` covered the entries of its stream after its id,
   * when there are any (a read added while it was in flight may want older ones: it waits).
   */
  private deliver(reply: Map<string, StreamItem[]>, streams: Map<string, string>): void {
    const wake = reply.get(this.wakeKey);
    if (wake?.length) this.wakeSeen = wake[wake.length - 1]![0];
    if (reply.size === 0) return;
    for (const read of this.pending) {
      if (!covers(streams, read.key, read.after)) continue;
      const items = reply.get(read.key);
      if (!items) continue;
      const start = items.findIndex(([id]) => compareIds(id, read.after) > 0);
      if (start < 0) continue;
      this.pending.delete(read);
      read.resolve(start === 0 ? items : items.slice(start));
    }
  }

  private fail(error: unknown): void {
    for (const read of this.pending) read.reject(error);
    this.pending.clear();
  }
}

/**
 * Whether an XREAD of `streams` (each key with the id it reads after) returns what a read of `key`
 * after `after` wants.
 */
function covers(streams: Map<string, string>, key: string, after: string): boolean {
  const since = streams.get(key);
  return since !== undefined && compareIds(since, after) <= 0;
}

/** Orders two stream ids (`<ms>-<seq>`, both decimal). */
export function compareIds(a: string, b: string): number {
  const [am = "0", as = "0"] = a.split("-");
  const [bm = "0", bs = "0"] = b.split("-");
  return compareDecimal(am, bm) || compareDecimal(as, bs);
}

/** Orders two unsigned decimal integers given as strings (they may exceed 2^53). */
function compareDecimal(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** An XREAD reply by stream key, or a `TypeError` for a reply of another shape (it comes from Redis). */
export function streamReply(reply: unknown): Map<string, StreamItem[]> {
  const streams = new Map<string, StreamItem[]>();
  if (reply === null) return streams;
  const wellFormed =
    Array.isArray(reply) &&
    reply.every(
      (stream) =>
        Array.isArray(stream) &&
        typeof stream[0] === "string" &&
        Array.isArray(stream[1]) &&
        (stream[1] as unknown[]).every((item) => Array.isArray(item) && typeof item[0] === "string"),
    );
  if (!wellFormed) throw new TypeError("XREAD answered with a reply of an unexpected shape");
  for (const [key, items] of reply as [string, StreamItem[]][]) streams.set(key, items);
  return streams;
}
