/**
 * A {@link Transport} over a process the caller starts (`spawnClaudeCodeProcess`, as in the
 * official SDK): in a container, over SSH, in a VM. The SDK hands over what it would run; the
 * caller returns something process-like with stdin, stdout, `kill` and `exit`.
 */
import type { Readable, Writable } from "node:stream";
import { AgentSdkError, CliConnectionError, ProcessError } from "../errors.js";
import { readJsonLineBatches } from "../process/jsonl.js";
import type { Transport, TransportItem } from "./transport.js";

/** What the SDK asks the caller to run (the official SDK's `SpawnOptions`). */
export interface SpawnOptions {
  command: string;
  args: string[];
  cwd?: string;
  env: Record<string, string | undefined>;
  /** Aborted when the session closes. */
  signal: AbortSignal;
}

/** The process the caller started (the official SDK's `SpawnedProcess`; a `ChildProcess` is one). */
export interface SpawnedProcess {
  stdin: Writable;
  stdout: Readable;
  readonly killed: boolean;
  readonly exitCode: number | null;
  readonly signalCode?: NodeJS.Signals | null;
  kill(signal: NodeJS.Signals): boolean;
  once(event: "exit", listener: (code: number | null, signal: NodeJS.Signals | null) => void): void;
  once(event: "error", listener: (error: Error) => void): void;
  off(event: "exit", listener: (code: number | null, signal: NodeJS.Signals | null) => void): void;
  off(event: "error", listener: (error: Error) => void): void;
}

/** Starts the CLI somewhere else. Throwing fails `connect()` with a `ProcessError`. */
export type SpawnClaudeCodeProcess = (options: SpawnOptions) => SpawnedProcess;

/** How the transport runs the caller's process. */
export interface SpawnedProcessTransportOptions extends Omit<SpawnOptions, "signal"> {
  spawn: SpawnClaudeCodeProcess;
  /** Longest accepted stdout line, in bytes. */
  maxBufferSize: number;
  /** Time between SIGTERM and SIGKILL in `close()`. */
  closeGraceMs: number;
  /** Name for error messages. */
  cliName: string;
}

/** JSON lines over a caller-started process. */
export class SpawnedProcessTransport implements Transport {
  private process: SpawnedProcess | undefined;
  private readonly abort = new AbortController();
  private exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | undefined;
  private closing: Promise<void> | undefined;
  private failure: Error | undefined;

  constructor(private readonly options: SpawnedProcessTransportOptions) {}

  async connect(): Promise<void> {
    if (this.process) throw new CliConnectionError(`${this.options.cliName} transport is already connected`);
    const { spawn, maxBufferSize: _m, closeGraceMs: _g, cliName, ...what } = this.options;
    let process: SpawnedProcess;
    try {
      process = spawn({ ...what, signal: this.abort.signal });
    } catch (error) {
      throw new ProcessError(
        `spawnClaudeCodeProcess failed to start ${cliName}: ${(error as Error).message}`,
        {
          exitCode: null,
          signal: null,
          stderrTail: "",
          cause: error,
        },
      );
    }
    this.process = process;
    this.exit = new Promise((resolve) => {
      if (process.exitCode !== null) resolve({ code: process.exitCode, signal: process.signalCode ?? null });
      process.once("exit", (code, signal) => resolve({ code, signal }));
    });
    process.once("error", (error) => {
      this.failure = error;
    });
  }

  async write(data: string): Promise<void> {
    const stdin = this.require("write()").stdin;
    if (data.includes("\n")) throw new AgentSdkError("a message must be a single line");
    await new Promise<void>((resolve, reject) => {
      stdin.write(`${data}\n`, (error) =>
        error ? reject(new CliConnectionError(error.message)) : resolve(),
      );
    });
  }

  async *readMessages(): AsyncGenerator<TransportItem, void, undefined> {
    const process = this.require("readMessages()");
    for await (const batch of readJsonLineBatches(process.stdout, {
      maxLineBytes: this.options.maxBufferSize,
    })) {
      yield* batch;
    }
    // The stream ended; its exit status follows (a remote process may never report one).
    const exit = await settleWithin(this.exit, this.options.closeGraceMs);
    if (this.closing) return;
    if (
      this.failure ||
      (exit && exit.code !== 0 && exit.code !== null) ||
      (exit?.code === null && exit.signal)
    ) {
      throw new ProcessError(
        `${this.options.cliName} process failed: ${this.failure?.message ?? `exit code ${exit?.code ?? exit?.signal}`}`,
        { exitCode: exit?.code ?? null, signal: exit?.signal ?? null, stderrTail: "" },
      );
    }
  }

  async endInput(): Promise<void> {
    const stdin = this.require("endInput()").stdin;
    await new Promise<void>((resolve) => stdin.end(resolve));
  }

  /** SIGTERM, then SIGKILL after the grace period, until the process has exited. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  isReady(): boolean {
    return this.process !== undefined && !this.closing && this.process.exitCode === null;
  }

  private async shutdown(): Promise<void> {
    this.abort.abort();
    const process = this.process;
    if (!process || !this.exit || process.exitCode !== null) return;
    process.kill("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const forced = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        process.kill("SIGKILL");
        resolve();
      }, this.options.closeGraceMs);
    });
    await Promise.race([this.exit, forced]);
    clearTimeout(timer);
    // A process-like object that never reports its exit must not hold the session open.
    await settleWithin(this.exit, this.options.closeGraceMs);
  }

  private require(what: string): SpawnedProcess {
    if (!this.process) throw new CliConnectionError(`${what} before connect()`);
    return this.process;
  }
}

/** `promise`'s value, or `undefined` once `ms` have passed. */
async function settleWithin<T>(promise: Promise<T> | undefined, ms: number): Promise<T | undefined> {
  if (!promise) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
