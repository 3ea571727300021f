/**
 * Finding the Claude Code executable and checking its version.
 */
import { execFile } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { CliNotFoundError } from "../../errors.js";

/** The oldest Claude Code version this SDK is known to work with. Older versions only warn. */
export const MIN_CLAUDE_VERSION = "2.0.0";

/** Environment variable naming the CLI executable; checked right after `cliPath`. */
export const CLAUDE_CLI_PATH_ENV = "CLAUDE_CLI_PATH";

/** Environment variable that, when non-empty, skips {@link checkClaudeVersion}. */
export const SKIP_VERSION_CHECK_ENV = "CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK";

const INSTALL_HINT =
  "Install Claude Code with `npm install -g @anthropic-ai/claude-code`, or add " +
  "`@anthropic-ai/claude-code` as a dependency of your project, or pass the executable as `cliPath` " +
  `(or set ${CLAUDE_CLI_PATH_ENV}).`;

// A real binary is hundreds of MB; npm 11 skips the wrapper's postinstall, leaving a small stub.
const MIN_REAL_BINARY_BYTES = 1024 * 1024;

/** Where to look and with which environment. */
export interface FindClaudeCliOptions {
  /** An explicit executable. When set it must work: no other place is searched. */
  cliPath?: string;
  /**
   * The environment the CLI will run with (e.g. from `buildClaudeEnv`), used as-is for
   * `CLAUDE_CLI_PATH`, `PATH` and `HOME`. Default: `process.env`.
   */
  env?: Record<string, string | undefined>;
}

/**
 * Returns the path of the Claude Code executable. Synchronous: a few `stat`/`access` calls.
 *
 * Order: `cliPath`; `$CLAUDE_CLI_PATH`; the npm platform package
 * `@anthropic-ai/claude-code-<platform>-<arch>` (resolved from this module, then from the current
 * directory); the `@anthropic-ai/claude-code` wrapper's `bin/claude.exe` if it is a real binary;
 * `claude` on `PATH`; common install locations. An explicit `cliPath` or `$CLAUDE_CLI_PATH` that is
 * not an executable file is an error rather than a reason to keep searching, so a typo never
 * silently runs some other `claude`.
 *
 * @throws CliNotFoundError listing every place searched, with install hints.
 */
export function findClaudeCli(options: FindClaudeCliOptions = {}): string {
  if (options.cliPath !== undefined) {
    if (isExecutableFile(options.cliPath)) return options.cliPath;
    throw new CliNotFoundError(
      "claude",
      [options.cliPath],
      `cliPath '${options.cliPath}' is not an executable file. Fix the path, or omit cliPath to search the usual places.`,
    );
  }

  const env = options.env ?? process.env;
  const fromEnv = env[CLAUDE_CLI_PATH_ENV];
  if (fromEnv) {
    if (isExecutableFile(fromEnv)) return fromEnv;
    throw new CliNotFoundError(
      "claude",
      [`$${CLAUDE_CLI_PATH_ENV}=${fromEnv}`],
      `${CLAUDE_CLI_PATH_ENV} names '${fromEnv}', which is not an executable file. Fix or unset it.`,
    );
  }

  const searched: string[] = [];
  const tryPath = (path: string, accept: (p: string) => boolean = isExecutableFile): string | undefined => {
    searched.push(path);
    return accept(path) ? path : undefined;
  };

  for (const pkgDir of npmPackageDirs()) {
    const found = tryPath(join(pkgDir.dir, pkgDir.binary), pkgDir.wrapper ? isRealBinary : isExecutableFile);
    if (found) return found;
  }

  const exe = process.platform === "win32" ? "claude.exe" : "claude";
  const pathDirs = (env.PATH ?? env.Path ?? "").split(delimiter).filter((d) => d.length > 0);
  for (const dir of pathDirs) {
    const found = tryPath(join(dir, exe));
    if (found) return found;
  }
  if (pathDirs.length === 0) searched.push("$PATH (empty)");

  const home = env.HOME || homedir();
  const common = [
    join(home, ".npm-global", "bin", "claude"),
    "/usr/local/bin/claude",
    join(home, ".local", "bin", "claude"),
    join(home, "node_modules", ".bin", "claude"),
    join(home, ".yarn", "bin", "claude"),
    join(home, ".claude", "local", "claude"),
    "/opt/homebrew/bin/claude",
  ];
  for (const path of common) {
    if (searched.includes(path)) continue;
    const found = tryPath(path);
    if (found) return found;
  }
  throw new CliNotFoundError("claude", searched, INSTALL_HINT);
}

/** The outcome of {@link checkClaudeVersion}. */
export interface ClaudeVersionCheck {
  /** `major.minor.patch`, or `undefined` when the check was skipped or failed. */
  version: string | undefined;
  /** Set when the version is older than {@link MIN_CLAUDE_VERSION} or could not be determined. */
  warning?: string;
}

/**
 * Runs `<cliPath> -v` (10 s timeout) and compares the version with {@link MIN_CLAUDE_VERSION}.
 * Never rejects: an old or unknown version is reported as `warning`, because the CLI may still
 * work and a hard failure here would block users who know better. Skipped (resolves
 * `{ version: undefined }`) when `CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK` is non-empty in `env`.
 *
 * @param env The child's environment (as from `buildClaudeEnv`); also where the skip switch is read.
 */
export function checkClaudeVersion(
  cliPath: string,
  env: Record<string, string | undefined> = process.env,
  timeoutMs = 10_000,
): Promise<ClaudeVersionCheck> {
  if (env[SKIP_VERSION_CHECK_ENV]) return Promise.resolve({ version: undefined });
  return new Promise((resolvePromise) => {
    execFile(
      cliPath,
      ["-v"],
      // SIGKILL: a wedged CLI may ignore SIGTERM, and the timeout exists so we never hang here.
      {
        env: definedOnly(env),
        timeout: timeoutMs,
        killSignal: "SIGKILL",
        windowsHide: true,
        encoding: "utf8",
      },
      (error, stdout) => {
        const version = parseClaudeVersion(stdout ?? "");
        if (version === undefined) {
          const why = error
            ? error.message.split("\n")[0]
            : `unexpected output ${JSON.stringify(stdout.slice(0, 100))}`;
          resolvePromise({
            version: undefined,
            warning: `Could not determine the Claude Code version of ${cliPath} (${why}).`,
          });
          return;
        }
        if (compareVersions(version, MIN_CLAUDE_VERSION) < 0) {
          resolvePromise({
            version,
            warning:
              `Claude Code ${version} at ${cliPath} is older than ${MIN_CLAUDE_VERSION}, the oldest version ` +
              "this SDK supports; some features may not work. Update with `npm install -g @anthropic-ai/claude-code`.",
          });
          return;
        }
        resolvePromise({ version });
      },
    );
  });
}

/** Extracts `major.minor.patch` from `claude -v` output such as `2.1.330 (Claude Code)`. */
export function parseClaudeVersion(output: string): string | undefined {
  return /\b(\d+\.\d+\.\d+)\b/.exec(output)?.[1];
}

/** Compares two `major.minor.patch` strings numerically: negative, zero or positive. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

interface PackageCandidate {
  dir: string;
  binary: string;
  /** The wrapper package may hold a placeholder instead of the binary. */
  wrapper: boolean;
}

function npmPackageDirs(): PackageCandidate[] {
  const binary = process.platform === "win32" ? "claude.exe" : "claude";
  const base = `@anthropic-ai/claude-code-${process.platform}-${process.arch}`;
  // Only the variant matching the machine's libc gets installed, so trying both is safe.
  const platformPackages = process.platform === "linux" ? [base, `${base}-musl`] : [base];
  const requires = [createRequire(import.meta.url), createRequire(join(process.cwd(), "package.json"))];

  const out: PackageCandidate[] = [];
  const seen = new Set<string>();
  const add = (pkg: string, bin: string, wrapper: boolean) => {
    for (const req of requires) {
      let dir: string;
      try {
        dir = dirname(req.resolve(`${pkg}/package.json`));
      } catch {
        continue;
      }
      if (seen.has(dir)) continue;
      seen.add(dir);
      out.push({ dir, binary: bin, wrapper });
    }
  };
  for (const pkg of platformPackages) add(pkg, binary, false);
  add("@anthropic-ai/claude-code", join("bin", "claude.exe"), true);
  return out;
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

function isRealBinary(path: string): boolean {
  try {
    return isExecutableFile(path) && statSync(path).size > MIN_REAL_BINARY_BYTES;
  } catch {
    return false;
  }
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}
