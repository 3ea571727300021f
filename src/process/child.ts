/**
 * Spawns an agent CLI as a child process (argv only, never through a shell) in its own process
 * group, and owns its whole lifecycle: stdin writes with backpressure, a bounded stderr tail,
 * two-phase termination of the group, and a guarantee that nothing is left running behind us.
 */
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { accessSync, closeSync, constants, openSync, readSync, type Stats, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { Readable, type Writable } from "node:stream";
import { CliConnectionError, ProcessError } from "../errors.js";
import { describeError } from "../wire/safe-json.js";
import { registerGroup, signalGroup, unregisterGroup } from "./group-registry.js";
import { StderrTail } from "./stderr-tail.js";

/** What to run and how. */
export interface ChildSpec {
  /** Executable path or name (looked up on PATH). Never interpreted by a shell. */
  command: string;
  /** Arguments, passed verbatim. */
  args: string[];
  /** Working directory. Default: the current one. */
  cwd?: string;
  /**
   * The child's complete environment; it is NOT merged with `process.env` (pass
   * `{ ...process.env, X: "1" }` to extend it). Keys whose value is `undefined` are left out.
   * Default: `process.env`.
   */
  env?: Record<string, string | undefined>;
  /** User id to run as. */
  uid?: number;
  /** Group id to run as. */
  gid?: number;
  /**
   * Called with each stderr line. Exceptions it throws are contained: the first is reported once as
   * a process warning, and the line still reaches the stderr tail of a `ProcessError`.
   */
  onStderrLine?: (line: string) => void;
  /** stdin: "pipe" (default) or "ignore" */
  stdin?: "pipe" | "ignore";
  /** Name used in error messages. Default: the command. */
  name?: string;
  /**
   * After the child exits, how long its stdout/stderr may stay open before we stop waiting and
   * close them, whether data still flows or not. They stay open only if a process that escaped
   * the group (e.g. one that called `setsid`) inherited them. Default 2000 ms.
   */
  stdioIdleMs?: number;
  /**
   * Appended to the error when the arguments are too long for the system (E2BIG): how to pass the
   * long part another way (e.g. a prompt that only argv can carry).
   */
  argvTooLongHint?: string;
}

/** How a process ended. Both are `null` if it never started. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running (or finished) child process. */
export interface ChildHandle {
  readonly pid: number | undefined;
  /**
   * The child's stdout pipe, for the line reader (`readJsonLineBatches`), which should read it
   * through its `data` events: then no chunks are copied together. It ends when the child's stdout
   * closes; when it is forcibly closed instead (after {@link close}, or after the idle timeout once
   * the child has exited) it is destroyed, and a `close` without `end` is its end. An already ended
   * stream if the process never started.
   */
  readonly stdout: Readable;
  /**
   * Resolves when spawned; rejects with a {@link ProcessError} (exit code `null`) if it could not
   * be: the message names the command and says "not found" (ENOENT) or "permission denied" (EACCES).
   */
  readonly spawned: Promise<void>;
  /**
   * Resolves once the process has exited AND its stdio closed. Never rejects. Note that stdout is
   * only drained while someone reads {@link stdout}; {@link close} does not need a reader.
   */
  readonly exited: Promise<ExitInfo>;
  /** How the process ended, once it has; `undefined` while it runs. */
  exitInfo(): ExitInfo | undefined;
  /** The last lines of stderr (bounded: 100 lines / 16 KiB). */
  stderrTail(): string;
  /** Writes data to stdin honouring backpressure; rejects with CliConnectionError if stdin is closed/ended/EPIPE. */
  write(data: string): Promise<void>;
  /**
   * Ends stdin (EOF). Idempotent. Resolves once buffered input is flushed, or at once if the
   * process is already gone (a write that could not be flushed rejects on its own).
   */
  endInput(): Promise<void>;
  /**
   * Two-phase kill of the whole process GROUP: SIGTERM, wait `graceMs` (default 2000) for exit,
   * then SIGKILL. Resolves with the ExitInfo. Idempotent; safe if already exited.
   */
  close(graceMs?: number): Promise<ExitInfo>;
  /**
   * Whether the child (its process handle and pipes) keeps the host's event loop alive. A process
   * started ahead of time and parked must not: the host may exit, and the exit hook ends it.
   */
  setKeepAlive(keep: boolean): void;
}

/** Default time {@link ChildHandle.close} waits after SIGTERM before sending SIGKILL. */
export const DEFAULT_CLOSE_GRACE_MS = 2000;
const DEFAULT_STDIO_IDLE_MS = 2000;
/**
 * When we killed the child ourselves, how long to let stdout deliver what is still in the pipe
 * before closing it; there may be nobody reading, and we must not wait for them.
 */
const STDIO_DRAIN_AFTER_CLOSE_MS = 200;
/**
 * How much of stdout is still read once the CLI has exited: more than a pipe can hold (64 KiB by
 * default, 1 MiB at most as `/proc/sys/fs/pipe-max-size` ships), so all the CLI wrote is read, and
 * a flood from a process that escaped its group is cut off.
 */
export const AFTER_EXIT_MAX_BYTES = 1024 * 1024;
const NOT_STARTED: ExitInfo = { code: null, signal: null };

/** Spawns `spec.command` in a new process group. Never throws: spawn failures reject `spawned`. */
export function spawnChild(spec: ChildSpec): ChildHandle {
  return new Child(spec);
}

class Child implements ChildHandle {
  readonly spawned: Promise<void>;
  readonly exited: Promise<ExitInfo>;

  private readonly name: string;
  private readonly tail: StderrTail;
  private readonly stdioIdleMs: number;
  private proc: ChildProcess | undefined;
  private info: ExitInfo | undefined;
  private spawnError: ProcessError | undefined;
  private stdinError: Error | undefined;
  /** Settlers of writes not yet confirmed; failed together if stdin closes under them. */
  private readonly pendingWrites = new Set<(err?: Error | null) => void>();
  private stdioClosed = false;
  private closing: Promise<ExitInfo> | undefined;
  private stdioTimer: NodeJS.Timeout | undefined;
  private noStdout: Readable | undefined;
  private resolveExited!: (info: ExitInfo) => void;

  constructor(private readonly spec: ChildSpec) {
    this.name = spec.name ?? spec.command;
    this.stdioIdleMs = spec.stdioIdleMs ?? DEFAULT_STDIO_IDLE_MS;
    this.tail = new StderrTail({ onLine: spec.onStderrLine });
    this.exited = new Promise((resolve) => {
      this.resolveExited = resolve;
    });

    let resolveSpawned!: () => void;
    let rejectSpawned!: (err: ProcessError) => void;
    this.spawned = new Promise((resolve, reject) => {
      resolveSpawned = resolve;
      rejectSpawned = reject;
    });
    // Callers that only await `exited` or `close()` must not crash the process with an unhandled
    // rejection; anyone awaiting `spawned` still sees it reject.
    this.spawned.catch(() => {});

    // A bad cwd fails the spawn with an errno that reads as if the command were the problem
    // (ENOENT) or that names nothing (ENOTDIR); check it first so the error names the directory.
    const cwdProblem = spec.cwd === undefined ? undefined : describeBadCwd(spec.cwd);
    if (cwdProblem !== undefined) {
      this.failSpawn(new Error(cwdProblem), rejectSpawned);
      return;
    }
    // Node's own error for a NUL byte quotes the whole value: a prompt or a secret would end up in
    // the error message (and in logs), so the check names the argument instead.
    const nulProblem = describeNulBytes(spec);
    if (nulProblem !== undefined) {
      this.failSpawn(new Error(nulProblem), rejectSpawned);
      return;
    }
    let proc: ChildProcess;
    try {
      proc = spawn(spec.command, spec.args, this.spawnOptions());
    } catch (err) {
      // Synchronous failures: invalid arguments (e.g. a NUL byte) or unusual errnos.
      this.failSpawn(err, rejectSpawned);
      return;
    }
    this.proc = proc;
    this.wire(proc, resolveSpawned, rejectSpawned);
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  get stdout(): Readable {
    const stdout = this.proc?.stdout;
    if (stdout) return stdout;
    // spawn() threw: there is no pipe, and nothing will ever be read.
    this.noStdout ??= Readable.from([]);
    return this.noStdout;
  }

  exitInfo(): ExitInfo | undefined {
    return this.info;
  }

  stderrTail(): string {
    return this.tail.text();
  }

  write(data: string): Promise<void> {
    const stdin = this.proc?.stdin;
    const unusable = this.stdinUnusableReason(stdin);
    if (unusable !== undefined || !stdin) return Promise.reject(this.connectionError(unusable ?? "no stdin"));
    return new Promise<void>((resolve, reject) => {
      const settle = (err?: Error | null): void => {
        if (!this.pendingWrites.delete(settle)) return;
        if (err) reject(this.connectionError(`write failed (${errorCode(err)})`, err));
        else resolve();
      };
      this.pendingWrites.add(settle);
      // The callback fires once the data reached the OS (or failed), which is exactly the
      // backpressure signal: a write to a child that stops reading waits here, until close().
      stdin.write(data, (err) => settle(err));
    });
  }

  endInput(): Promise<void> {
    const stdin = this.proc?.stdin;
    if (!stdin || stdin.destroyed || stdin.writableFinished) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        stdin.off("finish", done);
        stdin.off("close", done);
        resolve();
      };
      stdin.on("finish", done);
      stdin.on("close", done);
      // A failure to flush shows up as a rejected write(); EOF to a dead process is moot.
      if (!stdin.writableEnded) stdin.end();
    });
  }

  setKeepAlive(keep: boolean): void {
    const proc = this.proc;
    if (!proc) return;
    for (const stream of [proc.stdin, proc.stdout, proc.stderr]) {
      const handle = stream as unknown as { ref?: () => void; unref?: () => void } | null;
      if (keep) handle?.ref?.();
      else handle?.unref?.();
    }
    if (keep) proc.ref();
    else proc.unref();
  }

  close(graceMs = DEFAULT_CLOSE_GRACE_MS): Promise<ExitInfo> {
    this.closing ??= this.terminate(graceMs);
    return this.closing;
  }

  private async terminate(graceMs: number): Promise<ExitInfo> {
    const pid = this.proc?.pid;
    if (pid === undefined) return this.exited;
    if (this.info === undefined) {
      this.signal(pid, "SIGTERM");
      if (!(await within(this.exitEvent(), graceMs))) this.signal(pid, "SIGKILL");
      await this.exitEvent();
    }
    this.scheduleStdioClose(STDIO_DRAIN_AFTER_CLOSE_MS);
    return this.exited;
  }

  private spawnOptions(): SpawnOptions {
    const { spec } = this;
    const options: SpawnOptions = {
      // Own process group: one signal to -pid reaches the CLI and everything it started.
      detached: true,
      stdio: [spec.stdin ?? "pipe", "pipe", "pipe"],
      shell: false,
      windowsHide: true,
    };
    if (spec.cwd !== undefined) options.cwd = spec.cwd;
    if (spec.env !== undefined) options.env = definedEntries(spec.env);
    if (spec.uid !== undefined) options.uid = spec.uid;
    if (spec.gid !== undefined) options.gid = spec.gid;
    return options;
  }

  private wire(
    proc: ChildProcess,
    resolveSpawned: () => void,
    rejectSpawned: (e: ProcessError) => void,
  ): void {
    const stdout = proc.stdout!;
    const stderr = proc.stderr!;
    // stdout is not read here: a `data` listener would start the flow before the reader is there.
    // A read error goes to the reader's own listener; with none, it must not crash the process.
    stdout.on("error", () => undefined);
    stderr.on("data", (chunk: Buffer) => this.tail.push(chunk));
    stderr.on("end", () => this.tail.end());
    // stderr only feeds diagnostics; losing the rest of it must not fail the session, and the
    // tail keeps what arrived so far.
    stderr.on("error", () => this.tail.end());
    // EPIPE and friends arrive here as well as in write callbacks; an unhandled 'error' event
    // would crash the host process.
    proc.stdin?.on("error", (err) => {
      this.stdinError = err;
    });
    // Node calls write callbacks when stdin is destroyed, but a pending write must never hang on
    // that detail.
    proc.stdin?.on("close", () => {
      const reason = this.stdinError ?? new Error("stdin closed before the write completed");
      for (const settle of [...this.pendingWrites]) settle(reason);
    });

    proc.once("spawn", () => {
      if (proc.pid !== undefined) registerGroup(proc.pid);
      resolveSpawned();
    });
    proc.on("error", (err) => {
      if (this.spawnError === undefined && proc.pid === undefined) {
        this.failSpawn(err, rejectSpawned);
        return;
      }
      // After a successful spawn only kill() failures land here, and we do not use child.kill().
      process.emitWarning(`${this.name}: child process error: ${describeError(err)}`, {
        code: "CODE_AGENT_SDK_CHILD_ERROR",
      });
    });
    proc.once("exit", (code, signal) => {
      this.info = { code, signal };
      if (proc.pid !== undefined) {
        // The leader is gone; anything left in its group is an orphan we started.
        try {
          signalGroup(proc.pid, "SIGKILL");
        } catch (err) {
          process.emitWarning(
            `${this.name}: could not kill leftover process group ${proc.pid}: ${describeError(err)}`,
            {
              code: "CODE_AGENT_SDK_CHILD_ERROR",
            },
          );
        }
        unregisterGroup(proc.pid);
      }
      this.watchStdioAfterExit(stdout);
    });
    proc.once("close", (code, signal) => {
      this.stdioClosed = true;
      clearTimeout(this.stdioTimer);
      this.tail.end();
      if (this.spawnError !== undefined) {
        this.resolveExited(NOT_STARTED);
        return;
      }
      this.info ??= { code, signal };
      this.resolveExited(this.info);
    });
  }

  private failSpawn(err: unknown, rejectSpawned: (e: ProcessError) => void): void {
    this.spawnError = new ProcessError(describeSpawnError(this.name, this.spec, err), {
      exitCode: null,
      cause: err,
    });
    this.info = NOT_STARTED;
    rejectSpawned(this.spawnError);
    // Node emits 'close' after a failed async spawn, but not when spawn() threw synchronously.
    if (this.proc === undefined) this.resolveExited(NOT_STARTED);
  }

  /**
   * After exit, stdout/stderr normally reach EOF at once. They stay open only if a process that
   * escaped the group (e.g. a `setsid` daemon) inherited them, and then whatever it writes is not
   * the CLI's. So once the CLI has exited, its stdio is closed after `stdioIdleMs` at the latest
   * (earlier once it reached EOF), whether data still flows or not, and stdout is read past
   * {@link AFTER_EXIT_MAX_BYTES} no further: enough for all the CLI itself left in the pipe.
   *
   * A reader that paused stdout (backpressure) is resumed meanwhile: the CLI's last output must
   * be read before the deadline; what is read is bounded by the byte limit.
   */
  private watchStdioAfterExit(stdout: Readable): void {
    this.stdioTimer = setTimeout(() => this.forceCloseStdio(), this.stdioIdleMs);
    const reading = stdout.listenerCount("data") > 0;
    if (!reading) return;
    const start = this.stdoutBytes(stdout);
    const capped = (): void => {
      if (this.stdoutBytes(stdout) - start > AFTER_EXIT_MAX_BYTES) {
        stdout.off("data", capped);
        this.forceCloseStdio();
      }
    };
    stdout.on("data", capped);
    stdout.resume();
  }

  /** Bytes read from stdout so far. */
  private stdoutBytes(stdout: Readable): number {
    return (stdout as Readable & { bytesRead?: number }).bytesRead ?? 0;
  }

  private scheduleStdioClose(afterMs: number): void {
    if (this.stdioClosed) return;
    clearTimeout(this.stdioTimer);
    this.stdioTimer = setTimeout(() => this.forceCloseStdio(), afterMs);
  }

  private forceCloseStdio(): void {
    const proc = this.proc;
    if (!proc || this.stdioClosed) return;
    // The reader sees `close` without `end`, which readJsonLineBatches takes as the end.
    proc.stdout?.destroy();
    proc.stderr?.destroy();
  }

  private exitEvent(): Promise<void> {
    const proc = this.proc;
    if (!proc || this.info !== undefined) return Promise.resolve();
    return new Promise((resolve) => proc.once("exit", () => resolve()));
  }

  private signal(pid: number, sig: NodeJS.Signals): void {
    try {
      signalGroup(pid, sig);
    } catch (err) {
      // EPERM on the group (e.g. a member changed uid): at least reach the leader.
      if (!this.proc?.kill(sig)) {
        throw new ProcessError(`${this.name}: could not send ${sig} to process group ${pid}`, {
          exitCode: this.info?.code ?? null,
          signal: this.info?.signal ?? null,
          stderrTail: this.tail.text(),
          cause: err,
        });
      }
    }
  }

  private stdinUnusableReason(stdin: Writable | null | undefined): string | undefined {
    if (this.spawnError) return "the process failed to start";
    if (!stdin) return this.spec.stdin === "ignore" ? 'stdin was spawned as "ignore"' : "no stdin";
    if (this.info) return `the process has exited (${describeExit(this.info)})`;
    if (this.stdinError) return `stdin failed (${errorCode(this.stdinError)})`;
    if (stdin.writableEnded) return "stdin was ended";
    if (stdin.destroyed) return "stdin is closed";
    return undefined;
  }

  private connectionError(reason: string, cause?: unknown): CliConnectionError {
    const tail = this.tail.text().trim();
    const exit = this.info && !this.spawnError ? ` (${describeExit(this.info)})` : "";
    const message = `Cannot write to ${this.name}: ${reason}${exit}${tail ? `\n--- stderr (tail) ---\n${tail}` : ""}`;
    return new CliConnectionError(message, { cause });
  }
}

/** Builds the message for a failed spawn: names the command and the reason in plain words. */
function describeSpawnError(name: string, spec: ChildSpec, err: unknown): string {
  const code = errorCode(err);
  const what = name === spec.command ? `"${spec.command}"` : `${name} ("${spec.command}")`;
  if (code === "ENOENT") {
    if (spec.cwd !== undefined && !isDirectory(spec.cwd)) {
      return `Failed to start ${what}: working directory "${spec.cwd}" not found (ENOENT)`;
    }
    const missing = missingInterpreter(spec);
    if (missing !== undefined) return `Failed to start ${what}: ${missing} (ENOENT)`;
    return `Failed to start ${what}: command not found (ENOENT)`;
  }
  if (code === "EACCES") return `Failed to start ${what}: permission denied (EACCES)`;
  if (code === "E2BIG") return `Failed to start ${what}: ${describeTooLong(spec)}`;
  const detail = err instanceof Error ? err.message : String(err);
  return `Failed to start ${what}: ${detail}`;
}

/** Linux's limit on one argument or environment string (MAX_ARG_STRLEN: 32 pages), with its NUL. */
const MAX_ARG_BYTES = 128 * 1024;

/** Why the kernel refused the arguments (E2BIG), with the sizes that matter and the spec's hint. */
function describeTooLong(spec: ChildSpec): string {
  const sizes = spec.args.map((arg) => Buffer.byteLength(arg) + 1);
  const argBytes = sizes.reduce((sum, n) => sum + n, Buffer.byteLength(spec.command) + 1);
  const envBytes = Object.entries(spec.env ?? process.env).reduce(
    (sum, [key, value]) => sum + (value === undefined ? 0 : Buffer.byteLength(`${key}=${value}`) + 1),
    0,
  );
  const longest = Math.max(0, ...sizes);
  const single =
    process.platform === "linux" && longest > MAX_ARG_BYTES
      ? ` one argument is ${longest} bytes, over Linux's limit of ${MAX_ARG_BYTES} bytes for a single argument;`
      : "";
  const hint = spec.argvTooLongHint ? ` ${spec.argvTooLongHint}` : "";
  return `its arguments are too long for the system (E2BIG):${single} ${argBytes} bytes of arguments and ${envBytes} bytes of environment in all.${hint}`;
}

/**
 * When a command given as a path exists but could not be started with ENOENT, what is missing is
 * what the kernel runs it with: the interpreter of its `#!` line, or (for a binary) its dynamic
 * loader. Says which, or `undefined` when the command itself is missing.
 */
function missingInterpreter(spec: ChildSpec): string | undefined {
  if (!spec.command.includes("/")) return undefined; // Looked up on PATH: not found is the answer.
  const path = isAbsolute(spec.command) ? spec.command : resolve(spec.cwd ?? process.cwd(), spec.command);
  let head: string;
  try {
    if (!statSync(path).isFile()) return undefined;
    const fd = openSync(path, "r");
    try {
      const buffer = Buffer.alloc(256);
      head = buffer.toString("latin1", 0, readSync(fd, buffer, 0, buffer.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (head.startsWith("#!")) {
    const interpreter = head.slice(2).split("\n")[0]?.trim().split(/\s+/)[0] ?? "";
    return `the file exists, but its interpreter "${interpreter}" (from its #! line) was not found`;
  }
  if (head.startsWith("\x7fELF")) {
    return "the file exists, but the dynamic loader it needs is missing (a binary built for another system?)";
  }
  return undefined;
}

/** Human-readable "exit code 1" / "signal SIGKILL". */
export function describeExit(info: ExitInfo): string {
  if (info.signal) return `killed by signal ${info.signal}`;
  if (info.code === null) return "never started";
  return `exit code ${info.code}`;
}

/**
 * Which part of `spec` holds a NUL byte, which no argument, environment entry or path of a process
 * can carry; `undefined` if none does. Names the part, never its content.
 */
function describeNulBytes(spec: ChildSpec): string | undefined {
  const nul = "\u0000";
  if (spec.command.includes(nul)) return "the command path contains a NUL byte";
  const arg = spec.args.findIndex((a) => a.includes(nul));
  if (arg !== -1) {
    return `command-line argument ${arg + 1} of ${spec.args.length} contains a NUL byte, which a process argument cannot carry`;
  }
  for (const [key, value] of Object.entries(spec.env ?? {})) {
    if (key.includes(nul)) return "an environment variable name contains a NUL byte";
    if (value?.includes(nul)) return `environment variable ${key} contains a NUL byte`;
  }
  if (spec.cwd?.includes(nul)) return "the working directory contains a NUL byte";
  return undefined;
}

/** Why `cwd` cannot be a working directory (names it), or `undefined` if it can. */
export function describeBadCwd(cwd: string): string | undefined {
  let stats: Stats;
  try {
    stats = statSync(cwd);
  } catch (err) {
    const code = errorCode(err);
    return code === "ENOENT"
      ? `working directory "${cwd}" not found (ENOENT)`
      : `working directory "${cwd}" is not accessible (${code})`;
  }
  if (!stats.isDirectory()) return `working directory "${cwd}" is not a directory (ENOTDIR)`;
  try {
    // Entering a directory needs search (x) permission on it.
    accessSync(cwd, constants.X_OK);
  } catch (err) {
    return `working directory "${cwd}" is not accessible (${errorCode(err)})`;
  }
  return undefined;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function errorCode(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" ? code : err instanceof Error ? err.message : String(err);
}

function definedEntries(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

/** Whether `promise` settles within `ms`; the timer is cleared so it cannot hold the event loop. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
