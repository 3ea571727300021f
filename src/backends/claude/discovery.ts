/**
 * Finding the Claude Code executable and checking its version.
 */

import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { CliNotFoundError } from "../../errors.js";
import { cliCacheRoot, installedCliPath } from "../../install/cache.js";
import {
  CliSearch,
  defaultResolveRoots,
  executableName,
  explicitExecutable,
  homeDirs,
  isExecutableFile,
  packageResolvers,
  resolvePackageDirs,
  runVersionCommand,
  type VersionCheck,
  versionFailureReason,
} from "../../install/cli-discovery.js";
import { OLDEST_VERIFIED_CLAUDE } from "../verified-versions.js";

/**
 * The oldest Claude Code version this SDK was verified with (`npm run test:versions`). Older
 * versions only warn.
 */
export const MIN_CLAUDE_VERSION = OLDEST_VERIFIED_CLAUDE;

/** Environment variable naming the CLI executable; checked right after `cliPath`. */
export const CLAUDE_CLI_PATH_ENV = "CLAUDE_CLI_PATH";

/** Environment variable that, when non-empty, skips {@link checkClaudeVersion}. */
export const SKIP_VERSION_CHECK_ENV = "CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK";

const INSTALL_HINT =
  "Install Claude Code with `npm install -g @anthropic-ai/claude-code`, or add " +
  "`@anthropic-ai/claude-code` as a dependency of your project, or pass the executable as `cliPath` " +
  `(or set ${CLAUDE_CLI_PATH_ENV}).` +
  " Or install it into the per-user cache with `npx code-agent install claude`, or set `autoInstallCli: true`.";

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
 * directory); the official Agent SDK's platform package
 * `@anthropic-ai/claude-agent-sdk-<platform>-<arch>/claude` (also resolved from where
 * `@anthropic-ai/claude-agent-sdk` is installed); the `@anthropic-ai/claude-code` wrapper's
 * `bin/claude.exe` if it is a real binary;
 * `claude` on `PATH`; common install locations. An explicit `cliPath` or `$CLAUDE_CLI_PATH` that is
 * not an executable file is an error rather than a reason to keep searching, so a typo never
 * silently runs some other `claude`.
 *
 * @throws CliNotFoundError listing every place searched, with install hints.
 */
export function findClaudeCli(options: FindClaudeCliOptions = {}): string {
  const env = options.env ?? process.env;
  const explicit = explicitExecutable({
    cli: "claude",
    cliPath: options.cliPath,
    env,
    envVar: CLAUDE_CLI_PATH_ENV,
  });
  if (explicit !== undefined) return explicit;

  const search = new CliSearch();
  for (const pkgDir of npmPackageDirs()) {
    const found = search.check(
      join(pkgDir.dir, pkgDir.binary),
      pkgDir.wrapper ? isRealBinary : isExecutableFile,
    );
    if (found) return found;
  }

  const found = search.onPathThenCommon(env, executableName("claude"), [
    ...homeDirs(env).flatMap((home) => [
      join(home, ".npm-global", "bin", "claude"),
      join(home, ".local", "bin", "claude"),
      join(home, "node_modules", ".bin", "claude"),
      join(home, ".yarn", "bin", "claude"),
      join(home, ".claude", "local", "claude"),
    ]),
    "/usr/local/bin/claude",
    "/opt/homebrew/bin/claude",
  ]);
  if (found) return found;
  // Last resort: a CLI the user installed with `code-agent install claude` / installCli().
  const cached = search.check(installedCliPath("claude") ?? `${cliCacheRoot()} (code-agent install claude)`);
  if (cached) return cached;
  throw new CliNotFoundError("claude", search.searched, INSTALL_HINT);
}

/** The outcome of {@link checkClaudeVersion}. */
export interface ClaudeVersionCheck extends VersionCheck {
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
export async function checkClaudeVersion(
  cliPath: string,
  env: Record<string, string | undefined> = process.env,
  timeoutMs = 10_000,
): Promise<ClaudeVersionCheck> {
  if (env[SKIP_VERSION_CHECK_ENV]) return { version: undefined };
  const output = await runVersionCommand(cliPath, ["-v"], env, timeoutMs);
  const version = parseClaudeVersion(output.stdout);
  if (version === undefined) {
    return {
      version: undefined,
      warning: `Could not determine the Claude Code version of ${cliPath} (${versionFailureReason(output)}).`,
    };
  }
  return claudeVersionCheck(version, cliPath);
}

/**
 * Compares a known Claude Code `version` with {@link MIN_CLAUDE_VERSION}: the warning is set when
 * it is older. For a version learned without running `-v`, e.g. from a session's `system/init`.
 */
export function claudeVersionCheck(version: string, cliPath: string): ClaudeVersionCheck {
  if (compareVersions(version, MIN_CLAUDE_VERSION) < 0) {
    return {
      version,
      warning:
        `Claude Code ${version} at ${cliPath} is older than ${MIN_CLAUDE_VERSION}, the oldest version ` +
        "this SDK was verified with; some features may not work. Update with `npm install -g @anthropic-ai/claude-code`.",
    };
  }
  return { version };
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

/** The official Agent SDK's package, whose optional dependencies carry a native CLI. */
const AGENT_SDK_PACKAGE = "@anthropic-ai/claude-agent-sdk";

/** True on a Linux without glibc (musl), as the official SDK tells it: no glibc in the process report. */
function preferMusl(): boolean {
  if (process.platform !== "linux") return false;
  try {
    const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
    return report !== undefined && report.header?.glibcVersionRuntime === undefined;
  } catch {
    return false;
  }
}

/**
 * The platform package names of `prefix` for this machine, in the official SDK's order: on Linux
 * the musl variant first where there is no glibc, else second; `-android` on Android.
 */
export function platformPackageNames(
  prefix: string,
  platform: string = process.platform,
  arch: string = process.arch,
  musl: boolean = preferMusl(),
): string[] {
  if (platform === "android") return [`${prefix}-linux-${arch}-android`];
  if (platform !== "linux") return [`${prefix}-${platform}-${arch}`];
  const glibc = `${prefix}-linux-${arch}`;
  return musl ? [`${glibc}-musl`, glibc] : [glibc, `${glibc}-musl`];
}

/**
 * Resolvers for the official Agent SDK's platform package: from this module and the current
 * directory, and from the official SDK's own install (where pnpm keeps its optional dependencies).
 */
function agentSdkResolvers(requires: NodeJS.Require[]): NodeJS.Require[] {
  const fromSdk: NodeJS.Require[] = [];
  for (const req of requires) {
    try {
      fromSdk.push(createRequire(req.resolve(AGENT_SDK_PACKAGE)));
    } catch {
      // Not installed where this resolver looks.
    }
  }
  return [...requires, ...fromSdk];
}

function npmPackageDirs(): PackageCandidate[] {
  const binary = executableName("claude");
  const requires = packageResolvers(defaultResolveRoots(import.meta.url));
  const native = (pkgs: string[], from: NodeJS.Require[]) =>
    pkgs.flatMap((pkg) => resolvePackageDirs(from, pkg).map((dir) => ({ dir, binary, wrapper: false })));
  return [
    ...native(platformPackageNames("@anthropic-ai/claude-code"), requires),
    // The binary a user of the official Agent SDK has (its optional dependency).
    ...native(platformPackageNames(AGENT_SDK_PACKAGE), agentSdkResolvers(requires)),
    ...resolvePackageDirs(requires, "@anthropic-ai/claude-code").map((dir) => ({
      dir,
      binary: join("bin", "claude.exe"),
      wrapper: true,
    })),
  ];
}

function isRealBinary(path: string): boolean {
  try {
    return isExecutableFile(path) && statSync(path).size > MIN_REAL_BINARY_BYTES;
  } catch {
    return false;
  }
}
