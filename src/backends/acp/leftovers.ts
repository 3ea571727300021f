/**
 * Finding what is left of a terminal's command once its process group is gone: a process that
 * left the group (`setsid`, a daemon) and may still hold the terminal's output open — and a reader
 * waiting for its end — forever. Node's child stdio are socket pairs whose far end cannot be told
 * from the near one, so each terminal's command gets a mark in its environment
 * ({@link TERMINAL_MARK_VARIABLE}, a random token per terminal) that everything it starts inherits;
 * on Linux, `/proc/<pid>/environ` finds the marked processes and they are killed. A process that
 * rewrites its environment before exec (`env -i`) is not found; elsewhere (no /proc) nothing is,
 * and the terminal's pipes are only destroyed on our side.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { signalGroup } from "../../process/group-registry.js";

/** The environment variable that marks every process a terminal's command started. */
export const TERMINAL_MARK_VARIABLE = "CODE_AGENT_SDK_TERMINAL";

/** A new mark (the variable's value) for one terminal. */
export function newTerminalMark(): string {
  return randomBytes(16).toString("hex");
}

/**
 * SIGKILLs every other process whose environment carries `mark`; resolves with their pids.
 * Processes that vanish or cannot be read while this looks are skipped.
 */
export async function killMarked(mark: string): Promise<number[]> {
  if (process.platform !== "linux") return [];
  const killed: number[] = [];
  let pids: string[];
  try {
    pids = otherPids(await readdir("/proc"));
  } catch {
    return [];
  }
  await Promise.all(
    pids.map(async (pid) => {
      const environ = await readFile(`/proc/${pid}/environ`).catch(() => undefined);
      if (environ && carries(environ, mark) && killQuietly(pid)) killed.push(Number(pid));
    }),
  );
  return killed;
}

/**
 * {@link killMarked}, synchronously: for this process's exit, when no promise will run any more.
 * Never throws.
 */
export function killMarkedSync(mark: string): void {
  if (process.platform !== "linux") return;
  try {
    for (const pid of otherPids(readdirSync("/proc"))) {
      let environ: Buffer;
      try {
        environ = readFileSync(`/proc/${pid}/environ`);
      } catch {
        continue;
      }
      if (carries(environ, mark)) killQuietly(pid);
    }
  } catch {
    // The process is going away: nothing left to report to.
  }
}

function otherPids(entries: string[]): string[] {
  return entries.filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid);
}

/** Whether a `/proc/<pid>/environ` (NUL-separated) holds the mark. */
function carries(environ: Buffer, mark: string): boolean {
  const entry = Buffer.from(`${TERMINAL_MARK_VARIABLE}=${mark}`);
  for (let at = environ.indexOf(entry); at !== -1; at = environ.indexOf(entry, at + 1)) {
    const end = at + entry.length;
    if ((at === 0 || environ[at - 1] === 0) && (end === environ.length || environ[end] === 0)) return true;
  }
  return false;
}

function killQuietly(pid: string): boolean {
  try {
    process.kill(Number(pid), "SIGKILL");
    return true;
  } catch {
    return false;
  }
}

/** Whether any process of group `pgid` is left (signal 0 checks without signalling). */
export function groupExists(pgid: number): boolean {
  if (process.platform === "win32") return false;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** How often {@link groupGone} looks. */
const GROUP_POLL_MS = 20;

/**
 * Resolves once no process of group `pgid` is left, SIGKILLing the group after `graceMs`
 * (processes that are not our children have no exit event, so this polls).
 */
export async function groupGone(pgid: number, graceMs: number): Promise<void> {
  const deadline = Date.now() + graceMs;
  while (groupExists(pgid)) {
    if (Date.now() >= deadline) {
      signalGroup(pgid, "SIGKILL");
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, GROUP_POLL_MS));
  }
}
