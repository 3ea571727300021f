/**
 * Where spares park (see spare.ts): a private directory per spare under the CLI's configuration
 * home, `<config home>/spares/spare-<host tag>-<host pid>-XXXXXX`, removed once the spare is claimed
 * or gone, and at the host's exit. A host that dies without its exit hook (SIGKILL, a crash of
 * Node itself) leaves its directories behind; the next spare parked under the same home removes
 * those whose host is gone.
 */
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { homedir, hostname } from "node:os";
import { isAbsolute, join } from "node:path";
import { InvalidOptionsError } from "../errors.js";
import type { AgentOptions } from "../options.js";
import { buildChildEnv } from "../process/child-env.js";

/** At most this many entries of the spares directory are looked at per parking (a bound, not a limit on spares). */
const MAX_RECLAIM_SCAN = 1000;

/**
 * A new private (0700) directory under the CLI's configuration home, as the CLI will see it:
 * `CLAUDE_CONFIG_DIR`, else `$HOME/.claude`, from the environment it is given. Stale directories of
 * dead hosts found there are removed first (see {@link reclaimStaleParkingDirs}).
 */
export function newParkingDir(options: AgentOptions): string {
  const env = buildChildEnv(options);
  const configHome = env.CLAUDE_CONFIG_DIR?.trim() || join(env.HOME?.trim() || homedir(), ".claude");
  if (!isAbsolute(configHome))
    throw new InvalidOptionsError([
      `cwd: no absolute configuration home to park the spare under (${configHome}); set CLAUDE_CONFIG_DIR or HOME, or give options.cwd`,
    ]);
  const spares = join(configHome, "spares");
  mkdirSync(spares, { recursive: true, mode: 0o700 });
  reclaimStaleParkingDirs(spares);
  return mkdtempSync(join(spares, `spare-${hostTag()}-${process.pid}-`));
}

/**
 * Removes the parking directories under `spares` whose host process is gone, and returns their
 * names. Only what is certainly ours and certainly stale: an entry named as this module names them
 * (`spare-<tag>-<pid>-XXXXXX`) with this machine's and pid namespace's tag (so the pid means the
 * same process here), a real directory (`lstat`: a symlink is never followed or removed), owned by
 * this process's user, in a `spares` directory that is itself a real directory we own, and whose
 * pid no longer exists. Anything else is left alone; a failure to remove one is ignored (it is
 * tried again at the next parking).
 */
export function reclaimStaleParkingDirs(spares: string): string[] {
  const uid = process.getuid?.();
  if (uid === undefined) return []; // No owner to compare (Windows): leave everything.
  try {
    const dir = lstatSync(spares);
    if (!dir.isDirectory() || dir.uid !== uid) return [];
  } catch {
    return [];
  }
  let names: string[];
  try {
    names = readdirSync(spares).slice(0, MAX_RECLAIM_SCAN);
  } catch {
    return [];
  }
  const pattern = new RegExp(`^spare-${hostTag()}-(\\d{1,10})-[A-Za-z0-9]{6}$`);
  const reclaimed: string[] = [];
  for (const name of names) {
    const pid = Number(pattern.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || processExists(pid)) continue;
    const path = join(spares, name);
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
 * with live processes where it means the same process (not a configuration home shared over the
 * network or with a container).
 */
export function hostTag(): string {
  if (tag !== undefined) return tag;
  let namespace = "";
  try {
    namespace = readlinkSync("/proc/self/ns/pid");
  } catch {
    // No /proc (macOS): one pid namespace per machine.
  }
  // Loaded here, at the first parking, not with the package root (~5 ms of a cold start).
  const { createHash } = process.getBuiltinModule("node:crypto");
  tag = createHash("sha256").update(`${hostname()}\0${namespace}`).digest("hex").slice(0, 8);
  return tag;
}
