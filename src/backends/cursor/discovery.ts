/**
 * Finding the Cursor Agent executable (`cursor-agent`, also installed as `agent`) and checking that
 * it runs.
 */
import { execFile } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { CliNotFoundError } from "../../errors.js";

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
  if (options.cliPath !== undefined) {
    if (isExecutableFile(options.cliPath)) return options.cliPath;
    throw new CliNotFoundError(
      "cursor-agent",
      [options.cliPath],
      `cliPath '${options.cliPath}' is not an executable file. Fix the path, or omit cliPath to search the usual places.`,
    );
  }
  const env = options.env ?? process.env;
  const fromEnv = env[CURSOR_CLI_PATH_ENV];
  if (fromEnv) {
    if (isExecutableFile(fromEnv)) return fromEnv;
    throw new CliNotFoundError(
      "cursor-agent",
      [`$${CURSOR_CLI_PATH_ENV}=${fromEnv}`],
      `${CURSOR_CLI_PATH_ENV} names '${fromEnv}', which is not an executable file. Fix or unset it.`,
    );
  }

  const pathDirs = (env.PATH ?? env.Path ?? "").split(delimiter).filter((d) => d.length > 0);
  const localBin = join(env.HOME || homedir(), ".local", "bin");
  const searched: string[] = [];
  for (const name of CURSOR_CLI_NAMES) {
    for (const dir of [...pathDirs, localBin]) {
      const candidate = join(dir, name);
      if (searched.includes(candidate)) continue;
      searched.push(candidate);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  if (pathDirs.length === 0) searched.unshift("$PATH (empty)");
  throw new CliNotFoundError("cursor-agent", searched, INSTALL_HINT);
}

/** The outcome of {@link checkCursorVersion}. */
export interface CursorVersionCheck {
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
export function checkCursorVersion(
  cliPath: string,
  env: Record<string, string | undefined> = process.env,
  timeoutMs = 10_000,
): Promise<CursorVersionCheck> {
  if (env[CURSOR_SKIP_VERSION_CHECK_ENV]) return Promise.resolve({ version: undefined });
  return new Promise((resolvePromise) => {
    execFile(
      cliPath,
      ["--version"],
      // SIGKILL: the timeout exists so we never hang here, and a wedged CLI may ignore SIGTERM.
      {
        env: definedOnly(env),
        timeout: timeoutMs,
        killSignal: "SIGKILL",
        windowsHide: true,
        encoding: "utf8",
      },
      (error, stdout) => {
        const version = parseCursorVersion(stdout ?? "");
        if (version !== undefined) {
          resolvePromise({ version });
          return;
        }
        const why = error?.killed
          ? `no answer within ${timeoutMs} ms`
          : error
            ? error.message.split("\n")[0]
            : `unexpected output ${JSON.stringify(stdout.slice(0, 100))}`;
        resolvePromise({
          version: undefined,
          warning: `Could not determine the Cursor Agent version of ${cliPath} (${why}).`,
        });
      },
    );
  });
}

/** Extracts the version from `--version` output: a dated build such as `2025.11.25-d5b3271`, or semver. */
export function parseCursorVersion(output: string): string | undefined {
  return /\b(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)\b/.exec(output)?.[1];
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, process.platform === "win32" ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}
