/**
 * Finding the Codex CLI: the native binary of the npm platform package, the `@openai/codex`
 * launcher, `PATH`, common install locations.
 */

import { readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { CliNotFoundError } from "../../errors.js";
import { cliCacheRoot, compareVersions, installedCliPath } from "../../install/cache.js";
import {
  CliSearch,
  defaultResolveRoots,
  executableName,
  homeDirs,
  isExecutableFile,
  isFile,
  packageResolvers,
  resolvePackageDirs,
  runVersionCommand,
  type VersionCheck,
  versionFailureReason,
} from "../../install/cli-discovery.js";
import { codexPlatformPackage } from "../../install/codex-platform.js";
import { OLDEST_VERIFIED_CODEX, SKIP_VERSION_CHECK_ENV } from "../verified-versions.js";

/** Environment variable naming the CLI executable; checked right after `cliPath`. */
export const CODEX_CLI_PATH_ENV = "CODEX_CLI_PATH";

const INSTALL_HINT =
  "Install Codex with `npm install -g @openai/codex`, or add `@openai/codex` as a dependency of your " +
  `project, or pass the executable as \`cliPath\` (or set ${CODEX_CLI_PATH_ENV}).` +
  " Or install it into the per-user cache with `npx code-agent install codex`, or set `autoInstallCli: true`.";

/** How to start the CLI: `command` followed by `args`, then the Codex arguments. */
export interface CodexCli {
  command: string;
  /** Leading arguments: the launcher script when `command` is Node, else empty. */
  args: string[];
}

/** Where to look. */
export interface FindCodexCliOptions {
  /** An explicit executable, or a `.js` launcher run with Node. When set, nothing else is searched. */
  cliPath?: string | undefined;
  /** The environment the CLI will run with, for `CODEX_CLI_PATH`, `PATH` and `HOME`. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Module resolution roots, for tests. Default: this module, then the current directory. */
  resolveFrom?: string[];
}

/**
 * Returns how to run the Codex CLI. Synchronous: a few `stat` calls and module resolutions.
 *
 * Order: `cliPath`; `$CODEX_CLI_PATH`; the native binary of the platform package
 * (`@openai/codex-<platform>-<arch>/vendor/<triple>/bin/codex`, resolved from this module, the
 * current directory and the `@openai/codex` package), which starts twice as fast as the launcher;
 * the `@openai/codex/bin/codex.js` launcher, run with this Node; `codex` on `PATH`; common install
 * locations. A `cliPath` ending in `.js`/`.mjs` is run with this Node. An explicit `cliPath` or
 * `$CODEX_CLI_PATH` that does not exist is an error, so a typo never silently runs another `codex`.
 *
 * @throws CliNotFoundError listing every place searched, with install hints.
 */
export function findCodexCli(options: FindCodexCliOptions = {}): CodexCli {
  if (options.cliPath !== undefined) return explicit(options.cliPath, "cliPath");
  const env = options.env ?? process.env;
  const fromEnv = env[CODEX_CLI_PATH_ENV];
  if (fromEnv) return explicit(fromEnv, `$${CODEX_CLI_PATH_ENV}`);

  const search = new CliSearch();
  const requires = packageResolvers(options.resolveFrom ?? defaultResolveRoots(import.meta.url));
  const launcherPackages = resolvePackageDirs(requires, "@openai/codex");

  const platform = codexPlatformPackage();
  if (platform) {
    // The platform package may also sit inside the launcher package's own node_modules.
    const nested = packageResolvers(launcherPackages.map((dir) => join(dir, "package.json")));
    for (const dir of resolvePackageDirs([...requires, ...nested], platform.pkg)) {
      const found = search.check(join(dir, "vendor", platform.triple, "bin", platform.binary));
      if (found) return { command: found, args: [] };
    }
  }
  for (const dir of launcherPackages) {
    const found = search.check(join(dir, "bin", "codex.js"), isFile);
    if (found) return { command: process.execPath, args: [found] };
  }

  const exe = executableName("codex");
  const found = search.onPathThenCommon(env, exe, [
    ...homeDirs(env).flatMap((home) => [
      join(home, ".npm-global", "bin", exe),
      join(home, ".local", "bin", exe),
      join(home, ".cargo", "bin", exe),
      join(home, "node_modules", ".bin", exe),
      join(home, ".yarn", "bin", exe),
    ]),
    "/usr/local/bin/codex",
    "/opt/homebrew/bin/codex",
  ]);
  if (found) return { command: found, args: [] };
  // Last resort: a CLI the user installed with `code-agent install codex` / installCli().
  const cached = search.check(installedCliPath("codex") ?? `${cliCacheRoot()} (code-agent install codex)`);
  if (cached) return { command: cached, args: [] };
  throw new CliNotFoundError("codex", search.searched, INSTALL_HINT);
}

function explicit(path: string, what: string): CodexCli {
  if (/\.(c|m)?js$/.test(path) && isFile(path)) return { command: process.execPath, args: [path] };
  if (isExecutableFile(path)) return { command: path, args: [] };
  throw new CliNotFoundError(
    "codex",
    [path],
    `${what} '${path}' is not an executable file (or a .js launcher). Fix it, or unset it to search the usual places.`,
  );
}

export { codexPlatformPackage };

/** The outcome of {@link checkCodexVersion}. */
export interface CodexVersionCheck extends VersionCheck {
  /** `major.minor.patch`, or `undefined` when the check was skipped or failed. */
  version: string | undefined;
  /** Set when the version is older than {@link OLDEST_VERIFIED_CODEX} or could not be determined. */
  warning?: string;
}

/**
 * Runs `codex --version` (prints `codex-cli 0.169.0`) and compares the version with
 * {@link OLDEST_VERIFIED_CODEX}. Never rejects: an old or unknown version is a `warning`, since the
 * CLI may still work. Skipped when `CODE_AGENT_SDK_SKIP_VERSION_CHECK` is non-empty in `env`.
 */
export async function checkCodexVersion(
  cli: CodexCli,
  env: Record<string, string | undefined> = process.env,
  timeoutMs = 10_000,
): Promise<CodexVersionCheck> {
  if (env[SKIP_VERSION_CHECK_ENV]) return { version: undefined };
  const output = await runVersionCommand(cli.command, [...cli.args, "--version"], env, timeoutMs);
  const version = /\b(\d+\.\d+\.\d+)\b/.exec(output.stdout)?.[1];
  const where = [cli.command, ...cli.args].join(" ");
  if (version === undefined) {
    return {
      version: undefined,
      warning: `Could not determine the Codex version of ${where} (${versionFailureReason(output)}).`,
    };
  }
  return codexVersionCheck(version, where);
}

/** Compares a known Codex `version` with {@link OLDEST_VERIFIED_CODEX}: the warning is set when older. */
export function codexVersionCheck(version: string, where: string): CodexVersionCheck {
  if (compareVersions(version, OLDEST_VERIFIED_CODEX) < 0) {
    return {
      version,
      warning:
        `Codex ${version} at ${where} is older than ${OLDEST_VERIFIED_CODEX}, the oldest version this SDK ` +
        "was verified with; some features may not work. Update with `npm install -g @openai/codex`.",
    };
  }
  return { version };
}

/**
 * The version of an npm-installed Codex, read from the `@openai/codex*` package.json above the
 * binary or launcher (following links), without running it; `undefined` for other installs.
 */
export function codexVersionFromPackage(cli: CodexCli): string | undefined {
  let dir: string;
  try {
    dir = dirname(realpathSync(cli.args[0] ?? cli.command));
  } catch {
    return undefined;
  }
  for (let depth = 0; depth < 8; depth++) {
    const manifest = readManifest(join(dir, "package.json"));
    if (manifest && typeof manifest.name === "string" && manifest.name.startsWith("@openai/codex")) {
      return typeof manifest.version === "string"
        ? /^(\d+\.\d+\.\d+)/.exec(manifest.version)?.[1]
        : undefined;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

function readManifest(path: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
