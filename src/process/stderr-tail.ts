/**
 * Keeps the last few lines a process wrote to stderr, so a failure can be reported with the
 * CLI's own explanation, without letting a chatty process grow memory without bound.
 */
import { BufferOverflowError } from "../errors.js";
import { detachedString } from "../wire/detached-string.js";
import { describeError } from "../wire/safe-json.js";
import { LineSplitter } from "./line-splitter.js";

/** Options for {@link StderrTail}. */
export interface StderrTailOptions {
  /** Most lines kept. Default 100. */
  maxLines?: number;
  /** Most bytes kept (UTF-8, counting one newline per line). Default 16 KiB. */
  maxBytes?: number;
  /**
   * Called with every complete stderr line. A callback that throws does not disturb the process
   * or the tail; the first such error is reported once through `process.emitWarning`.
   */
  onLine?: (line: string) => void;
}

/** Default number of stderr lines kept. */
export const DEFAULT_STDERR_TAIL_LINES = 100;
/** Default number of stderr bytes kept. */
export const DEFAULT_STDERR_TAIL_BYTES = 16 * 1024;

/** A bounded tail of a process's stderr, fed chunk by chunk. */
export class StderrTail {
  private readonly maxLines: number;
  private readonly maxBytes: number;
  private readonly onLine: ((line: string) => void) | undefined;
  private readonly splitter: LineSplitter;
  private readonly lines: string[] = [];
  private bytes = 0;
  private warnedAboutCallback = false;

  constructor(options: StderrTailOptions = {}) {
    this.maxLines = Math.max(1, options.maxLines ?? DEFAULT_STDERR_TAIL_LINES);
    this.maxBytes = Math.max(1, options.maxBytes ?? DEFAULT_STDERR_TAIL_BYTES);
    this.onLine = options.onLine;
    // A single stderr line longer than the whole tail could never be kept anyway.
    this.splitter = new LineSplitter({ maxLineBytes: this.maxBytes });
  }

  /** Feeds one stderr chunk. */
  push(chunk: Buffer): void {
    for (const item of this.splitter.push(chunk)) this.accept(item);
  }

  /** Flushes a final line that had no trailing newline. Call when stderr ends. */
  end(): void {
    for (const item of this.splitter.end()) this.accept(item);
  }

  /** The kept lines joined with `\n` (no trailing newline); empty if nothing was written. */
  text(): string {
    return this.lines.join("\n");
  }

  private accept(item: string | BufferOverflowError): void {
    const line =
      item instanceof BufferOverflowError
        ? `${item.lineHead} [stderr line truncated: ${item.lineLength}+ bytes exceeded ${item.limit}]`
        : item;
    this.keep(detachedString(line));
    this.notify(line);
  }

  private keep(line: string): void {
    this.lines.push(line);
    this.bytes += Buffer.byteLength(line) + 1;
    while (this.lines.length > 1 && (this.lines.length > this.maxLines || this.bytes > this.maxBytes)) {
      this.bytes -= Buffer.byteLength(this.lines.shift()!) + 1;
    }
  }

  private notify(line: string): void {
    if (!this.onLine) return;
    try {
      this.onLine(line);
    } catch (err) {
      // The callback is the caller's code running inside our stream handler: rethrowing would
      // crash the process from an 'data' event. Surface it once instead of dropping it silently.
      if (!this.warnedAboutCallback) {
        this.warnedAboutCallback = true;
        process.emitWarning(
          `onStderrLine callback threw (further errors from it are not reported): ${describeError(err)}`,
          { code: "CODE_AGENT_SDK_STDERR_CALLBACK" },
        );
      }
    }
  }
}
