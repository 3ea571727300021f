/**
 * The opt-in bridge between CLI discovery and the installer: when discovery finds nothing and the
 * caller set `autoInstallCli`, install the CLI into the per-user cache and use it. The installer is
 * imported only then (a chunk of its own in the bundle).
 */
import { CliNotFoundError } from "../errors.js";
import type { InstallProgress } from "./installer.js";
import { type InstallableBackend, isInstallableBackend } from "./packages.js";

/** The options that control automatic installs (a subset of what `AgentOptions` will carry). */
export interface AutoInstallOptions {
  /**
   * Install the CLI into the per-user cache when discovery finds none: `true` for the latest
   * version, or `{ version, cacheDir }`. Off by default; never installs globally.
   */
  autoInstallCli?: boolean | { version?: string; cacheDir?: string };
  /** Progress of an automatic install. Without it, the install is announced with `process.emitWarning`. */
  onCliInstallProgress?: (event: InstallProgress) => void;
  /** An explicit `cliPath` disables automatic installs: a wrong path must stay an error. */
  cliPath?: string;
  /** Cancels an install in progress. */
  signal?: AbortSignal;
}

/**
 * Runs `find`; if it throws `CliNotFoundError` and `options.autoInstallCli` is set (and no explicit
 * `cliPath` was given), installs the CLI with {@link installCli} and returns `fromPath(installedPath)`.
 * Any other error, or an install failure, is thrown (the install error carries the discovery error
 * as its `cause`).
 *
 * @example
 * // in a backend's spawn path:
 * const cliPath = await findOrInstallCli("claude", options, () => findClaudeCli({ cliPath: options.cliPath, env }));
 * const codex = await findOrInstallCli("codex", options, () => findCodexCli({ cliPath: options.cliPath, env }),
 *   (path) => ({ command: path, args: [] }));
 */
export async function findOrInstallCli<T = string>(
  backend: InstallableBackend | string,
  options: AutoInstallOptions,
  find: () => T,
  fromPath: (path: string) => T = (path) => path as T,
): Promise<T> {
  try {
    return find();
  } catch (error) {
    if (
      !(error instanceof CliNotFoundError) ||
      !options.autoInstallCli ||
      options.cliPath !== undefined ||
      !isInstallableBackend(backend)
    ) {
      throw error;
    }
    const settings = typeof options.autoInstallCli === "object" ? options.autoInstallCli : {};
    const onProgress =
      options.onCliInstallProgress ??
      ((event: InstallProgress) => {
        if (event.type === "checking" && event.message.startsWith("Looking")) {
          process.emitWarning(`${backend} CLI not found; autoInstallCli is set: ${event.message}`, {
            code: "CODE_AGENT_SDK_CLI_INSTALL",
          });
        }
        if (event.type === "done" && !event.alreadyInstalled) {
          process.emitWarning(`Installed the ${backend} CLI ${event.version} at ${event.path}`, {
            code: "CODE_AGENT_SDK_CLI_INSTALL",
          });
        }
      });
    try {
      // Loaded here, not with discovery: a query that finds its CLI never runs the installer.
      const { installCli } = await import("./installer.js");
      const installed = await installCli({
        backend,
        onProgress,
        ...(settings.version !== undefined ? { version: settings.version } : {}),
        ...(settings.cacheDir !== undefined ? { cacheDir: settings.cacheDir } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return fromPath(installed.path);
    } catch (installError) {
      if (installError instanceof Error && installError.cause === undefined) {
        Object.defineProperty(installError, "cause", { value: error, configurable: true, writable: true });
      }
      throw installError;
    }
  }
}
