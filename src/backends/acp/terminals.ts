/**
 * The client side of ACP's `terminal/*` requests: commands the agent asks the client to run.
 *
 * Each command runs in the session's working directory or a directory inside it (see
 * `Workspace.inside`), in its own process group (so `kill` and `release` reach what it started),
 * registered to be killed if this process exits. A command without `args` is a shell command line
 * (`/bin/sh -c`, as agents such as claude-code-acp send whole lines); with `args`, it is run
 * directly. Output is kept up to the agent's `outputByteLimit` (at most {@link MAX_OUTPUT_BYTES}),
 * dropping the oldest bytes first.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { RequestError } from "@agentclientprotocol/sdk";
import { registerGroup, signalGroup, unregisterGroup } from "../../process/group-registry.js";
import type { Workspace } from "./workspace.js";

/** The most output kept per terminal, whatever the agent asks for. */
export const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

/** How a terminal's command ended. */
export interface TerminalExit {
  exitCode: number | null;
  signal: string | null;
}

interface Terminal {
  readonly proc: ChildProcess;
  readonly limit: number;
  chunks: Buffer[];
  bytes: number;
  truncated: boolean;
  exit: TerminalExit | undefined;
  readonly exited: Promise<TerminalExit>;
}

/** The `terminal/create` parameters this client reads. */
export interface CreateTerminalParams {
  command: string;
  args?: string[] | null;
  env?: { name: string; value: string }[] | null;
  cwd?: string | null;
  outputByteLimit?: number | null;
}

/** Every terminal of one session. */
export class Terminals {
  private readonly terminals = new Map<string, Terminal>();
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly workspace: Workspace,
    private readonly env: Record<string, string>,
  ) {}

  /** Starts a command; resolves with its terminal id once it has started. */
  async create(params: CreateTerminalParams): Promise<string> {
    if (this.closed) throw RequestError.internalError(undefined, "the session is closing");
    const cwd = params.cwd ? this.workspace.inside(params.cwd) : this.workspace.root;
    const env = { ...this.env };
    for (const { name, value } of params.env ?? []) env[name] = value;
    const [command, args] =
      params.args && params.args.length > 0
        ? [params.command, params.args]
        : ["/bin/sh", ["-c", params.command]];
    const proc = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    await new Promise<void>((resolve, reject) => {
      proc.once("spawn", resolve);
      proc.once("error", reject);
    }).catch((error: unknown) => {
      throw RequestError.internalError(undefined, `cannot run ${params.command}: ${String(error)}`);
    });
    const pid = proc.pid as number;
    registerGroup(pid);
    const limit = Math.min(params.outputByteLimit ?? MAX_OUTPUT_BYTES, MAX_OUTPUT_BYTES);
    const terminal: Terminal = {
      proc,
      limit,
      chunks: [],
      bytes: 0,
      truncated: false,
      exit: undefined,
      exited: new Promise((resolve) => {
        proc.once("close", (code, signal) => {
          unregisterGroup(pid);
          terminal.exit = { exitCode: code, signal };
          resolve(terminal.exit);
        });
      }),
    };
    const append = (chunk: Buffer) => appendOutput(terminal, chunk);
    proc.stdout?.on("data", append);
    proc.stderr?.on("data", append);
    const id = `term-${this.nextId++}`;
    this.terminals.set(id, terminal);
    return id;
  }

  /** `terminal/output`: the output so far, and the exit status once there is one. */
  output(id: string): { output: string; truncated: boolean; exitStatus?: TerminalExit } {
    const terminal = this.get(id);
    const output = Buffer.concat(terminal.chunks).toString("utf8");
    return { output, truncated: terminal.truncated, ...(terminal.exit ? { exitStatus: terminal.exit } : {}) };
  }

  /** `terminal/wait_for_exit`. */
  async waitForExit(id: string): Promise<TerminalExit> {
    return this.get(id).exited;
  }

  /** `terminal/kill`: ends the command's process group; the terminal stays readable. */
  async kill(id: string): Promise<void> {
    await killGroup(this.get(id));
  }

  /** `terminal/release`: kills the command if it still runs and forgets the terminal. */
  async release(id: string): Promise<void> {
    const terminal = this.get(id);
    this.terminals.delete(id);
    await killGroup(terminal);
  }

  /** Kills every command still running; no terminal can be created afterwards. */
  async closeAll(): Promise<void> {
    this.closed = true;
    const all = [...this.terminals.values()];
    this.terminals.clear();
    await Promise.all(all.map(killGroup));
  }

  private get(id: string): Terminal {
    const terminal = this.terminals.get(id);
    if (!terminal) throw RequestError.resourceNotFound(id);
    return terminal;
  }
}

function appendOutput(terminal: Terminal, chunk: Buffer): void {
  terminal.chunks.push(chunk);
  terminal.bytes += chunk.length;
  if (terminal.bytes <= terminal.limit) return;
  // Keep the newest `limit` bytes, cut at a character boundary (never inside a UTF-8 sequence).
  let all = Buffer.concat(terminal.chunks);
  let start = all.length - terminal.limit;
  while (start < all.length && ((all[start] ?? 0) & 0xc0) === 0x80) start++;
  all = all.subarray(start);
  terminal.chunks = [all];
  terminal.bytes = all.length;
  terminal.truncated = true;
}

/** SIGTERM to the group, SIGKILL if it is still there after a short grace. */
async function killGroup(terminal: Terminal): Promise<void> {
  if (terminal.exit) return;
  const pid = terminal.proc.pid;
  if (pid === undefined) return;
  signalGroup(pid, "SIGTERM");
  const timer = setTimeout(() => signalGroup(pid, "SIGKILL"), 1000);
  try {
    await terminal.exited;
  } finally {
    clearTimeout(timer);
  }
}
