/**
 * The opt-in CLI installer: `installCli()`, the per-user cache it fills, and `installedCliPath()`
 * for discovery.
 * @module
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
