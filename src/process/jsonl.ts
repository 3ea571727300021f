/**
 * Reads a stream of JSON lines (one JSON object per line), as every supported agent CLI emits.
 */
import { Readable } from "node:stream";
import { BufferOverflowError, JsonDecodeError } from "../errors.js";
import { detachedString } from "../wire/detached-string.js";
import { LineSplitter, type SplitItem } from "./line-splitter.js";

/** Options for {@link readJsonLines} and {@link readJsonLineBatches}. */
export interface ReadJsonLinesOptions {
  /** Longest accepted line, in bytes. A longer line throws {@link BufferOverflowError}. */
  maxLineBytes: number;
}

/**
 * Backpressure for {@link readJsonLinesInto} (a session's `ReadFlow`): told the size of every chunk
 * read, it pauses and resumes the stream through the switch given to `attach`.
 */
export interface ReadFlowControl {
  chunkRead(bytes: number): void;
  attach(reader: { pause(): void; resume(): void }): () => void;
}

/** One line read: a JSON object, or the {@link JsonDecodeError} saying why the line is not one. */
export type JsonLineItem = Record<string, unknown> | JsonDecodeError;

/**
 * How many bytes of parsed lines may wait for the reader before the stream is paused (the process
 * writing it then blocks on a full pipe).
 */
const BATCH_HIGH_WATER_MARK = 1024 * 1024;

/**
 * Yields each line of `stdout` parsed as a JSON object, as soon as its newline arrives.
 *
 * A line that is not JSON, or is JSON but not an object, is yielded as a {@link JsonDecodeError}
 * and reading continues. A line over `maxLineBytes` throws a {@link BufferOverflowError}: the
 * stream is out of sync with the protocol at that point. A final line without a trailing newline
 * is still parsed when the stream ends.
 *
 * Stopping iteration early destroys the underlying stream. A Node `Readable` is read as
 * {@link readJsonLineBatches} reads it.
 */
export async function* readJsonLines(
  stdout: AsyncIterable<Buffer | string>,
  options: ReadJsonLinesOptions,
): AsyncGenerator<JsonLineItem, void, undefined> {
  if (stdout instanceof Readable) {
    for await (const batch of readJsonLineBatches(stdout, options)) for (const item of batch) yield item;
    return;
  }
  const splitter = new LineSplitter({ maxLineBytes: options.maxLineBytes });
  for await (const chunk of stdout) {
    const items = splitter.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
    for (const item of items) yield toMessage(item);
  }
  for (const item of splitter.end()) yield toMessage(item);
}

/**
 * Reads `stream` as {@link readJsonLines} does, but yields the lines in batches: every line that
 * arrived since the reader last asked (at least one), so a reader that keeps up awaits once per
 * chunk of output rather than once per line.
 *
 * The stream is read through its `data` events (no chunks are copied together) and paused while
 * more than 1 MiB of read lines wait for the reader. It ends at `end`, and also at a `close`
 * without `end` (the stream was destroyed because its writer went away, see `ChildHandle.stdout`).
 * A stream `error` is thrown after the lines before it. Stopping iteration early destroys the
 * stream.
 */
export function readJsonLineBatches(
  stream: Readable,
  options: ReadJsonLinesOptions,
): AsyncIterableIterator<JsonLineItem[]> {
  return new JsonLineBatches(stream, new LineSplitter({ maxLineBytes: options.maxLineBytes }));
}

/**
 * Reads `stream` as {@link readJsonLineBatches} does, but hands each line to `onItem` as soon as it
 * is parsed, from the stream's `data` event: no batch, no promise, no await between the pipe and
 * the caller. For a reader that handles every line at once (a session's read loop), which never
 * lags, so the stream is paused only when `flow` says so (the session's log is over its mark).
 *
 * Resolves at `end` (or a `close` without `end`) after the last line; rejects with a stream
 * `error` or a {@link BufferOverflowError} (the stream is then destroyed), and with a
 * {@link ReaderThrew} holding what `onItem` threw (the stream is then destroyed too; nothing more
 * is delivered).
 */
export function readJsonLinesInto(
  stream: Readable,
  options: ReadJsonLinesOptions & { flow?: ReadFlowControl | undefined },
  onItem: (item: JsonLineItem) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const splitter = new LineSplitter({ maxLineBytes: options.maxLineBytes });
    const flow = options.flow;
    let done = false;
    const finish = (error?: unknown): void => {
      if (done) return;
      done = true;
      detachFlow();
      stopListening();
      if (error === undefined) resolve();
      else reject(error);
    };
    /** Delivers `items`; false once reading has to stop (an overflow, or `onItem` threw). */
    const deliver = (items: SplitItem[]): boolean => {
      try {
        for (let i = 0; i < items.length; i++) {
          const item = items[i]!;
          if (typeof item !== "string") {
            // The stream is out of sync with the protocol: nothing after this line can be trusted.
            finish(item);
            return false;
          }
          onItem(parseJsonLine(item));
          if (done) return false;
        }
      } catch (error) {
        finish(new ReaderThrew(error));
        return false;
      }
      return true;
    };
    const onData = (chunk: Buffer | string): void => {
      if (done) return;
      if (flow !== undefined) flow.chunkRead(chunk.length);
      const items = splitter.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
      if (!deliver(items)) stream.destroy();
    };
    const onEnd = (): void => {
      if (done) return;
      if (deliver(splitter.end())) finish();
    };
    const stopListening = listen(stream, onData, onEnd, (error) => finish(error));
    const detachFlow = flow?.attach({ pause: () => stream.pause(), resume: () => stream.resume() }) ?? ignore;
  });
}

/**
 * Listens to `stream`'s data, its end (`end`, or a `close` without one: the stream was destroyed
 * because its writer went away) and its errors. Returns the function that stops listening; an error
 * after that changes nothing for the reader and must not crash the process as an unhandled 'error'.
 */
function listen(
  stream: Readable,
  onData: (chunk: Buffer | string) => void,
  onEnd: () => void,
  onError: (error: Error) => void,
): () => void {
  stream.on("data", onData);
  stream.on("end", onEnd);
  stream.on("close", onEnd);
  stream.on("error", onError);
  return () => {
    stream.off("data", onData);
    stream.off("end", onEnd);
    stream.off("close", onEnd);
    stream.off("error", onError);
    stream.on("error", ignore);
  };
}

/** {@link readJsonLinesInto}'s rejection when the reader's own `onItem` threw `error`. */
export class ReaderThrew {
  constructor(readonly error: unknown) {}
}

/**
 * Parses one line into a JSON object, or a {@link JsonDecodeError} explaining why it is not one. A
 * leading UTF-8 byte order mark (some Windows-built tools print one before their first line) is
 * whitespace here, as a whitespace-only line is.
 */
export function parseJsonLine(line: string): Record<string, unknown> | JsonDecodeError {
  let value: unknown;
  try {
    // The byte order mark checked here rather than through withoutByteOrderMark: this runs for
    // every line, and one function less on that path is one compile job less for V8.
    value = JSON.parse(line.charCodeAt(0) === BYTE_ORDER_MARK ? line.slice(1) : line);
  } catch {
    return notJson(line);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return new JsonDecodeError(`Line from the CLI is JSON but ${kind}, not an object`, line);
  }
  return value as Record<string, unknown>;
}

const BYTE_ORDER_MARK = 0xfeff;

/** `line` without a leading UTF-8 byte order mark (whitespace to us, not to `JSON.parse`). */
function withoutByteOrderMark(line: string): string {
  return line.charCodeAt(0) === BYTE_ORDER_MARK ? line.slice(1) : line;
}

/**
 * The error for a line that is not JSON. Its cause is `JSON.parse`'s own error, taken again on a
 * copy of the line: V8's message quotes the text it failed on as a view into it, and `line` may be
 * a view into a whole chunk of output (see `LineSplitter`), which the error would otherwise keep.
 */
function notJson(line: string): JsonDecodeError {
  const own = detachedString(line);
  let cause: unknown;
  try {
    JSON.parse(withoutByteOrderMark(own));
  } catch (err) {
    cause = err;
  }
  return new JsonDecodeError("Line from the CLI is not valid JSON", own, undefined, cause);
}

function toMessage(item: SplitItem): JsonLineItem {
  if (item instanceof BufferOverflowError) throw item;
  return parseJsonLine(item);
}

interface Waiter {
  resolve(result: IteratorResult<JsonLineItem[], undefined>): void;
  reject(error: unknown): void;
}

const DONE: IteratorResult<never, undefined> = Object.freeze({ done: true, value: undefined });
/** {@link JsonLineBatches.take}'s answer when the reader is to get the stream's failure. */
const FAILED = Symbol("failed");

class JsonLineBatches implements AsyncIterableIterator<JsonLineItem[]> {
  /** Lines read and not yet taken by the reader. */
  private ready: JsonLineItem[] = [];
  /** Bytes of the chunks that brought the lines in `ready`, for backpressure. */
  private readyBytes = 0;
  private paused = false;
  /** No more lines will come: the stream ended or failed, or the reader stopped. */
  private sourceDone = false;
  private failed = false;
  private failure: unknown;
  /** The reader has had everything, including the failure: every `next()` is done. */
  private finished = false;
  private readonly waiters: Waiter[] = [];
  private readonly detach: () => void;

  constructor(
    private readonly stream: Readable,
    private readonly splitter: LineSplitter,
  ) {
    this.detach = listen(stream, this.onData, this.onEnd, this.onError);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<JsonLineItem[], undefined>> {
    if (this.waiters.length === 0) {
      const result = this.take();
      if (result === FAILED) return Promise.reject(this.failure);
      if (result !== undefined) return Promise.resolve(result);
    }
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  async return(): Promise<IteratorResult<JsonLineItem[], undefined>> {
    this.finished = true;
    this.detach();
    this.ready = [];
    this.stream.destroy();
    this.serveWaiters();
    return DONE;
  }

  /** What the reader gets now: a result, {@link FAILED} (once), or `undefined` if it has to wait. */
  private take(): IteratorResult<JsonLineItem[], undefined> | typeof FAILED | undefined {
    if (this.ready.length > 0) {
      const batch = this.ready;
      this.ready = [];
      this.readyBytes = 0;
      if (this.paused && !this.sourceDone) {
        this.paused = false;
        this.stream.resume();
      }
      return { done: false, value: batch };
    }
    if (this.finished) return DONE;
    if (!this.sourceDone) return undefined;
    this.finished = true;
    return this.failed ? FAILED : DONE;
  }

  private serveWaiters(): void {
    while (this.waiters.length > 0) {
      const result = this.take();
      if (result === undefined) return;
      const waiter = this.waiters.shift()!;
      if (result === FAILED) waiter.reject(this.failure);
      else waiter.resolve(result);
    }
  }

  private readonly onData = (chunk: Buffer | string): void => {
    if (this.sourceDone) return;
    const items = this.splitter.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
    for (const item of items) {
      if (item instanceof BufferOverflowError) {
        // The stream is out of sync with the protocol: nothing after this line can be trusted, so
        // nothing more is read.
        this.fail(item);
        this.stream.destroy();
        return;
      }
      this.ready.push(parseJsonLine(item));
    }
    // Only lines waiting for the reader count: a long line still arriving is not waiting on it.
    if (this.ready.length === 0) return;
    this.readyBytes += chunk.length;
    if (this.readyBytes > BATCH_HIGH_WATER_MARK && !this.paused) {
      this.paused = true;
      this.stream.pause();
    }
    if (this.waiters.length > 0) this.serveWaiters();
  };

  private readonly onEnd = (): void => {
    if (this.sourceDone) return;
    for (const item of this.splitter.end()) {
      if (item instanceof BufferOverflowError) {
        this.fail(item);
        return;
      }
      this.ready.push(parseJsonLine(item));
    }
    this.sourceDone = true;
    this.detach();
    this.serveWaiters();
  };

  private readonly onError = (error: Error): void => {
    if (!this.sourceDone) this.fail(error);
  };

  private fail(error: unknown): void {
    this.sourceDone = true;
    this.failed = true;
    this.failure = error;
    this.detach();
    this.serveWaiters();
  }
}

function ignore(): void {}
