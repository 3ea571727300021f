/**
 * Process inspection for the lifecycle suite: which of the processes a session started are still
 * running. Linux-first (reads /proc); elsewhere only explicitly known pids are checked.
 *
 * A zombie counts as gone: PID 1 in some containers never reaps orphans, so a killed grandchild
 * can stay a zombie forever although it holds no resources but its pid.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";

/** The fields of /proc/<pid>/stat this suite needs. */
export interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
}

const HAS_PROC = existsSync("/proc/self/stat");

/** Parses /proc/<pid>/stat (the command name may contain spaces and parentheses). */
export function procStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return {
    pid,
    state: fields[0] ?? "?",
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
  };
}

/** True while `pid` exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw err;
  }
  if (!HAS_PROC) return true;
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== "Z";
}

/** Every live (non-zombie) process on the machine, from /proc; empty where /proc does not exist. */
export function liveProcesses(): ProcStat[] {
  if (!HAS_PROC) return [];
  const out: ProcStat[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat && stat.state !== "Z") out.push(stat);
  }
  return out;
}

/** Live direct children of `ppid` (default: this test process). */
export function liveChildren(ppid = process.pid): number[] {
  return liveProcesses()
    .filter((p) => p.ppid === ppid)
    .map((p) => p.pid);
}

/** Live members of process group `pgid`. */
export function liveGroupMembers(pgid: number): number[] {
  return liveProcesses()
    .filter((p) => p.pgrp === pgid)
    .map((p) => p.pid);
}

/** Number of open file descriptors of this process (Linux), or -1 where that cannot be counted. */
export function openFdCount(): number {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return -1;
  }
}

/** The pids a fake CLI reported at start: its own and its grandchild's. */
export interface FakePids {
  pid: number;
  grandchildPid: number | null;
  /** A CLI that runs one process per turn (Cursor): the pids of the earlier turns' processes. */
  previous?: { pid: number; grandchildPid: number | null }[];
}

/** Reads the pid file a fake CLI wrote, or `undefined` if it never started. */
export function readPids(file: string): FakePids | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as FakePids;
  } catch {
    return undefined;
  }
}

/**
 * Everything still running that a session started: the CLI, its grandchild, any other member of
 * the CLI's process group (for each turn's process, where a turn is a process), and any child of
 * this test process. Polls (bounded by `withinMs`)
 * because a SIGKILLed grandchild is torn down by the kernel asynchronously and we are not its
 * parent, so there is no exit event to wait on. Returns the survivors (empty = clean).
 */
export async function survivors(pids: FakePids | undefined, withinMs = 2_000): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const left = new Set<number>(liveChildren());
    for (const run of pids ? [pids, ...(pids.previous ?? [])] : []) {
      for (const pid of [run.pid, run.grandchildPid]) if (pid && isAlive(pid)) left.add(pid);
      for (const pid of liveGroupMembers(run.pid)) left.add(pid);
    }
    if (left.size === 0 || Date.now() > deadline) return [...left];
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** SIGKILLs a pid if it is still there (cleanup of processes that escape on purpose). */
export function killQuietly(pid: number | null | undefined): void {
  if (!pid) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** Polls `predicate` until it holds or `withinMs` passes; returns whether it held. */
export async function eventually(predicate: () => boolean, withinMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (!predicate()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}
