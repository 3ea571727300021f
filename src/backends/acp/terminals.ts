/**
 * The client side of ACP's `terminal/*` requests: commands the agent asks the client to run.
 *
 * Each command runs in the session's working directory or a directory inside it (see
 * `Workspace.directory`), in its own process group (so `kill` and `release` reach what it
 * started), registered to be killed if this process exits. A command without `args` is a shell
 * command line (`/bin/sh -c`, as agents such as claude-code-acp send whole lines); with `args`, it
 * is run directly. Before it starts, the session's `authorize` (its `canUseTool`, see
 * `client-gate.ts`) decides; at most `maxTerminals` terminals (default
 * {@link DEFAULT_MAX_TERMINALS}) exist at once per session, until the agent releases them.
 *
 * Output is kept up to the agent's `outputByteLimit` (at most {@link MAX_OUTPUT_BYTES}), dropping
 * the oldest bytes first. A command has exited once its process has exited *and* its output has
 * ended — or gone quiet for `outputIdleMs`: a process it left behind holding the output open (a
 * `setsid` daemon) does not hold the exit back. Killing a terminal (kill, release, the session's
 * end) ends its process group (SIGTERM, SIGKILL after a grace), then kills every process that
 * still carries the terminal's mark in its environment (what left the group: see `leftovers.ts`),
 * then destroys the output pipes: nothing it started keeps the session from closing.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { RequestError } from "@agentclientprotocol/sdk";
import type { RawObject } from "../../messages.js";
import { atHostExit, registerGroup, signalGroup, unregisterGroup } from "../../process/group-registry.js";
import type { TerminalRequest } from "./client-gate.js";
import {
  groupExists,
  groupGone,
  killMarked,
  killMarkedSync,
  newTerminalMark,
  TERMINAL_MARK_VARIABLE,
} from "./leftovers.js";
import type { Workspace } from "./workspace.js";

/** The most output kept per terminal, whatever the agent asks for. */
export const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

/** Default most terminals of one session at once (released ones do not count). */
export const DEFAULT_MAX_TERMINALS = 16;

/** Default time a terminal's output may stay quiet after its command exited before the exit is reported. */
export const DEFAULT_OUTPUT_IDLE_MS = 1_000;

/** Time between SIGTERM and SIGKILL of a terminal's process group. */
export const KILL_GRACE_MS = 1_000;

/** How long, after SIGKILL, a terminal's command may take to be reaped before it is given up on. */
const REAP_BOUND_MS = 2_000;

/** How a terminal's command ended. */
export interface TerminalExit {
  exitCode: number | null;
  signal: string | null;
}

interface Terminal {
  readonly proc: ChildProcess;
  readonly pid: number;
  readonly limit: number;
  /** The mark in the environment of everything the command starts (see `leftovers.ts`). */
  readonly mark: string;
  /** Drops the host-exit clean-up that kills what carries the mark. */
  readonly dropExitCleanup: () => void;
  chunks: Buffer[];
  bytes: number;
  truncated: boolean;
  /** Set once the command exited and its output ended or went quiet. */
  exit: TerminalExit | undefined;
  readonly exited: Promise<TerminalExit>;
  /** Resolves when the command's own process has exited (reaped). */
  readonly leaderExited: Promise<void>;
  leaderGone: boolean;
  /** Seen empty after the command exited: its group id may be reused, so it is never signalled again. */
  groupEmpty: boolean;
  /** The kill in progress, if any. */
  stopping: Promise<void> | undefined;
}

/** The `terminal/create` parameters this client reads. */
export interface CreateTerminalParams {
  command: string;
  args?: string[] | null;
  env?: { name: string; value: string }[] | null;
  cwd?: string | null;
  outputByteLimit?: number | null;
}

/** Decides a terminal before it starts (the session's `canUseTool`); throws to refuse. */
export type AuthorizeTerminal = (request: TerminalRequest, raw: RawObject) => Promise<void>;

/** Options of a session's terminals. */
export interface TerminalsOptions {
  /** Most terminals at once (unreleased ones count). Default {@link DEFAULT_MAX_TERMINALS}. */
  maxTerminals?: number;
  /** See {@link DEFAULT_OUTPUT_IDLE_MS}. */
  outputIdleMs?: number;
  /** Asked before each command starts; without it every command runs. */
  authorize?: AuthorizeTerminal;
}

/** Every terminal of one session. */
export class Terminals {
  private readonly terminals = new Map<string, Terminal>();
  /** Creations between their limit check and their registration. */
  private starting = 0;
  /** Creations between their spawn and their registration: see {@link closeAll}. */
  private readonly spawning = new Set<Promise<void>>();
  private nextId = 1;
  private closed = false;
  private readonly maxTerminals: number;
  private readonly outputIdleMs: number;

  constructor(
    private readonly workspace: Workspace,
    private readonly env: Record<string, string>,
    private readonly options: TerminalsOptions = {},
  ) {
    this.maxTerminals = options.maxTerminals ?? DEFAULT_MAX_TERMINALS;
    this.outputIdleMs = options.outputIdleMs ?? DEFAULT_OUTPUT_IDLE_MS;
  }

  /** Starts a command; resolves with its terminal id once it has started. */
  async create(params: CreateTerminalParams): Promise<string> {
    if (this.closed) throw RequestError.internalError(undefined, "the session is closing");
    const request = checkParams(params, this.workspace.root);
    if (this.terminals.size + this.starting >= this.maxTerminals) {
      throw RequestError.invalidRequest(
        { reason: "terminal-limit", limit: this.maxTerminals },
        `the session already has ${this.maxTerminals} terminals, the most the client runs at once; release one first`,
      );
    }
    this.starting += 1;
    try {
      // Refused before anyone is asked when it is outside; looked up again once allowed.
      await this.workspace.directory(request.cwd);
      await this.options.authorize?.(request, params as unknown as RawObject);
      // Held open until the command has started in it: a directory swapped meanwhile is not followed.
      const cwd = await this.workspace.openDirectory(request.cwd);
      // From the spawn until the terminal is registered (or ended), closeAll waits for this.
      let settle!: () => void;
      const settled = new Promise<void>((resolve) => {
        settle = resolve;
      });
      this.spawning.add(settled);
      try {
        let terminal: Terminal;
        try {
          if (this.closed) throw RequestError.internalError(undefined, "the session is closing");
          terminal = await this.start(request, cwd.cwd, params.outputByteLimit);
        } finally {
          await cwd.handle.close().catch(() => undefined);
        }
        if (this.closed) {
          // The session began closing while the command started: it is ended, not left running.
          await stop(terminal);
          throw RequestError.internalError(undefined, "the session is closing");
        }
        const id = `term-${this.nextId++}`;
        this.terminals.set(id, terminal);
        return id;
      } finally {
        this.spawning.delete(settled);
        settle();
      }
    } finally {
      this.starting -= 1;
    }
  }

  private async start(
    request: TerminalRequest,
    cwd: string,
    outputByteLimit: number | null | undefined,
  ): Promise<Terminal> {
    const mark = newTerminalMark();
    const env = { ...this.env, ...request.env, [TERMINAL_MARK_VARIABLE]: mark };
    const [command, args] =
      request.args.length > 0 ? [request.command, request.args] : ["/bin/sh", ["-c", request.command]];
    const proc = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    await new Promise<void>((resolve, reject) => {
      proc.once("spawn", resolve);
      proc.once("error", reject);
    }).catch((error: unknown) => {
      throw RequestError.internalError(
        undefined,
        `cannot run ${request.command}: ${error instanceof Error ? error.message : "spawn failed"}`,
      );
    });
    proc.on("error", () => undefined);
    const pid = proc.pid as number;
    registerGroup(pid);
    // If this process exits first: the group goes with the registry's kill, what left it with this.
    const dropExitCleanup = atHostExit(() => killMarkedSync(mark));
    const limit = Math.min(
      typeof outputByteLimit === "number" && outputByteLimit >= 0 ? outputByteLimit : MAX_OUTPUT_BYTES,
      MAX_OUTPUT_BYTES,
    );
    let leaderExit!: (info: TerminalExit) => void;
    const leader = new Promise<TerminalExit>((resolve) => {
      leaderExit = resolve;
    });
    let lastOutput = Date.now();
    let outputClosed = false;
    let onClose: (() => void) | undefined;
    proc.once("exit", (code, signal) => {
      terminal.leaderGone = true;
      leaderExit({ exitCode: code, signal });
    });
    proc.once("close", () => {
      outputClosed = true;
      onClose?.();
    });
    const terminal: Terminal = {
      proc,
      pid,
      limit,
      mark,
      dropExitCleanup,
      chunks: [],
      bytes: 0,
      truncated: false,
      exit: undefined,
      leaderExited: leader.then(() => undefined),
      leaderGone: false,
      groupEmpty: false,
      stopping: undefined,
      exited: leader.then(async (info) => {
        // The output ends with the pipes' close, or when nothing came for outputIdleMs (what holds
        // the pipe open is not the command any more).
        if (!outputClosed) {
          await new Promise<void>((resolve) => {
            let timer: NodeJS.Timeout | undefined;
            const check = () => {
              const quiet = Date.now() - lastOutput;
              if (quiet >= this.outputIdleMs) resolve();
              else timer = setTimeout(check, this.outputIdleMs - quiet);
            };
            onClose = () => {
              clearTimeout(timer);
              resolve();
            };
            check();
          });
        }
        terminal.exit = info;
        return info;
      }),
    };
    const append = (chunk: Buffer) => {
      lastOutput = Date.now();
      appendOutput(terminal, chunk);
    };
    proc.stdout?.on("data", append);
    proc.stderr?.on("data", append);
    void leader.then(() => {
      // The group is forgotten once its leader is gone and nothing of it is left (or it is killed).
      void terminal.exited.then(() => {
        if (terminal.stopping || groupExists(pid)) return;
        terminal.groupEmpty = true;
        unregisterGroup(pid);
      });
    });
    return terminal;
  }

  /** How many terminals exist (not yet released). */
  get size(): number {
    return this.terminals.size;
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
    await stop(this.get(id));
  }

  /** `terminal/release`: kills the command if it still runs and forgets the terminal. */
  async release(id: string): Promise<void> {
    const terminal = this.get(id);
    this.terminals.delete(id);
    await stop(terminal);
  }

  /** Kills every command still running; no terminal can be created afterwards. */
  async closeAll(): Promise<void> {
    this.closed = true;
    const all = [...this.terminals.values()];
    this.terminals.clear();
    // A command spawned but not yet registered is ended by its create, which this waits for
    // (bounded: the spawn settles; an authorize still pending is not waited for).
    await Promise.all([...all.map(stop), ...this.spawning]);
  }

  private get(id: string): Terminal {
    const terminal = typeof id === "string" ? this.terminals.get(id) : undefined;
    if (!terminal) throw RequestError.resourceNotFound(String(id));
    return terminal;
  }
}

/** The request `params` describe, checked (types), with the defaults filled in. */
function checkParams(params: CreateTerminalParams, root: string): TerminalRequest {
  const bad = (what: string) => RequestError.invalidParams({ field: what }, `terminal/create: ${what}`);
  if (typeof params?.command !== "string" || params.command === "")
    throw bad("command must be a non-empty string");
  const args = params.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) throw bad("args must be strings");
  const env: Record<string, string> = {};
  for (const item of params.env ?? []) {
    if (
      typeof item?.name !== "string" ||
      typeof item.value !== "string" ||
      item.name === "" ||
      item.name.includes("=")
    ) {
      throw bad("env must be { name, value } strings");
    }
    env[item.name] = item.value;
  }
  if (params.cwd != null && typeof params.cwd !== "string") throw bad("cwd must be a string");
  return { command: params.command, args, cwd: params.cwd || root, env };
}

function appendOutput(terminal: Terminal, chunk: Buffer): void {
  terminal.chunks.push(chunk);
  terminal.bytes += chunk.length;
  if (terminal.bytes <= terminal.limit) return;
  // Keep the newest `limit` bytes, cut at a character boundary (never inside a UTF-8 sequence).
  let all = Buffer.concat(terminal.chunks);
  let start = all.length - terminal.limit;
  while (start < all.length && ((all[start] ?? 0) & 0xc0) === 0x80) start++;
  all = Buffer.from(all.subarray(start));
  terminal.chunks = [all];
  terminal.bytes = all.length;
  terminal.truncated = true;
}

/** Kills a terminal's command, once: see {@link kill}. */
function stop(terminal: Terminal): Promise<void> {
  terminal.stopping ??= kill(terminal);
  return terminal.stopping;
}

/**
 * SIGTERM to the group, SIGKILL after {@link KILL_GRACE_MS} if anything of it is left; then every
 * process still carrying the terminal's mark is killed and the pipes are destroyed, so the
 * terminal's exit (and whoever waits for it) settles.
 */
async function kill(terminal: Terminal): Promise<void> {
  const { pid, proc } = terminal;
  try {
    if (!terminal.groupEmpty) {
      signalGroup(pid, "SIGTERM");
      await groupGone(pid, KILL_GRACE_MS);
    }
    if (!terminal.leaderGone) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        terminal.leaderExited,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, REAP_BOUND_MS);
        }),
      ]);
      clearTimeout(timer);
    }
    // What left the group (setsid) and may hold the output open, or run on unseen.
    await killMarked(terminal.mark);
    terminal.dropExitCleanup();
  } finally {
    proc.stdout?.destroy();
    proc.stderr?.destroy();
    if (terminal.leaderGone && !terminal.groupEmpty) unregisterGroup(pid);
  }
}
