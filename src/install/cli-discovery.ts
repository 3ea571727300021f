/**
 * The pieces every backend's CLI discovery is made of: what counts as a runnable file, the `PATH`
 * walk, npm package resolution, an explicit path that must work, and the `--version` probe. Each
 * backend's `discovery.ts` decides the order and the names; the mechanics live here.
 */
import { execFile } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { CliNotFoundError } from "../errors.js";
import { definedOnly } from "../process/child-env.js";

/** What `searched` lists when the environment has no `PATH` to walk. */
export const EMPTY_PATH_MARKER = "$PATH (empty)";

/** True when `path` is a regular file (following links). */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * True when `path` is a regular file this process may execute. Windows has no execute bit: there
 * the file only has to exist.
 */
export function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, process.platform === "win32" ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The non-empty entries of the `PATH` in `env` (`Path`, as Windows spells it, when there is no `PATH`). */
export function pathDirs(env: Record<string, string | undefined>): string[] {
  return (env.PATH ?? env.Path ?? "").split(delimiter).filter((d) => d.length > 0);
}

/** The home directory the CLI will see: `HOME` from `env`, else this user's. */
export function homeDir(env: Record<string, string | undefined>): string {
  return env.HOME || homedir();
}

/**
 * The home directories to look for a user-installed CLI in: the one the CLI will see, then this
 * process's own. They differ when `env` gives the CLI another `HOME` (the testing kit's isolated
 * home, a sandbox), while the CLI is installed in the real one (`~/.local/bin/claude`).
 */
export function homeDirs(env: Record<string, string | undefined>): string[] {
  const homes = [homeDir(env), process.env.HOME || homedir()];
  return homes[0] === homes[1] ? [homes[0]!] : homes;
}

/** `name`, with `.exe` on Windows. */
export function executableName(name: string): string {
  return process.platform === "win32" ? `${name}.exe` : name;
}

/** One `require` per root (a file path or URL), to resolve packages as seen from there. */
export function packageResolvers(roots: string[]): NodeJS.Require[] {
  return roots.map((root) => createRequire(root));
}

/**
 * Where CLI packages are looked up by default: from the discovering module (`moduleUrl`, so a
 * dependency of this SDK is found), then from the current directory (so one of the user's project
 * is found too).
 */
export function defaultResolveRoots(moduleUrl: string): string[] {
  return [moduleUrl, join(process.cwd(), "package.json")];
}

/** The directories `pkg` resolves to from each resolver, in order, without repeats. */
export function resolvePackageDirs(requires: NodeJS.Require[], pkg: string): string[] {
  const dirs: string[] = [];
  for (const req of requires) {
    let dir: string;
    try {
      dir = dirname(req.resolve(`${pkg}/package.json`));
    } catch {
      continue;
    }
    if (!dirs.includes(dir)) dirs.push(dir);
  }
  return dirs;
}

/** Collects every place a search looked at, for the {@link CliNotFoundError} that lists them. */
export class CliSearch {
  /** The places looked at so far, in order. */
  readonly searched: string[] = [];

  /** Records `path` and returns it when `accept` holds for it. */
  check(path: string, accept: (path: string) => boolean = isExecutableFile): string | undefined {
    this.searched.push(path);
    return accept(path) ? path : undefined;
  }

  /** {@link check}, but a place already looked at is skipped (and not listed twice). */
  checkOnce(path: string): string | undefined {
    return this.searched.includes(path) ? undefined : this.check(path);
  }

  /**
   * Looks for `exe` in every `PATH` directory of `env`, then at each of `commonPaths` not yet looked
   * at. An empty `PATH` is listed as {@link EMPTY_PATH_MARKER}, between the two.
   */
  onPathThenCommon(
    env: Record<string, string | undefined>,
    exe: string,
    commonPaths: readonly string[],
  ): string | undefined {
    const dirs = pathDirs(env);
    for (const dir of dirs) {
      const found = this.check(join(dir, exe));
      if (found) return found;
    }
    if (dirs.length === 0) this.searched.push(EMPTY_PATH_MARKER);
    for (const path of commonPaths) {
      const found = this.checkOnce(path);
      if (found) return found;
    }
    return undefined;
  }
}

/** The explicit choices of an executable, strongest first. */
export interface ExplicitCli {
  /** The CLI's name in errors, e.g. `claude`. */
  cli: string;
  /** The caller's `cliPath` option. */
  cliPath: string | undefined;
  /** The environment the CLI will run with. */
  env: Record<string, string | undefined>;
  /** The variable that names the executable when `cliPath` is not given, e.g. `CLAUDE_CLI_PATH`. */
  envVar: string;
}

/**
 * `cliPath`, else the executable `env[envVar]` names, else `undefined` (search on). A path given
 * either way that is not an executable file throws instead of falling through to the search, so a
 * typo never silently runs some other binary of the same name.
 *
 * @throws CliNotFoundError naming the explicit path and how to fix it.
 */
export function explicitExecutable({ cli, cliPath, env, envVar }: ExplicitCli): string | undefined {
  if (cliPath !== undefined) {
    if (isExecutableFile(cliPath)) return cliPath;
    throw new CliNotFoundError(
      cli,
      [cliPath],
      `cliPath '${cliPath}' is not an executable file. Fix the path, or omit cliPath to search the usual places.`,
    );
  }
  const fromEnv = env[envVar];
  if (!fromEnv) return undefined;
  if (isExecutableFile(fromEnv)) return fromEnv;
  throw new CliNotFoundError(
    cli,
    [`$${envVar}=${fromEnv}`],
    `${envVar} names '${fromEnv}', which is not an executable file. Fix or unset it.`,
  );
}

/** What a version command printed, and how it failed if it did. */
export interface VersionOutput {
  stdout: string;
  /** Set when the command could not run, exited non-zero, or was killed (`killed`) at the timeout. */
  error: (Error & { killed?: boolean }) | null;
}

/**
 * Runs `<cliPath> <args>` with `env` and collects its output. Never rejects, and never waits longer
 * than `timeoutMs`: the process is then SIGKILLed, since a wedged CLI may ignore SIGTERM and this
 * probe must never hang the caller.
 */
export function runVersionCommand(
  cliPath: string,
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs: number,
): Promise<VersionOutput> {
  return new Promise((resolve) => {
    execFile(
      cliPath,
      args,
      {
        env: definedOnly(env),
        timeout: timeoutMs,
        killSignal: "SIGKILL",
        windowsHide: true,
        encoding: "utf8",
      },
      (error, stdout) => resolve({ stdout: stdout ?? "", error }),
    );
  });
}

/** Why no version could be read from `output`: the first line of the error, or the unexpected output. */
export function versionFailureReason({ stdout, error }: VersionOutput): string {
  return error
    ? (error.message.split("\n")[0] ?? "")
    : `unexpected output ${JSON.stringify(stdout.slice(0, 100))}`;
}

/** The outcome of a backend's version check. */
export interface VersionCheck {
  /** The version, or `undefined` when the check was skipped or failed. */
  version: string | undefined;
  /** Set when the version is unsupported or could not be determined. */
  warning?: string;
}

/** A backend's version check, done at most once per executable for the life of the process. */
export interface VersionCheckOnce {
  /** Runs the check for `cliPath` unless it has been done; resolves with the version found. */
  run(cliPath: string, env: Record<string, string>): Promise<string | undefined>;
  /**
   * Records the outcome for a version the CLI reported by itself (no process is run), unless
   * `cliPath` was checked already; its warning is emitted like {@link run}'s.
   */
  learned(cliPath: string, outcome: VersionCheck): void;
  /** True once `cliPath` has been checked, or its check is under way. */
  has(cliPath: string): boolean;
}

/**
 * Wraps a version check so it runs once per executable for the life of the process, and its
 * warning (if any) is emitted once, as a `CODE_AGENT_SDK_CLI_VERSION` process warning: opening many
 * sessions must neither re-run the CLI each time nor repeat the same warning.
 */
export function checkVersionOncePerBinary(
  check: (cliPath: string, env: Record<string, string>) => Promise<VersionCheck>,
): VersionCheckOnce {
  const checks = new Map<string, Promise<string | undefined>>();
  const settle = (cliPath: string, outcome: Promise<VersionCheck>): Promise<string | undefined> => {
    const once = outcome.then(({ version, warning }) => {
      if (warning) process.emitWarning(warning, { code: "CODE_AGENT_SDK_CLI_VERSION" });
      return version;
    });
    checks.set(cliPath, once);
    return once;
  };
  return {
    run: (cliPath, env) => checks.get(cliPath) ?? settle(cliPath, check(cliPath, env)),
    learned: (cliPath, outcome) => {
      if (!checks.has(cliPath)) void settle(cliPath, Promise.resolve(outcome));
    },
    has: (cliPath) => checks.has(cliPath),
  };
}
