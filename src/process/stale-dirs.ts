/**
 * Directories a host makes for itself and removes when it is done with them (a spare's parking
 * place, the temporary configuration of a resume from a session store): named
 * `<prefix>-<host tag>-<pid>-XXXXXX`, so that those of a host that died without its exit hook
 * (SIGKILL, an OOM kill, a crash of Node itself) can be found, and removed, by the next host that
 * makes one.
 */
import { lstatSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";

/** At most this many of a parent's entries named like ours are looked at per call (a bound, not a limit). */
const MAX_RECLAIM_SCAN = 1000;

/** The start of the name of a directory this process makes with `mkdtemp` (which adds `XXXXXX`). */
export function ownDirPrefix(prefix: string): string {
  return `${prefix}-${hostTag()}-${process.pid}-`;
}

/**
 * Removes the directories in `parent` named `<prefix>-<tag>-<pid>-XXXXXX` whose host process is
 * gone, and returns their names. Only what is certainly ours and certainly stale: this machine's
 * and pid namespace's tag (so the pid means the same process here), a real directory (`lstat`: a
 * symlink is never followed or removed), owned by this process's user, whose pid no longer exists.
 * Anything else is left alone; a failure to remove one is ignored (the next call tries again).
 * Checking `parent` itself is the caller's part.
 */
export function reclaimStaleDirs(parent: string, prefix: string): string[] {
  const uid = process.getuid?.();
  if (uid === undefined) return []; // No owner to compare (Windows): leave everything.
  const start = `${prefix}-${hostTag()}-`;
  let names: string[];
  try {
    names = readdirSync(parent)
      .filter((name) => name.startsWith(start))
      .slice(0, MAX_RECLAIM_SCAN);
  } catch {
    return [];
  }
  const pattern = /^(\d{1,10})-[A-Za-z0-9]{6}$/;
  const reclaimed: string[] = [];
  for (const name of names) {
    const pid = Number(pattern.exec(name.slice(start.length))?.[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || processExists(pid)) continue;
    const path = join(parent, name);
    try {
      const entry = lstatSync(path);
      if (!entry.isDirectory() || entry.uid !== uid) continue;
      // `rm` removes symlinks inside as links: it never follows them out of the directory.
      rmSync(path, { recursive: true, force: true });
      reclaimed.push(name);
    } catch {
      // Gone meanwhile, or not removable: nothing depends on it.
    }
  }
  return reclaimed;
}

/** Whether `pid` names a live process (a zombie counts as live: its parent may still reap and report it). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

let tag: string | undefined;

/**
 * 8 hex digits naming this machine and pid namespace: a pid in a directory name is only compared
 * with live processes where it means the same process (not a directory shared over the network or
 * with a container).
 */
export function hostTag(): string {
  if (tag !== undefined) return tag;
  let namespace = "";
  try {
    namespace = readlinkSync("/proc/self/ns/pid");
  } catch {
    // No /proc (macOS): one pid namespace per machine.
  }
  // Loaded here, at the first use, not with the package root (~5 ms of a cold start).
  const { createHash } = process.getBuiltinModule("node:crypto");
  tag = createHash("sha256").update(`${hostname()}\0${namespace}`).digest("hex").slice(0, 8);
  return tag;
}
