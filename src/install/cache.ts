/**
 * The per-user CLI cache: `<cache>/code-agent-sdk/clis/<backend>/<version>/`, each a finished
 * `npm install --prefix` tree with a marker file. Only finished installs carry the marker (they are
 * built in a staging directory and renamed into place), so a half-done install is never picked up.
 */

import { readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { isExecutableFile } from "./cli-discovery.js";
import type { InstallableBackend } from "./packages.js";

/** Overrides the cache root (the directory holding `<backend>/<version>/`). */
export const CLI_CACHE_DIR_ENV = "CODE_AGENT_SDK_CLI_CACHE";

/** The marker file written into every finished install. */
export const INSTALL_MARKER = "code-agent-install.json";

/** What the marker file records. */
export interface InstallMarker {
  backend: InstallableBackend;
  /** The exact version installed. */
  version: string;
  npmPackage: string;
  /** The native binary, relative to the install directory. */
  binary: string;
  /** ISO timestamp. */
  installedAt: string;
}

/** Where to look for the cache. */
export interface CacheLocationOptions {
  /** The cache root, used as-is (holds `<backend>/<version>/`). */
  cacheDir?: string | undefined;
  /** The environment to read `CODE_AGENT_SDK_CLI_CACHE`, `XDG_CACHE_HOME`, `LOCALAPPDATA` and `HOME` from. Default `process.env`. */
  env?: Record<string, string | undefined>;
}

/**
 * The cache root: `cacheDir`; else `$CODE_AGENT_SDK_CLI_CACHE`; else
 * `$XDG_CACHE_HOME/code-agent-sdk/clis` (when absolute); else `%LOCALAPPDATA%\code-agent-sdk\clis` on
 * Windows; else `~/.cache/code-agent-sdk/clis`.
 */
export function cliCacheRoot(options: CacheLocationOptions = {}): string {
  if (options.cacheDir) return options.cacheDir;
  const env = options.env ?? process.env;
  const explicit = env[CLI_CACHE_DIR_ENV];
  if (explicit) return explicit;
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, "code-agent-sdk", "clis");
  if (process.platform === "win32" && env.LOCALAPPDATA)
    return join(env.LOCALAPPDATA, "code-agent-sdk", "clis");
  return join(env.HOME || homedir(), ".cache", "code-agent-sdk", "clis");
}

/** The directory one version of one CLI is installed into. */
export function cliInstallDir(
  backend: InstallableBackend,
  version: string,
  options: CacheLocationOptions = {},
): string {
  return join(cliCacheRoot(options), backend, version);
}

/** One finished install in the cache. */
export interface InstalledCli {
  backend: InstallableBackend;
  version: string;
  /** The install directory. */
  dir: string;
  /** Absolute path of the native binary. */
  path: string;
}

/** Options of {@link installedCliPath} and {@link listInstalledClis}. */
export interface InstalledCliOptions extends CacheLocationOptions {
  /** Only this exact version. Default: the highest version installed. */
  version?: string | undefined;
}

/**
 * Every finished install of `backend` in the cache whose binary is still an executable file,
 * highest version first. Synchronous: a directory listing and a few `stat` calls.
 */
export function listInstalledClis(
  backend: InstallableBackend,
  options: CacheLocationOptions = {},
): InstalledCli[] {
  const root = join(cliCacheRoot(options), backend);
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  const found: InstalledCli[] = [];
  for (const name of names) {
    if (name.startsWith(".")) continue; // staging directories
    const installed = readInstall(backend, join(root, name));
    if (installed) found.push(installed);
  }
  return found.sort((a, b) => compareVersions(b.version, a.version));
}

/**
 * The CLI binary `installCli` put in the per-user cache, or `undefined` when there is none. CLI
 * discovery calls this as its last resort, so an installed CLI is found without configuration.
 *
 * @example
 * installedCliPath("claude") // "/home/me/.cache/code-agent-sdk/clis/claude/2.1.330/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
 */
export function installedCliPath(
  backend: InstallableBackend,
  options: InstalledCliOptions = {},
): string | undefined {
  if (options.version !== undefined) {
    return readInstall(backend, cliInstallDir(backend, options.version, options))?.path;
  }
  return listInstalledClis(backend, options)[0]?.path;
}

/** Reads and checks the marker of one install directory. */
export function readInstall(backend: InstallableBackend, dir: string): InstalledCli | undefined {
  let marker: Partial<InstallMarker>;
  try {
    marker = JSON.parse(readFileSync(join(dir, INSTALL_MARKER), "utf8")) as Partial<InstallMarker>;
  } catch {
    return undefined;
  }
  if (marker.backend !== backend || typeof marker.version !== "string" || typeof marker.binary !== "string") {
    return undefined;
  }
  const path = join(dir, marker.binary);
  if (!isExecutableFile(path)) return undefined;
  return { backend, version: marker.version, dir, path };
}

/** Orders `1.2.10` after `1.2.9`; a prerelease (`1.2.0-beta`) before its release. */
export function compareVersions(a: string, b: string): number {
  const [coreA = "", preA] = a.split("-", 2);
  const [coreB = "", preB] = b.split("-", 2);
  const pa = coreA.split(".").map((n) => Number.parseInt(n, 10) || 0);
  const pb = coreB.split(".").map((n) => Number.parseInt(n, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  if (preA === preB) return 0;
  if (preA === undefined) return 1;
  if (preB === undefined) return -1;
  return preA < preB ? -1 : 1;
}
