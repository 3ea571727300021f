/**
 * Turns a byte stream into complete text lines. Works on Buffers rather than strings so a
 * multi-byte UTF-8 character split across two chunks is only decoded once the whole line is in.
 */
import { AgentSdkError, BufferOverflowError, InvalidOptionsError } from "../errors.js";

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
/** Bytes of an overflowing line kept for the error message; JsonDecodeError trims to 200 chars. */
const OVERFLOW_HEAD_BYTES = 256;

/** Options for {@link LineSplitter}. */
export interface LineSplitterOptions {
  /**
   * Longest line accepted, in bytes, excluding the line terminator. A longer line is reported as a
   * {@link BufferOverflowError} and its bytes are discarded up to the next newline. Default: no limit.
   */
  maxLineBytes?: number;
}

/** One result of splitting: a complete line, or the report that a line exceeded `maxLineBytes`. */
export type SplitItem = string | BufferOverflowError;

/**
 * Incremental line splitter for `\n` / `\r\n` delimited text.
 *
 * Results come back in stream order from {@link push} and {@link end}; an overflow is returned in
 * place of the line it replaces, so the caller decides whether it is fatal. Empty and
 * whitespace-only lines are skipped.
 */
export class LineSplitter {
  private readonly maxLineBytes: number;
  /** The pending (incomplete) line as the chunks it arrived in; joined once, when it completes. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set after an overflow: bytes are dropped until the next newline so reading can resync. */
  private discarding = false;
  private ended = false;

  constructor(options: LineSplitterOptions = {}) {
    const max = options.maxLineBytes ?? Number.POSITIVE_INFINITY;
    if (!(max > 0)) throw new InvalidOptionsError([`maxLineBytes: must be a positive number, got ${max}`]);
    this.maxLineBytes = max;
  }

  /** Feeds one chunk; returns every line it completed, in order. */
  push(chunk: Buffer): SplitItem[] {
    if (this.ended) throw new AgentSdkError("LineSplitter.push() called after end()");
    const out: SplitItem[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) {
        this.appendPending(chunk.subarray(start), out);
        break;
      }
      if (this.discarding) {
        this.discarding = false;
      } else if (this.pendingBytes === 0) {
        // Fast path: the whole line sits in this chunk, no copy needed.
        this.emit(chunk.subarray(start, nl), out);
      } else {
        this.pending.push(chunk.subarray(start, nl));
        this.pendingBytes += nl - start;
        this.flushPending(out);
      }
      start = nl + 1;
    }
    return out;
  }

  /** Signals end of input; returns the final line if the stream did not end with a newline. */
  end(): SplitItem[] {
    if (this.ended) return [];
    this.ended = true;
    const out: SplitItem[] = [];
    if (!this.discarding && this.pendingBytes > 0) this.flushPending(out);
    this.discarding = false;
    return out;
  }

  /** Bytes currently held for an incomplete line. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  private appendPending(part: Buffer, out: SplitItem[]): void {
    if (this.discarding || part.length === 0) return;
    this.pending.push(part);
    this.pendingBytes += part.length;
    // One byte of slack: the pending line may end in the `\r` of a `\r\n` that is not counted.
    // The exact check happens when the line completes.
    if (this.pendingBytes > this.maxLineBytes + 1) this.overflow(out);
  }

  private flushPending(out: SplitItem[]): void {
    const line =
      this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.emit(line, out);
  }

  private emit(raw: Buffer, out: SplitItem[]): void {
    const line = raw.length > 0 && raw[raw.length - 1] === CARRIAGE_RETURN ? raw.subarray(0, -1) : raw;
    if (line.length > this.maxLineBytes) {
      out.push(new BufferOverflowError(this.maxLineBytes, headOf([line]), line.length));
      return;
    }
    const text = line.toString("utf8");
    if (text.trim() !== "") out.push(text);
  }

  private overflow(out: SplitItem[]): void {
    out.push(new BufferOverflowError(this.maxLineBytes, headOf(this.pending), this.pendingBytes));
    this.pending = [];
    this.pendingBytes = 0;
    this.discarding = true;
  }
}

/** Decodes the first bytes of a line for error messages (a split character becomes U+FFFD). */
function headOf(parts: readonly Buffer[]): string {
  const head: Buffer[] = [];
  let bytes = 0;
  for (const part of parts) {
    if (bytes >= OVERFLOW_HEAD_BYTES) break;
    const take = part.subarray(0, OVERFLOW_HEAD_BYTES - bytes);
    head.push(take);
    bytes += take.length;
  }
  return Buffer.concat(head, bytes).toString("utf8");
}
