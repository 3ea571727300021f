/**
 * `code-agent-sdk/install`: the opt-in CLI installer. {@link installCli} installs a backend's CLI
 * package into a per-user cache (0700, exclusive, verified), {@link findOrInstallCli} finds one
 * or installs it (the `autoInstall` option does the same for a query), and
 * {@link installedCliPath} / {@link listInstalledClis} read the cache for discovery.
 *
 * @example
 * ```ts
 * import { installCli } from "code-agent-sdk/install";
 * const { path } = await installCli({ backend: "codex" }); // the native binary, for `cliPath`
 * ```
 * @packageDocumentation
 */
export { type AutoInstallOptions, findOrInstallCli } from "./auto.js";
export {
  type CacheLocationOptions,
  CLI_CACHE_DIR_ENV,
  cliCacheRoot,
  cliInstallDir,
  INSTALL_MARKER,
  type InstalledCli,
  type InstalledCliOptions,
  type InstallMarker,
  installedCliPath,
  listInstalledClis,
} from "./cache.js";
export { CliInstallError, type CliInstallFailure } from "./errors.js";
export {
  type InstallCliOptions,
  type InstallCliResult,
  type InstallProgress,
  installCli,
} from "./installer.js";
export {
  CLI_PACKAGES,
  type CliPackage,
  INSTALLABLE_BACKENDS,
  type InstallableBackend,
  isInstallableBackend,
} from "./packages.js";
