/**
 * `code-agent install claude|codex [VERSION]`: the installer with progress on the terminal.
 */
import { CliInstallError } from "../install/errors.js";
import { type InstallProgress, installCli } from "../install/installer.js";
import { CLI_PACKAGES } from "../install/packages.js";
import type { InstallArgs } from "./args.js";
import { ExitCode } from "./exit-codes.js";
import { colorEnabled, createStyle, type OutputStream, Screen } from "./screen.js";

export async function runInstall(
  args: InstallArgs,
  io: { stdout: OutputStream; stderr: OutputStream; env: Record<string, string | undefined> },
): Promise<number> {
  const pkg = CLI_PACKAGES[args.backend];
  // Progress goes to stderr; stdout gets only the path (or JSON events with --json).
  const screen = new Screen(
    io.stderr,
    createStyle(colorEnabled(io.stderr, io.env)),
    io.stderr.isTTY === true,
  );
  const { style } = screen;
  let progress: { handle: ReturnType<Screen["markedLine"]> | undefined; bytes: number } | undefined;
  const downloadLine = (bytes: number, total: number | undefined) =>
    style.dim(
      `Downloading and unpacking ${pkg.npmPackage}: ${formatBytes(bytes)}${total !== undefined ? ` of ${formatBytes(total)}` : ""}`,
    );
  const endProgress = () => {
    // Off a terminal the progress line was printed once: say how much it came to.
    if (progress && !screen.live && progress.bytes > 0) screen.line(downloadLine(progress.bytes, undefined));
    progress = undefined;
  };
  const onProgress = (event: InstallProgress) => {
    if (args.json) {
      const { error: _error, ...plain } = event as InstallProgress & { error?: unknown };
      io.stdout.write(`${JSON.stringify(plain)}\n`);
      return;
    }
    if (event.type !== "downloading") endProgress();
    switch (event.type) {
      case "checking":
      case "installing":
        screen.line(style.dim(event.message));
        return;
      case "downloading": {
        const text = downloadLine(event.current, event.total);
        if (!progress) {
          progress = { handle: screen.markedLine(text), bytes: event.current };
        } else {
          progress.bytes = event.current;
          if (screen.live && progress.handle) screen.rewriteOr(progress.handle, text, text);
        }
        return;
      }
      case "done":
        screen.line(
          `${style.green("✓")} ${pkg.displayName} ${event.version} ${event.alreadyInstalled ? "is already installed" : "installed"}: ${event.path}`,
        );
        return;
      case "failed":
        screen.line(`${style.red("✗")} ${event.reason}`);
        return;
    }
  };
  try {
    const result = await installCli({
      backend: args.backend,
      onProgress,
      force: args.force,
      env: io.env,
      ...(args.version !== undefined ? { version: args.version } : {}),
      ...(args.cacheDir !== undefined ? { cacheDir: args.cacheDir } : {}),
    });
    if (!args.json) io.stdout.write(`${result.path}\n`);
    return ExitCode.Success;
  } catch (error) {
    if (error instanceof CliInstallError) {
      if (!args.json && error.stderrTail) io.stderr.write(`${error.stderrTail.trim()}\n`);
      return error.failure === "invalid-request" ? ExitCode.Usage : ExitCode.Failed;
    }
    throw error;
  }
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
