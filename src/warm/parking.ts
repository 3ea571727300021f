/**
 * Where spares park (see spare.ts): a private directory per spare under the CLI's configuration
 * home, `<config home>/spares/spare-<host tag>-<host pid>-XXXXXX`, removed once the spare is claimed
 * or gone, and at the host's exit. A host that dies without its exit hook (SIGKILL, a crash of
 * Node itself) leaves its directories behind; the next spare parked under the same home removes
 * those whose host is gone.
 */
import { lstatSync, mkdirSync, mkdtempSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { InvalidOptionsError } from "../errors.js";
import type { AgentOptions } from "../options.js";
import { buildChildEnv } from "../process/child-env.js";
import { ownDirPrefix, reclaimStaleDirs } from "../process/stale-dirs.js";

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
  return mkdtempSync(join(spares, ownDirPrefix("spare")));
}

/**
 * Removes the parking directories under `spares` whose host process is gone (see
 * `reclaimStaleDirs`), and returns their names; only in a `spares` directory that is itself a real
 * directory owned by this process's user.
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
  return reclaimStaleDirs(spares, "spare");
}
