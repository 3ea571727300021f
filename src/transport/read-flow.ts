/**
 * Backpressure between a session's message log and the CLI's stdout: reading pauses while more
 * than a high-water mark of output waits for the reader, and resumes below a low-water mark, so a
 * consumer slower than the CLI holds a bounded amount of memory (the CLI blocks on its full pipe).
 *
 * Pausing must never deadlock the session, so reading goes on regardless in two cases:
 * - while one of our requests awaits its answer (`interrupt()`, `setModel()`, …): the answer is
 *   behind the paused output, so the log may grow past the mark by what that exchange needs;
 * - in short peeks while paused: a request the CLI sent us behind its last output (`can_use_tool`,
 *   a hook, an MCP call) is read and answered although nobody reads the messages before it. A CLI
 *   asking something waits for the answer, so its request is the last thing in the pipe; the peeks
 *   read one pipe chunk at a time, and at most {@link PEEK_BUDGET_FRACTION} of the high-water mark
 *   per pause.
 */

/** Default {@link FlowLimits.highWaterMark}: 16 MiB. */
export const DEFAULT_HIGH_WATER_MARK = 16 * 1024 * 1024;
/** Default {@link FlowLimits.maxReaderLagBytes}: 64 MiB. */
export const DEFAULT_MAX_READER_LAG_BYTES = 64 * 1024 * 1024;
/** How often a paused stream peeks at the pipe. */
export const PEEK_INTERVAL_MS = 50;
/** While paused, peeks read at most this fraction of the high-water mark (then wait for the reader). */
export const PEEK_BUDGET_FRACTION = 0.25;

/** The bounds a session's log keeps, in bytes of CLI output (see `AgentOptions`). */
export interface FlowLimits {
  /** Reading pauses while more than this many bytes of messages wait for the reader. */
  highWaterMark: number;
  /** Reading resumes once no more than this many bytes wait. */
  lowWaterMark: number;
  /** A subscriber further than this behind the furthest one is dropped with `ReaderOverflowError`. */
  maxReaderLagBytes: number;
}

/** The limits from the options' fields, with the defaults for those not given. */
export function flowLimits(options: {
  highWaterMark?: number | undefined;
  lowWaterMark?: number | undefined;
  maxReaderLagBytes?: number | undefined;
}): FlowLimits {
  const highWaterMark = options.highWaterMark ?? DEFAULT_HIGH_WATER_MARK;
  return {
    highWaterMark,
    lowWaterMark: options.lowWaterMark ?? Math.floor(highWaterMark / 2),
    maxReaderLagBytes: options.maxReaderLagBytes ?? DEFAULT_MAX_READER_LAG_BYTES,
  };
}

/** How the reader of one stream is switched, as the transport attaches it. */
export interface ReadSwitch {
  pause(): void;
  resume(): void;
}

/**
 * The flow state shared by a session's log (which measures what waits) and its transport's read
 * loop (which counts what it reads and obeys pause/resume). Reading is paused only when the log
 * asks for it and nothing forces it on.
 */
export class ReadFlow {
  /** Bytes of output read so far, as the transport counts them (a mark for every message). */
  bytesRead = 0;
  readonly highWaterMark: number;
  readonly lowWaterMark: number;
  readonly maxReaderLagBytes: number;
  /** True while the log holds more than the high-water mark (until it drains to the low one). */
  private over = false;
  /** Whether the stream is paused right now. */
  private paused = false;
  /** Our requests awaiting their answers: reading must go on meanwhile. */
  private holds = 0;
  private reader: ReadSwitch | undefined;
  /** Bytes waiting in the log, as the log measures them. */
  private measure: () => number = () => 0;
  private peekTimer: NodeJS.Timeout | undefined;
  /** Set while a peek is reading; the next chunk ends it. */
  private peeking = false;
  /** Bytes read by peeks since the stream was last resumed for the reader. */
  private peeked = 0;
  /** Pending {@link flowing} promises. */
  private waiters: (() => void)[] = [];

  constructor(limits: FlowLimits) {
    this.highWaterMark = limits.highWaterMark;
    this.lowWaterMark = limits.lowWaterMark;
    this.maxReaderLagBytes = limits.maxReaderLagBytes;
  }

  /** The log tells how to measure its backlog (bytes waiting for the reader). */
  measureWith(measure: () => number): void {
    this.measure = measure;
  }

  /** True while the reader should not read (the log is over its mark and nothing forces reading). */
  get isPaused(): boolean {
    return this.paused;
  }

  /** The transport's read loop starts: `reader` pauses and resumes it. Returns the detach function. */
  attach(reader: ReadSwitch): () => void {
    this.reader = reader;
    if (this.paused) reader.pause();
    return () => {
      if (this.reader !== reader) return;
      this.reader = undefined;
      this.stopPeeking();
    };
  }

  /** The read loop read a chunk of `bytes`; a peek ends with it. */
  chunkRead(bytes: number): void {
    this.bytesRead += bytes;
    if (this.peeking) {
      this.peeked += bytes;
      this.peeking = false;
      if (this.paused) this.reader?.pause();
    }
  }

  /** The log grew past the high-water mark. */
  overHighWater(): void {
    if (this.over) return;
    this.over = true;
    this.apply();
  }

  /** The log drained to the low-water mark. */
  belowLowWater(): void {
    if (!this.over) return;
    this.over = false;
    this.peeked = 0;
    this.apply();
  }

  /**
   * One of our requests is on its way: reading goes on until the returned function is called
   * (when its answer arrived, or it failed).
   */
  hold(): () => void {
    this.holds += 1;
    this.apply();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds -= 1;
      // The log may have grown past its mark meanwhile.
      if (!this.over && this.measure() > this.highWaterMark) this.over = true;
      this.apply();
    };
  }

  /** Resolves once reading may go on (at once when it may now), for a loop that pulls batches. */
  flowing(): Promise<void> {
    if (!this.paused) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Stops peeking and lets every waiter go: the session is over. */
  dispose(): void {
    this.stopPeeking();
    this.over = false;
    this.holds = 0;
    this.setPaused(false);
  }

  private apply(): void {
    this.setPaused(this.over && this.holds === 0);
  }

  private setPaused(paused: boolean): void {
    if (paused === this.paused) return;
    this.paused = paused;
    if (paused) {
      this.reader?.pause();
      this.startPeeking();
      return;
    }
    this.stopPeeking();
    this.reader?.resume();
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private startPeeking(): void {
    if (this.peekTimer !== undefined) return;
    this.peekTimer = setInterval(() => this.peek(), PEEK_INTERVAL_MS);
    // A paused session must not keep its host alive.
    this.peekTimer.unref();
  }

  private stopPeeking(): void {
    clearInterval(this.peekTimer);
    this.peekTimer = undefined;
    this.peeking = false;
  }

  /** Lets one chunk through while paused, within the budget. */
  private peek(): void {
    if (!this.paused || this.peeking || this.reader === undefined) return;
    if (this.peeked >= this.highWaterMark * PEEK_BUDGET_FRACTION) return;
    this.peeking = true;
    this.reader.resume();
  }
}
