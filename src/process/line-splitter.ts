/**
 * Turns a byte stream into complete text lines. Works on Buffers rather than strings so a
 * multi-byte UTF-8 character split across two chunks is only decoded once the whole line is in.
 */
import { StringDecoder } from "node:string_decoder";
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
 * A pending line longer than this is decoded as it arrives (see {@link LineSplitter}), so a huge
 * line is held once as text instead of as chunks, then a joined copy, then text.
 */
const DECODE_PENDING_ABOVE_BYTES = 1024 * 1024;

/**
 * Incremental line splitter for `\n` / `\r\n` delimited text.
 *
 * Results come back in stream order from {@link push} and {@link end}; an overflow is returned in
 * place of the line it replaces, so the caller decides whether it is fatal. Empty and
 * whitespace-only lines are skipped.
 *
 * A line that completes inside one chunk is decoded straight from it. A line spanning chunks is
 * kept as its chunks and decoded once complete; once it grows past 1 MiB it is decoded chunk by
 * chunk instead (a multi-byte character split between chunks is carried over by a
 * `StringDecoder`), so its bytes can be released as it arrives.
 */
export class LineSplitter {
  private readonly maxLineBytes: number;
  /** The pending (incomplete) line as the chunks it arrived in; joined once, when it completes. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** A long pending line, decoded so far (then `pending` is empty); `undefined` until then. */
  private decoder: StringDecoder | undefined;
  private decoded: string[] = [];
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
    const length = chunk.length;
    let start = 0;
    // A line begun in an earlier chunk (or one being discarded) ends at this chunk's first newline.
    if (this.pendingBytes > 0 || this.discarding) {
      const nl = chunk.indexOf(NEWLINE);
      if (nl === -1) {
        this.appendPending(chunk, out);
        return out;
      }
      if (this.discarding) {
        this.discarding = false;
      } else {
        this.pending.push(chunk.subarray(0, nl));
        this.pendingBytes += nl;
        this.flushPending(out);
      }
      start = nl + 1;
    }
    const last = chunk.lastIndexOf(NEWLINE);
    if (last >= start) {
      // The complete lines: decoded in one call when none of them can be over the limit.
      if (last - start <= this.maxLineBytes) this.splitText(chunk.toString("utf8", start, last), out);
      else this.splitEach(chunk, start, last, out);
      start = last + 1;
    }
    if (start < length) this.appendPending(chunk.subarray(start), out);
    return out;
  }

  /**
   * The lines of `text` (complete lines, decoded together: a newline byte is never part of a
   * multi-byte character, so this equals decoding each line alone), `\r\n` and blank lines
   * handled as everywhere else.
   */
  private splitText(text: string, out: SplitItem[]): void {
    let from = 0;
    for (;;) {
      const nl = text.indexOf("\n", from);
      const end = nl === -1 ? text.length : nl;
      const line =
        text.charCodeAt(end - 1) === CARRIAGE_RETURN ? text.slice(from, end - 1) : text.slice(from, end);
      if (line.length > 0 && !isBlank(line)) out.push(line);
      if (nl === -1) return;
      from = nl + 1;
    }
  }

  /** The complete lines of `chunk[start, last]` one by one, each checked against the limit. */
  private splitEach(chunk: Buffer, start: number, last: number, out: SplitItem[]): void {
    while (start <= last) {
      const nl = chunk.indexOf(NEWLINE, start);
      this.emit(chunk.subarray(start, nl), out);
      start = nl + 1;
    }
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
    if (this.pendingBytes > this.maxLineBytes + 1) {
      this.overflow(out);
      return;
    }
    if (this.decoder !== undefined || this.pendingBytes > DECODE_PENDING_ABOVE_BYTES) this.decodePending();
  }

  /** Decodes the pending chunks onto the decoded text of the line, releasing them. */
  private decodePending(): void {
    this.decoder ??= new StringDecoder("utf8");
    for (const part of this.pending) this.decoded.push(this.decoder.write(part));
    this.pending = [];
  }

  private flushPending(out: SplitItem[]): void {
    const bytes = this.pendingBytes;
    if (this.decoder !== undefined) {
      this.decodePending();
      this.decoded.push(this.decoder.end());
      const parts = this.decoded;
      this.decoder = undefined;
      this.decoded = [];
      this.pendingBytes = 0;
      this.emitText(parts.join(""), bytes, out);
      return;
    }
    const line = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, bytes);
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
    if (!isBlank(text)) out.push(text);
  }

  /** {@link emit} for a line decoded as it arrived: `bytes` is its length on the wire. */
  private emitText(raw: string, bytes: number, out: SplitItem[]): void {
    const cr = raw.endsWith("\r");
    const text = cr ? raw.slice(0, -1) : raw;
    const length = cr ? bytes - 1 : bytes;
    if (length > this.maxLineBytes) {
      out.push(new BufferOverflowError(this.maxLineBytes, headOfText([text]), length));
      return;
    }
    if (!isBlank(text)) out.push(text);
  }

  private overflow(out: SplitItem[]): void {
    const head = this.decoder !== undefined ? headOfText(this.decoded) : headOf(this.pending);
    out.push(new BufferOverflowError(this.maxLineBytes, head, this.pendingBytes));
    this.pending = [];
    this.pendingBytes = 0;
    this.decoder = undefined;
    this.decoded = [];
    this.discarding = true;
  }
}

/** True for an empty or whitespace-only line; cheap for a line that starts a JSON object. */
function isBlank(text: string): boolean {
  return text.charCodeAt(0) !== 0x7b /* { */ && text.trim() === "";
}

/** The first bytes of an already decoded line, for error messages. */
function headOfText(parts: readonly string[]): string {
  let head = "";
  for (const part of parts) {
    if (head.length >= OVERFLOW_HEAD_BYTES) break;
    head += part.slice(0, OVERFLOW_HEAD_BYTES - head.length);
  }
  return Buffer.from(head).subarray(0, OVERFLOW_HEAD_BYTES).toString("utf8");
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
