/**
 * Recording a session's wire traffic to JSON lines (`options.record`), for replay with
 * `ReplayTransport` (from `code-agent-sdk/testing`).
 *
 * File format (one JSON object per line; `t` is milliseconds since the recording started):
 *
 * | line | meaning |
 * |---|---|
 * | `{ kind: "header", format: "code-agent-sdk/recording", version: 1, backend, sdkVersion, startedAt }` | first line |
 * | `{ t, kind: "out", line }` / `{ t, kind: "out", text }` | the SDK wrote a JSON line / a text line (a `codex exec` prompt) |
 * | `{ t, kind: "in", line }` | the CLI wrote a JSON line |
 * | `{ t, kind: "invalid", text }` | the CLI wrote a line that is not JSON (start of it) |
 * | `{ t, kind: "end-input" }` / `{ t, kind: "close" }` | the SDK closed the CLI's input / closed the session |
 * | `{ t, kind: "end", error? }` | the CLI's output ended (with the failure, if any) |
 * | `{ t, kind: "gap", direction?, reason }` | something is missing here: a line that could not be recorded, or the end of a recording that stopped |
 *
 * Secrets are redacted before anything is written (see {@link Redactor}): a best effort, so a
 * recording is reviewed before it is committed.
 */
import type { FileHandle } from "node:fs/promises";
import { JsonDecodeError, ProcessError } from "../errors.js";
import { describeError, trySerialise } from "../wire/safe-json.js";
import type { ReadFlow } from "./read-flow.js";
import { READ_INTO } from "./read-transport.js";
import { openRecordingFile, QueuedFileWriter, RecordingError } from "./recording-file.js";
import { KEPT_ENV_NAMES, Redactor } from "./redact.js";
import type { Transport, TransportItem } from "./transport.js";

export { RecordingError } from "./recording-file.js";

/** Where and how to record (the object form of `options.record`). */
export interface RecordOptions {
  /**
   * The JSONL file to write. It is created when the session connects, mode 0600, and must not
   * exist yet (not even as a symbolic link, FIFO or directory): the session fails with
   * {@link RecordingError} otherwise, before the CLI is started.
   */
  path: string;
  /**
   * Replace a file already at `path`, when it is a regular file of this process's user with no
   * other hard link (it is truncated; a symbolic link, FIFO, device or directory is still
   * refused, and no link is ever followed). Default `false`.
   */
  overwrite?: boolean;
  /** More values to redact wherever they appear (besides the environment and the secret shapes found automatically). */
  redact?: string[];
  /**
   * Environment variables whose values stay in clear, besides the built-in list
   * (`KEPT_ENV_NAMES`: `PATH`, `HOME`, `LANG`, `TERM`, …). A trailing `*` makes a prefix.
   */
  keepEnv?: string[];
  /**
   * Called when the recording misses something while the session goes on: a line it could not
   * record (nested too deeply, not serialisable) is replaced by a `gap` line, and a file that
   * fails or falls behind stops the recording. Default: one process warning per recording
   * (code `CODE_AGENT_SDK_RECORDING`). Never called for the session's own failures.
   */
  onError?: (error: RecordingError) => void;
}

/** The `format` field of a recording's header line. */
export const RECORDING_FORMAT = "code-agent-sdk/recording";

/** One line of a recording (after the header). */
export type RecordedEvent =
  | { t: number; kind: "out"; line: unknown }
  | { t: number; kind: "out"; text: string }
  | { t: number; kind: "in"; line: Record<string, unknown> }
  | { t: number; kind: "invalid"; text: string }
  | { t: number; kind: "end-input" }
  | { t: number; kind: "close" }
  | { t: number; kind: "end"; error?: RecordedError }
  | { t: number; kind: "gap"; direction?: "in" | "out"; reason: string };

/** A read failure, as recorded. */
export interface RecordedError {
  name: string;
  message: string;
  exitCode?: number | null;
  signal?: string | null;
  stderrTail?: string;
}

/** The header line of a recording. */
export interface RecordingHeader {
  kind: "header";
  format: typeof RECORDING_FORMAT;
  version: 1;
  backend: string;
  sdkVersion: string;
  startedAt: string;
}

/** What a recording is made with, besides the options. */
export interface RecorderContext {
  backend: string;
  sdkVersion: string;
  /** The CLI's environment: its values are redacted, except those of well-known harmless variables. */
  env: Record<string, string | undefined> | undefined;
}

/**
 * Wraps `transport` so every line in both directions is appended to the recording file. The file
 * is opened by `connect()`, before the wrapped transport's (a refused path fails before anything is
 * spawned); lines are written asynchronously through a bounded queue. Nothing the recorder meets
 * ends the session: a line it cannot record becomes a `gap` line, a file that fails stops the
 * recording; both are reported through `onError` (see {@link RecordOptions.onError}).
 */
export function recordTransport<T extends Transport>(
  transport: T,
  record: string | RecordOptions,
  context: RecorderContext,
): T {
  const options = typeof record === "string" ? { path: record } : record;
  const recorder = new Recorder(options, context);
  const wrapped = {
    connect: async () => {
      await recorder.open();
      await transport.connect();
    },
    write: async (data: string) => {
      recorder.out(data);
      await transport.write(data);
    },
    ...(transport.writeText
      ? {
          writeText: async (text: string) => {
            recorder.outText(text);
            await transport.writeText!(text);
          },
        }
      : {}),
    endInput: async () => {
      recorder.event({ kind: "end-input" });
      await transport.endInput();
    },
    close: async () => {
      recorder.event({ kind: "close" });
      try {
        await transport.close();
      } finally {
        await recorder.finishWithin(FINISH_BOUND_MS);
      }
    },
    readMessages: () => recorder.tapIterable(transport.readMessages()),
    ...(transport.readBatches
      ? {
          readBatches: async function* () {
            for await (const batch of recorder.tapEnd(transport.readBatches!())) {
              for (const item of batch) recorder.in(item);
              yield batch;
            }
          },
        }
      : {}),
    [READ_INTO]: (onItem: (item: TransportItem) => void, flow?: ReadFlow) =>
      recorder.tapPromise(
        (
          transport as unknown as Record<
            typeof READ_INTO,
            (f: (item: TransportItem) => void, flow?: ReadFlow) => Promise<void>
          >
        )[READ_INTO].call(
          transport,
          (item) => {
            recorder.in(item);
            onItem(item);
          },
          flow,
        ),
      ),
  };
  const hasDirectRead =
    typeof (transport as Partial<Record<typeof READ_INTO, unknown>>)[READ_INTO] === "function";
  return new Proxy(transport, {
    get(target, property, receiver) {
      if (property === READ_INTO && !hasDirectRead) return undefined;
      if (Object.hasOwn(wrapped, property)) return (wrapped as Record<PropertyKey, unknown>)[property];
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * How long closing the session waits for the recording's last writes (a file on a hung network
 * mount); they go on in the background after that, and the session's close resolves.
 */
const FINISH_BOUND_MS = 5_000;

/** Events recorded before the file is open (none in practice: the session connects first). */
const MAX_EARLY_EVENTS = 1000;

class Recorder {
  private readonly started = Date.now();
  private readonly path: string;
  private readonly redactor: Redactor;
  private readonly onError: ((error: RecordingError) => void) | undefined;
  private opening: Promise<void> | undefined;
  private writer: QueuedFileWriter | undefined;
  private handle: FileHandle | undefined;
  /** Lines recorded before the file was open. */
  private early: string[] | undefined = [];
  private finishing: Promise<void> | undefined;
  private warned = false;

  constructor(
    private readonly options: RecordOptions,
    context: RecorderContext,
  ) {
    this.path = options.path;
    this.onError = options.onError;
    this.redactor = new Redactor([
      ...Redactor.valuesOf(context.env, [...KEPT_ENV_NAMES, ...(options.keepEnv ?? [])]),
      ...Redactor.secretsOf(process.env),
      ...(options.redact ?? []),
    ]);
    const header: RecordingHeader = {
      kind: "header",
      format: RECORDING_FORMAT,
      version: 1,
      backend: context.backend,
      sdkVersion: context.sdkVersion,
      startedAt: new Date(this.started).toISOString(),
    };
    this.write(header);
  }

  /** Creates the file (see {@link openRecordingFile}). @throws RecordingError when the path is refused. */
  open(): Promise<void> {
    this.opening ??= (async () => {
      if (this.finishing !== undefined) return;
      const handle = await openRecordingFile(this.path, this.options.overwrite === true);
      this.handle = handle;
      const writer = new QueuedFileWriter(handle, (why, overflow, cause) =>
        this.stopped(why, overflow, cause),
      );
      this.writer = writer;
      const early = this.early ?? [];
      this.early = undefined;
      for (const line of early) writer.append(line);
    })();
    return this.opening;
  }

  out(data: string): void {
    this.guard("out", () => {
      let line: unknown;
      try {
        line = JSON.parse(data);
      } catch {
        this.event({ kind: "out", text: this.redactor.text(data) });
        return;
      }
      this.event({ kind: "out", line: this.redactor.value(line) });
    });
  }

  /** Free text written as is (a `codex exec` prompt). */
  outText(text: string): void {
    this.guard("out", () => this.event({ kind: "out", text: this.redactor.text(text) }));
  }

  in(item: TransportItem): void {
    this.guard("in", () => {
      if (item instanceof JsonDecodeError)
        this.event({ kind: "invalid", text: this.redactor.text(item.lineHead) });
      else this.event({ kind: "in", line: this.redactor.value(item) });
    });
  }

  event(event: { kind: RecordedEvent["kind"]; [key: string]: unknown }): void {
    this.write({ t: Date.now() - this.started, ...event });
  }

  /** The CLI's output ended: the last line of the recording. */
  ended(error: unknown): void {
    this.guard(undefined, () => this.recordEnd(error));
    void this.finish();
  }

  private recordEnd(error: unknown): void {
    if (error === undefined) {
      this.event({ kind: "end" });
      return;
    }
    const recorded: RecordedError = {
      name: error instanceof Error && typeof error.name === "string" ? error.name : "Error",
      message: this.redactor.text(describeError(error)),
    };
    if (error instanceof ProcessError) {
      recorded.exitCode = error.exitCode;
      recorded.signal = error.signal;
      recorded.stderrTail = this.redactor.text(error.stderrTail);
    }
    this.event({ kind: "end", error: recorded });
  }

  async *tapIterable(source: AsyncIterable<TransportItem>): AsyncGenerator<TransportItem, void, undefined> {
    for await (const item of this.tapEnd(source)) {
      this.in(item);
      yield item;
    }
  }

  /** Records how `source` ends. */
  async *tapEnd<T>(source: AsyncIterable<T>): AsyncGenerator<T, void, undefined> {
    try {
      yield* source;
    } catch (error) {
      this.ended(error);
      throw error;
    }
    this.ended(undefined);
  }

  async tapPromise(reading: Promise<void>): Promise<void> {
    try {
      await reading;
    } catch (error) {
      this.ended(error);
      throw error;
    }
    this.ended(undefined);
  }

  /** Writes what is queued and closes the file; idempotent, never rejects. */
  finish(): Promise<void> {
    this.finishing ??= (async () => {
      await this.opening?.catch(() => undefined);
      this.early = undefined;
      await this.writer?.flushed();
      await this.handle?.close().catch(() => undefined);
    })();
    return this.finishing;
  }

  /** {@link finish}, waited for at most `ms`; a recording still being written then is reported. */
  async finishWithin(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), ms);
    });
    const timedOut = await Promise.race([this.finish().then(() => false), late]);
    clearTimeout(timer);
    if (timedOut) {
      this.report(
        new RecordingError(
          this.path,
          `Recording ${this.path}: its last writes took over ${ms} ms; the session closed without them`,
        ),
      );
    }
  }

  /** Runs `record`; whatever it throws becomes a `gap` line (for a line) and a report, never the session's error. */
  private guard(direction: "in" | "out" | undefined, record: () => void): void {
    try {
      record();
    } catch (error) {
      const reason = `this ${direction === "out" ? "SDK" : "CLI"} line could not be recorded: ${describeError(error)}`;
      try {
        this.event({ kind: "gap", ...(direction !== undefined ? { direction } : {}), reason });
      } catch {
        // `event` itself does not throw (see write); nothing more to record.
      }
      this.report(new RecordingError(this.path, `Recording ${this.path}: ${reason}`, { cause: error }));
    }
  }

  private write(record: object): void {
    if (this.finishing !== undefined) return; // the CLI's output ended or the session closed: the recording is complete
    const serialised = trySerialise(record);
    const line = serialised.ok
      ? `${serialised.line}\n`
      : `${JSON.stringify({ t: Date.now() - this.started, kind: "gap", reason: `a line could not be serialised: ${serialised.problem}` })}\n`;
    if (!serialised.ok) {
      this.report(
        new RecordingError(
          this.path,
          `Recording ${this.path}: a line could not be serialised: ${serialised.problem}`,
        ),
      );
    }
    if (this.early !== undefined) {
      if (this.early.length < MAX_EARLY_EVENTS) this.early.push(line);
      return;
    }
    this.writer?.append(line);
  }

  private stopped(why: string, overflow: boolean, cause: unknown): void {
    if (overflow) {
      const gap = { t: Date.now() - this.started, kind: "gap", reason: `recording stopped: ${why}` };
      this.writer?.appendLast(`${JSON.stringify(gap)}\n`);
    }
    this.report(new RecordingError(this.path, `Recording ${this.path} stopped: ${why}`, { cause }));
  }

  private report(error: RecordingError): void {
    if (this.onError !== undefined) {
      try {
        this.onError(error);
        return;
      } catch (thrown) {
        error = new RecordingError(
          this.path,
          `${error.message} (and onError threw: ${describeError(thrown)})`,
          {
            cause: error,
          },
        );
      }
    }
    if (this.warned) return;
    this.warned = true;
    process.emitWarning(error);
  }
}
