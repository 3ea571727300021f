/**
 * Finding what is left of a terminal's command once its process group is gone: a process that
 * left the group (`setsid`, a daemon that forgot to close its stdio) and still holds the write end
 * of the terminal's output pipe. Such a process would keep the pipe open — and a reader waiting
 * for its end — forever; it is found by the pipe it holds (Linux: `/proc/<pid>/fd/*` naming
 * `pipe:[<inode>]`) and killed. Elsewhere nothing is found and the pipe is only destroyed on our
 * side.
 */
import { fstatSync } from "node:fs";
import { readdir, readlink } from "node:fs/promises";
import type { Readable } from "node:stream";
import { signalGroup } from "../../process/group-registry.js";

/** The inode of the pipe behind a child's stdout/stderr stream (Linux), or `undefined`. */
export function pipeInode(stream: Readable | null | undefined): number | undefined {
  if (process.platform !== "linux" || !stream) return undefined;
  // Node's Pipe handle exposes its descriptor; the public API has no other way to it.
  const fd = (stream as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  if (typeof fd !== "number" || fd < 0) return undefined;
  try {
    return fstatSync(fd).ino;
  } catch {
    return undefined;
  }
}

/**
 * SIGKILLs every other process that holds one of the pipes `inodes` open; resolves with their
 * pids. Processes that vanish or cannot be inspected while this looks are skipped.
 */
export async function killPipeHolders(inodes: readonly number[]): Promise<number[]> {
  if (process.platform !== "linux" || inodes.length === 0) return [];
  const names = new Set(inodes.map((ino) => `pipe:[${ino}]`));
  const killed: number[] = [];
  let pids: string[];
  try {
    pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid);
  } catch {
    return [];
  }
  await Promise.all(
    pids.map(async (pid) => {
      let fds: string[];
      try {
        fds = await readdir(`/proc/${pid}/fd`);
      } catch {
        return;
      }
      for (const fd of fds) {
        const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
        if (!names.has(target)) continue;
        try {
          process.kill(Number(pid), "SIGKILL");
          killed.push(Number(pid));
        } catch {
          // Gone meanwhile.
        }
        return;
      }
    }),
  );
  return killed;
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
