/**
 * Finding the Cursor Agent executable (`cursor-agent`, also installed as `agent`) and checking that
 * it runs.
 */
import { join } from "node:path";
import { CliNotFoundError } from "../../errors.js";
import {
  CliSearch,
  EMPTY_PATH_MARKER,
  explicitExecutable,
  homeDirs,
  pathDirs,
  runVersionCommand,
  type VersionCheck,
  versionFailureReason,
} from "../../install/cli-discovery.js";

/** Environment variable naming the CLI executable; checked right after `cliPath`. */
export const CURSOR_CLI_PATH_ENV = "CURSOR_AGENT_CLI_PATH";

/** Environment variable that, when non-empty, skips {@link checkCursorVersion}. */
export const CURSOR_SKIP_VERSION_CHECK_ENV = "CURSOR_AGENT_SDK_SKIP_VERSION_CHECK";

/** The names Cursor's installer gives the CLI, most specific first (`agent` is a generic name). */
export const CURSOR_CLI_NAMES = ["cursor-agent", "agent"] as const;

const INSTALL_HINT =
  "Install Cursor Agent with `curl https://cursor.com/install -fsS | bash` (it installs " +
  "`~/.local/bin/cursor-agent` and `~/.local/bin/agent`), or pass the executable as `cliPath` " +
  `(or set ${CURSOR_CLI_PATH_ENV}).`;

/** Where to look and with which environment. */
export interface FindCursorCliOptions {
  /** An explicit executable. When set it must work: no other place is searched. */
  cliPath?: string;
  /** The environment the CLI will run with, read for the path variable, `PATH` and `HOME`. */
  env?: Record<string, string | undefined>;
}

/**
 * Returns the path of the Cursor Agent executable. Synchronous: a few `stat`/`access` calls.
 *
 * Order: `cliPath`; `$CURSOR_AGENT_CLI_PATH`; `cursor-agent` on `PATH`, then in `~/.local/bin`;
 * then `agent` on `PATH`, then in `~/.local/bin`. Every `cursor-agent` candidate comes before any
 * `agent`, because `agent` is a name other tools use too. An explicit `cliPath` or
 * `$CURSOR_AGENT_CLI_PATH` that is not an executable file is an error, never a reason to keep
 * searching.
 *
 * @throws CliNotFoundError listing every place searched, with the install hint.
 */
export function findCursorCli(options: FindCursorCliOptions = {}): string {
  const env = options.env ?? process.env;
  const explicit = explicitExecutable({
    cli: "cursor-agent",
    cliPath: options.cliPath,
    env,
    envVar: CURSOR_CLI_PATH_ENV,
  });
  if (explicit !== undefined) return explicit;

  const dirs = pathDirs(env);
  const localBins = homeDirs(env).map((home) => join(home, ".local", "bin"));
  const search = new CliSearch();
  for (const name of CURSOR_CLI_NAMES) {
    for (const dir of [...dirs, ...localBins]) {
      const found = search.checkOnce(join(dir, name));
      if (found) return found;
    }
  }
  if (dirs.length === 0) search.searched.unshift(EMPTY_PATH_MARKER);
  throw new CliNotFoundError("cursor-agent", search.searched, INSTALL_HINT);
}

/** The outcome of {@link checkCursorVersion}. */
export interface CursorVersionCheck extends VersionCheck {
  /** What `--version` printed (e.g. `2025.11.25-d5b3271`), or `undefined` if skipped or failed. */
  version: string | undefined;
  /** Set when the version could not be determined. */
  warning?: string;
}

/**
 * Runs `<cliPath> --version` (killed after `timeoutMs`, default 10 s). Never rejects: a binary
 * that fails or hangs here is reported as `warning`, and the turn that follows reports the real
 * failure. Cursor versions are dated builds (`YYYY.MM.DD-<commit>`) with no documented minimum,
 * so no version is refused. Skipped when `CURSOR_AGENT_SDK_SKIP_VERSION_CHECK` is non-empty in `env`.
 */
export async function checkCursorVersion(
  cliPath: string,
  env: Record<string, string | undefined> = process.env,
  timeoutMs = 10_000,
): Promise<CursorVersionCheck> {
  if (env[CURSOR_SKIP_VERSION_CHECK_ENV]) return { version: undefined };
  const output = await runVersionCommand(cliPath, ["--version"], env, timeoutMs);
  const version = parseCursorVersion(output.stdout);
  if (version !== undefined) return { version };
  const why = output.error?.killed ? `no answer within ${timeoutMs} ms` : versionFailureReason(output);
  return {
    version: undefined,
    warning: `Could not determine the Cursor Agent version of ${cliPath} (${why}).`,
  };
}

/** Extracts the version from `--version` output: a dated build such as `2025.11.25-d5b3271`, or semver. */
export function parseCursorVersion(output: string): string | undefined {
  return /\b(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)\b/.exec(output)?.[1];
}
