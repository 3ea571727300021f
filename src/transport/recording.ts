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
 *
 * Secrets are redacted before anything is written (see {@link Redactor}).
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { AgentSdkError, JsonDecodeError, ProcessError } from "../errors.js";
import { READ_INTO } from "../internal/read-transport.js";
import { Redactor } from "./redact.js";
import type { Transport, TransportItem } from "./transport.js";

/** Where and how to record (the object form of `options.record`). */
export interface RecordOptions {
  /** The JSONL file to write. It is created or truncated when the session starts. */
  path: string;
  /** More values to redact wherever they appear (besides API keys and other secrets found automatically). */
  redact?: string[];
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
  | { t: number; kind: "end"; error?: RecordedError };

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
  /** The CLI's environment: values of key-like variables in it are redacted. */
  env: Record<string, string | undefined> | undefined;
}

/**
 * Wraps `transport` so every line in both directions is appended to the recording file. The file
 * is opened here (a bad path fails before anything is spawned); writing is synchronous, so nothing
 * is buffered in memory. If writing fails later, recording stops with one process warning and the
 * session goes on.
 */
export function recordTransport<T extends Transport>(
  transport: T,
  record: string | RecordOptions,
  context: RecorderContext,
): T {
  const options = typeof record === "string" ? { path: record } : record;
  const recorder = new Recorder(options, context);
  const wrapped = {
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
        recorder.finish();
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
    [READ_INTO]: (onItem: (item: TransportItem) => void) =>
      recorder.tapPromise(
        (
          transport as unknown as Record<
            typeof READ_INTO,
            (f: (item: TransportItem) => void) => Promise<void>
          >
        )[READ_INTO].call(transport, (item) => {
          recorder.in(item);
          onItem(item);
        }),
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

class Recorder {
  private fd: number | undefined;
  private readonly started = Date.now();
  private readonly redactor: Redactor;

  constructor(options: RecordOptions, context: RecorderContext) {
    this.redactor = new Redactor([
      ...Redactor.secretsOf(context.env, process.env),
      ...(options.redact ?? []),
    ]);
    try {
      this.fd = openSync(options.path, "w");
    } catch (error) {
      throw new AgentSdkError(`Cannot write the recording to ${options.path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
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

  out(data: string): void {
    let line: unknown;
    try {
      line = JSON.parse(data);
    } catch {
      this.event({ kind: "out", text: this.redactor.text(data) });
      return;
    }
    this.event({ kind: "out", line: this.redactor.value(line) });
  }

  /** Free text written as is (a `codex exec` prompt). */
  outText(text: string): void {
    this.event({ kind: "out", text: this.redactor.text(text) });
  }

  in(item: TransportItem): void {
    if (item instanceof JsonDecodeError)
      this.event({ kind: "invalid", text: this.redactor.text(item.lineHead) });
    else this.event({ kind: "in", line: this.redactor.value(item) as Record<string, unknown> });
  }

  event(event: { kind: RecordedEvent["kind"]; [key: string]: unknown }): void {
    this.write({ t: Date.now() - this.started, ...event });
  }

  /** The CLI's output ended: the last line of the recording. */
  ended(error: unknown): void {
    this.recordEnd(error);
    this.finish();
  }

  private recordEnd(error: unknown): void {
    if (error === undefined) {
      this.event({ kind: "end" });
      return;
    }
    const recorded: RecordedError = {
      name: error instanceof Error ? error.name : "Error",
      message: this.redactor.text(error instanceof Error ? error.message : String(error)),
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

  finish(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // Closing a file we only appended to cannot lose data already written.
    }
  }

  private write(record: object): void {
    if (this.fd === undefined) return;
    try {
      writeSync(this.fd, `${JSON.stringify(record)}\n`);
    } catch (error) {
      this.finish();
      process.emitWarning(`Recording stopped: ${(error as Error).message}`, {
        code: "CODE_AGENT_SDK_RECORDING",
      });
    }
  }
}
