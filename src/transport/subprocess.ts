/**
 * The default {@link Transport}: a local CLI process speaking JSON lines on stdin/stdout.
 */
import {
  AgentSdkError,
  BufferOverflowError,
  CliConnectionError,
  InvalidOptionsError,
  NotConnectedError,
  OutputClosedError,
  ProcessError,
} from "../errors.js";
import {
  type ChildHandle,
  type ChildSpec,
  DEFAULT_CLOSE_GRACE_MS,
  describeExit,
  type ExitInfo,
  spawnChild,
} from "../process/child.js";
import { ReaderThrew, readJsonLineBatches, readJsonLinesInto } from "../process/jsonl.js";
import { durationIssue } from "../signals/duration.js";
import { describeError } from "../wire/safe-json.js";
import type { ReadFlow } from "./read-flow.js";
import { READ_INTO } from "./read-transport.js";
import { Redactor } from "./redact.js";
import type { Transport, TransportItem } from "./transport.js";

/** Default {@link SubprocessTransportOptions.maxBufferSize}: 64 MiB. */
export const DEFAULT_MAX_BUFFER_SIZE = 64 * 1024 * 1024;

/** How to start the CLI, plus transport limits. */
export interface SubprocessTransportOptions extends ChildSpec {
  /** Longest accepted stdout line, in bytes; a longer one is fatal. Default 64 MiB. */
  maxBufferSize?: number;
  /** Time between SIGTERM and SIGKILL in {@link SubprocessTransport.close}. Default 2000 ms. */
  closeGraceMs?: number;
  /** Name for error messages, e.g. "claude" */
  cliName?: string;
}

type State = "new" | "connecting" | "connected" | "closed";

/** After a failed write, how long to wait for the process's exit status before giving up on it. */
const EXIT_AFTER_WRITE_FAILURE_MS = 2000;

/**
 * Runs a CLI as a child process and exchanges JSON lines with it.
 *
 * Failures are typed: a spawn failure or a non-zero exit is a {@link ProcessError} (with exit
 * code, signal and stderr tail), a broken stdin a {@link CliConnectionError}, an over-long line a
 * {@link BufferOverflowError} (after which the process is closed).
 */
export class SubprocessTransport implements Transport {
  private readonly options: SubprocessTransportOptions;
  private readonly name: string;
  private state: State = "new";
  private child: ChildHandle | undefined;
  private readStarted = false;
  /** Set once close() is called: an exit after that is ours, not a failure. */
  private closeRequested = false;
  private closing: Promise<void> | undefined;

  /** @throws InvalidOptionsError for a duration Node's timers cannot take (see `MAX_TIMER_MS`). */
  constructor(options: SubprocessTransportOptions) {
    const issues = [
      durationIssue("closeGraceMs", options.closeGraceMs, "rejected"),
      durationIssue("stdioIdleMs", options.stdioIdleMs, "rejected"),
    ].filter((issue): issue is string => issue !== undefined);
    if (issues.length > 0) throw new InvalidOptionsError(issues);
    this.options = options;
    this.name = options.cliName ?? options.name ?? options.command;
  }

  /** The child's pid, once spawned. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Resolves when the process has exited and its output closed; `undefined` before connect(). */
  get exited(): Promise<ExitInfo> | undefined {
    return this.child?.exited;
  }

  /** See {@link Transport.setKeepAlive}. */
  setKeepAlive(keep: boolean): void {
    this.child?.setKeepAlive(keep);
  }

  /** How the process ended, once it has (exit code or signal); `undefined` while it runs. */
  exitInfo(): ExitInfo | undefined {
    return this.child?.exitInfo();
  }

  /**
   * The last lines the process wrote to stderr (bounded), with the secrets of its environment
   * (variables named like keys, tokens, secrets, passwords) and key-shaped strings redacted: a CLI
   * may echo its key there, and this text goes into error messages, logs and queue entries.
   */
  stderrTail(): string {
    return this.redactedTail(this.child);
  }

  private redactor: Redactor | undefined;

  private redactedTail(child: ChildHandle | undefined): string {
    const tail = child?.stderrTail() ?? "";
    if (tail === "") return tail;
    this.redactor ??= new Redactor(Redactor.secretsOf(this.options.env ?? process.env));
    return this.redactor.text(tail);
  }

  /** Spawns the process. Rejects with a {@link ProcessError} if it cannot be started. */
  async connect(): Promise<void> {
    if (this.state !== "new") {
      throw new CliConnectionError(
        `${this.name} transport cannot connect: it is already ${this.state === "closed" ? "closed" : "connected"}`,
      );
    }
    this.state = "connecting";
    const { maxBufferSize: _max, closeGraceMs: _grace, cliName: _cli, ...spec } = this.options;
    const child = spawnChild({ ...spec, name: this.name });
    this.child = child;
    try {
      await child.spawned;
    } catch (err) {
      this.state = "closed";
      throw err;
    }
    // close() may have run while we waited for the spawn.
    if (this.state === "connecting") this.state = "connected";
  }

  /** Writes `text` as is (no newline added); see {@link Transport.writeText}. */
  async writeText(text: string): Promise<void> {
    const child = this.requireChild("writeText()");
    if (this.state === "closed")
      throw new CliConnectionError(`Cannot write to ${this.name}: transport is closed`);
    try {
      await child.write(text);
    } catch (error) {
      throw await this.explainWriteFailure(child, error);
    }
  }

  /** Sends one message; `data` must be a single line (serialized JSON), the newline is added here. */
  async write(data: string): Promise<void> {
    const child = this.requireChild("write()");
    if (this.state === "closed")
      throw new CliConnectionError(`Cannot write to ${this.name}: transport is closed`);
    if (data.includes("\n")) {
      throw new AgentSdkError(
        `Cannot write to ${this.name}: a message must be a single line (got a newline at index ${data.indexOf("\n")})`,
      );
    }
    try {
      await child.write(`${data}\n`);
    } catch (error) {
      throw await this.explainWriteFailure(child, error);
    }
  }

  /**
   * The process's stdout as parsed JSON objects (bad lines as `JsonDecodeError` values). Call
   * once. Throws {@link ProcessError} if the process exits non-zero or is killed by a signal we did
   * not send, and {@link BufferOverflowError} (after closing the process) for an over-long line.
   */
  readMessages(): AsyncGenerator<TransportItem, void, undefined> {
    return flatten(this.readBatches());
  }

  /**
   * {@link readMessages}, in batches: every line read since the caller last asked (at least one),
   * so a caller that keeps up awaits once per chunk of output instead of once per line. Call once;
   * `readMessages()` and `readBatches()` exclude each other.
   */
  readBatches(): AsyncGenerator<TransportItem[], void, undefined> {
    return this.read(this.startReading());
  }

  /**
   * @internal The SDK's own read loop (see `readTransport`): each item goes to `onItem` straight
   * from the pipe's `data` event. Settles as reading {@link readBatches} to its end does.
   */
  async [READ_INTO](onItem: (item: TransportItem) => void, flow?: ReadFlow): Promise<void> {
    const own = SubprocessTransport.prototype;
    if (this.readBatches !== own.readBatches || this.readMessages !== own.readMessages) {
      // A subclass changed what reading yields: honour it.
      for await (const batch of this.readBatches()) for (const item of batch) onItem(item);
      return;
    }
    const child = this.startReading();
    const maxLineBytes = this.options.maxBufferSize ?? DEFAULT_MAX_BUFFER_SIZE;
    try {
      await readJsonLinesInto(child.stdout, { maxLineBytes, flow }, onItem);
    } catch (err) {
      // The reader's own failure is its to report, as when it stops iterating `readBatches()`.
      if (err instanceof ReaderThrew) throw err.error;
      if (await this.readFailed(err)) return;
    }
    await this.checkExit(child);
  }

  private startReading(): ChildHandle {
    const child = this.requireChild("readMessages()");
    if (this.readStarted) {
      throw new CliConnectionError(
        `readMessages() (or readBatches()) can only be called once per ${this.name} transport`,
      );
    }
    this.readStarted = true;
    return child;
  }

  /** Closes stdin so the process sees EOF. Resolves even if the process is already gone. */
  async endInput(): Promise<void> {
    await this.requireChild("endInput()").endInput();
  }

  /** Terminates the process group (SIGTERM, then SIGKILL after `closeGraceMs`) and waits for it. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** True between a successful connect() and close(), while the process is running. */
  isReady(): boolean {
    return this.state === "connected" && this.child?.exitInfo() === undefined;
  }

  private async shutdown(): Promise<void> {
    this.closeRequested = true;
    this.state = "closed";
    await this.child?.close(this.options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS);
  }

  /**
   * A write usually fails (EPIPE) because the process is exiting. If it then turns out to have
   * failed, that is the error to report, with its exit code and stderr, as the read side does;
   * otherwise the write error stands.
   */
  private async explainWriteFailure(child: ChildHandle, error: unknown): Promise<unknown> {
    if (this.closeRequested) return error;
    const info = await settledWithin(child.exited, EXIT_AFTER_WRITE_FAILURE_MS);
    if (!info) return error;
    // A non-zero exit code is the process's own doing. A signal may be ours: close() can run
    // meanwhile (the session closes us as soon as the read side fails).
    const failed = info.code !== null ? info.code !== 0 : info.signal !== null && !this.closeRequested;
    if (!failed) return error;
    return new ProcessError(`${this.name} process failed: ${describeExit(info)}`, {
      exitCode: info.code,
      signal: info.signal,
      stderrTail: this.redactedTail(child),
      cause: error,
    });
  }

  private async *read(child: ChildHandle): AsyncGenerator<TransportItem[], void, undefined> {
    const maxLineBytes = this.options.maxBufferSize ?? DEFAULT_MAX_BUFFER_SIZE;
    try {
      yield* readJsonLineBatches(child.stdout, { maxLineBytes });
    } catch (err) {
      if (await this.readFailed(err)) return;
    }
    await this.checkExit(child);
  }

  /**
   * Reading stdout failed with `err`: throws what the reader gets, or resolves true when reading
   * just ends (we closed the process ourselves).
   */
  private async readFailed(err: unknown): Promise<true> {
    if (err instanceof BufferOverflowError) {
      // The stream is desynchronised; nothing after this point can be trusted.
      await this.close();
      throw err;
    }
    if (this.closeRequested) return true;
    if (err instanceof AgentSdkError) throw err;
    throw new CliConnectionError(`Reading output of ${this.name} failed: ${describeError(err)}`, {
      cause: err,
    });
  }

  /**
   * After the end of stdout: throws a {@link ProcessError} when the process failed. A process that
   * closed its stdout but keeps running is given `closeGraceMs` to exit, then terminated, and an
   * {@link OutputClosedError} is thrown: nothing it does can reach us any more.
   */
  private async checkExit(child: ChildHandle): Promise<void> {
    const grace = this.options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS;
    let info = await settledWithin(child.exited, grace);
    if (info === undefined && child.exitInfo() === undefined && !this.closeRequested) {
      await this.close();
      throw new OutputClosedError(
        `${this.name} closed its stdout but kept running; it was terminated after ${grace} ms (closeGraceMs)`,
        { stderrTail: this.redactedTail(child) },
      );
    }
    // Exited (its stdio closes within a bounded time after that), or closed by us meanwhile.
    info ??= await child.exited;
    if (this.closeRequested || (info.code === 0 && info.signal === null)) return;
    throw new ProcessError(`${this.name} process failed: ${describeExit(info)}`, {
      exitCode: info.code,
      signal: info.signal,
      stderrTail: this.redactedTail(child),
    });
  }

  private requireChild(method: string): ChildHandle {
    if (!this.child) throw new NotConnectedError(`${this.name} transport: call connect() before ${method}`);
    return this.child;
  }
}

/** `promise`'s value if it settles within `ms`, else `undefined`; the timer never outlives it. */
async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function* flatten<T>(batches: AsyncIterable<T[]>): AsyncGenerator<T, void, undefined> {
  for await (const batch of batches) for (const item of batch) yield item;
}
