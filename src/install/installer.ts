/**
 * `installCli()`: installs a vendor CLI from npm into the per-user cache — strictly on request,
 * never globally. It runs `npm install --prefix <staging> --no-save <pkg>@<version>` (argv, no
 * shell), so npm picks the platform package, honours the user's registry and proxy settings and
 * reuses its cache; then it checks that the binary answers `--version` and renames the staging
 * directory into place.
 */

import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  cliCacheRoot,
  cliInstallDir,
  compareVersions,
  INSTALL_MARKER,
  type InstalledCli,
  type InstallMarker,
  readInstall,
} from "./cache.js";
import { isExecutableFile } from "./cli-discovery.js";
import { CliInstallError } from "./errors.js";
import { CLI_PACKAGES, type InstallableBackend, isInstallableBackend } from "./packages.js";

/** What {@link installCli} reports while it works, in this order (`downloading` may repeat). */
export type InstallProgress =
  /** Resolving the version, looking for an existing install. */
  | { type: "checking"; backend: InstallableBackend; message: string }
  /**
   * npm is fetching and unpacking. `current` counts the bytes unpacked into the install directory
   * so far; `total` is the expected size when the registry reports one, else `undefined`.
   */
  | { type: "downloading"; backend: InstallableBackend; current: number; total: number | undefined }
  /** Verifying the binary and moving the install into place. */
  | { type: "installing"; backend: InstallableBackend; message: string }
  /** Finished: `path` is the binary. `alreadyInstalled` when nothing had to be fetched. */
  | {
      type: "done";
      backend: InstallableBackend;
      path: string;
      version: string;
      dir: string;
      alreadyInstalled: boolean;
    }
  /** Failed: `reason` is a one-line explanation; the same `error` is thrown. */
  | { type: "failed"; backend: InstallableBackend; reason: string; error: CliInstallError };

/** Options of {@link installCli}. */
export interface InstallCliOptions {
  /** Which CLI: `claude` (`@anthropic-ai/claude-code`) or `codex` (`@openai/codex`). */
  backend: InstallableBackend;
  /** An exact version, a semver range or a dist-tag. Default `"latest"`. */
  version?: string;
  /** Receives every {@link InstallProgress} event. Exceptions it throws are ignored. */
  onProgress?: (event: InstallProgress) => void;
  /** The cache root (holds `<backend>/<version>/`). Default: see `cliCacheRoot()`. */
  cacheDir?: string;
  /** Reinstall even when the version is already in the cache. */
  force?: boolean;
  /** The npm executable. Default `npm` (`npm.cmd` on Windows). */
  npmCommand?: string;
  /** Cancels the install: npm is killed, the staging directory removed, `CliInstallError` (`aborted`) thrown. */
  signal?: AbortSignal;
  /** Upper bound for `npm install`, in milliseconds. Default 15 minutes. */
  timeoutMs?: number;
  /** Environment for npm and for the version check. Default `process.env`. */
  env?: Record<string, string | undefined>;
}

/** What {@link installCli} resolves with. */
export interface InstallCliResult extends InstalledCli {
  /** True when the version was already in the cache and nothing was fetched. */
  alreadyInstalled: boolean;
}

const VERSION_SPEC = /^[0-9A-Za-z.^~<>=*|+\- ]{1,100}$/;
const DEFAULT_TIMEOUT_MS = 15 * 60_000;
const VIEW_TIMEOUT_MS = 120_000;
const VERIFY_TIMEOUT_MS = 60_000;
const STDERR_TAIL_BYTES = 4000;
const PROGRESS_INTERVAL_MS = 250;

/** Installs in flight in this process, by install directory: concurrent calls share one. */
const inFlight = new Map<string, Promise<InstallCliResult>>();

/**
 * Installs a CLI into the per-user cache (`~/.cache/code-agent-sdk/clis/<backend>/<version>`, or
 * under `$XDG_CACHE_HOME`), and resolves with the binary's path. Nothing is installed globally and
 * nothing happens unless this is called. A version already in the cache is reused (checked with
 * `--version`) unless `force` is set.
 *
 * @throws CliInstallError with `failure` saying why; a `failed` event precedes it.
 *
 * @example
 * const { path } = await installCli({
 *   backend: "claude",
 *   onProgress: (e) => console.error(e.type, "message" in e ? e.message : ""),
 * });
 * for await (const m of query({ prompt: "hi", options: { cliPath: path } })) console.log(m.type);
 */
export async function installCli(options: InstallCliOptions): Promise<InstallCliResult> {
  const backend = options.backend;
  const emit = (event: InstallProgress): void => {
    try {
      options.onProgress?.(event);
    } catch {
      // A progress callback must not break the install.
    }
  };
  try {
    if (!isInstallableBackend(backend)) {
      throw new CliInstallError(
        `Cannot install a CLI for backend ${JSON.stringify(backend)}: only claude and codex are on npm`,
        {
          backend: String(backend),
          failure: "invalid-request",
        },
      );
    }
    return await install(options, emit);
  } catch (error) {
    const failure =
      error instanceof CliInstallError
        ? error
        : new CliInstallError(
            `Installing ${String(backend)} failed: ${(error as Error)?.message ?? String(error)}`,
            {
              backend: String(backend),
              version: options.version,
              failure: "npm-failed",
              cause: error,
            },
          );
    emit({
      type: "failed",
      backend,
      reason: failure.message.split("\n")[0] ?? failure.message,
      error: failure,
    });
    throw failure;
  }
}

async function install(
  options: InstallCliOptions,
  emit: (event: InstallProgress) => void,
): Promise<InstallCliResult> {
  const { backend, signal } = options;
  const pkg = CLI_PACKAGES[backend];
  const spec = (options.version ?? "latest").trim();
  const env = options.env ?? process.env;
  const npm = options.npmCommand ?? (process.platform === "win32" ? "npm.cmd" : "npm");
  if (!VERSION_SPEC.test(spec) || spec.startsWith("-")) {
    throw new CliInstallError(`Not a version, range or dist-tag: ${JSON.stringify(spec)}`, {
      backend,
      version: spec,
      failure: "invalid-request",
    });
  }
  throwIfAborted(signal, backend, spec);

  emit({ type: "checking", backend, message: `Resolving ${pkg.npmPackage}@${spec} on the npm registry` });
  const version = await resolveVersion(npm, pkg.npmPackage, spec, backend, env, signal);

  const location = { cacheDir: options.cacheDir, env };
  const dir = cliInstallDir(backend, version, location);
  emit({ type: "checking", backend, message: `Looking for ${pkg.displayName} ${version} in ${dir}` });
  if (!options.force) {
    const existing = readInstall(backend, dir);
    if (existing && (await runsVersion(existing.path, env))) {
      emit({ type: "done", backend, path: existing.path, version, dir, alreadyInstalled: true });
      return { ...existing, alreadyInstalled: true };
    }
  }

  let running = inFlight.get(dir);
  if (!running) {
    running = fetchInto(dir, { ...options, npmCommand: npm, env }, version, emit).finally(() =>
      inFlight.delete(dir),
    );
    inFlight.set(dir, running);
  }
  return running;
}

async function fetchInto(
  dir: string,
  options: InstallCliOptions & { npmCommand: string; env: Record<string, string | undefined> },
  version: string,
  emit: (event: InstallProgress) => void,
): Promise<InstallCliResult> {
  const { backend, signal, env } = options;
  const pkg = CLI_PACKAGES[backend];
  const backendRoot = join(cliCacheRoot({ cacheDir: options.cacheDir, env }), backend);
  const staging = join(backendRoot, `.staging-${version}-${process.pid}-${randomBytes(4).toString("hex")}`);
  mkdirSync(staging, { recursive: true });
  try {
    emit({ type: "downloading", backend, current: 0, total: undefined });
    let last = 0;
    const poll = setInterval(() => {
      const current = directorySize(staging);
      if (current !== last) {
        last = current;
        emit({ type: "downloading", backend, current, total: undefined });
      }
    }, PROGRESS_INTERVAL_MS);
    try {
      await runNpm(
        options.npmCommand,
        [
          "install",
          "--prefix",
          staging,
          "--no-save",
          "--no-package-lock",
          "--no-audit",
          "--no-fund",
          "--no-update-notifier",
          // The binary lives in an optional platform package; the wrapper's scripts are not needed.
          "--include=optional",
          "--ignore-scripts",
          "--engine-strict=false",
          "--loglevel=warn",
          `${pkg.npmPackage}@${version}`,
        ],
        {
          cwd: staging,
          env: npmEnv(env),
          timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          ...(signal ? { signal } : {}),
        },
      ).catch((error: unknown) => {
        throw asInstallError(error, backend, version, `npm install ${pkg.npmPackage}@${version} failed`);
      });
    } finally {
      clearInterval(poll);
    }
    const size = directorySize(staging);
    if (size !== last) emit({ type: "downloading", backend, current: size, total: undefined });

    const binary = pkg.binaryCandidates().find((candidate) => isExecutableFile(join(staging, candidate)));
    if (!binary) {
      throw new CliInstallError(
        `npm installed ${pkg.npmPackage}@${version}, but no ${pkg.command} binary for ${process.platform}-${process.arch} ` +
          `(looked for ${pkg.binaryCandidates().join(", ") || "nothing: this platform is not supported"})`,
        { backend, version, failure: "binary-missing" },
      );
    }
    emit({ type: "installing", backend, message: `Checking that ${pkg.command} --version runs` });
    await verifyBinary(join(staging, binary), backend, version, env);
    throwIfAborted(signal, backend, version);

    const marker: InstallMarker = {
      backend,
      version,
      npmPackage: pkg.npmPackage,
      binary,
      installedAt: new Date().toISOString(),
    };
    writeFileSync(join(staging, INSTALL_MARKER), `${JSON.stringify(marker, null, 2)}\n`);

    emit({ type: "installing", backend, message: `Moving ${pkg.displayName} ${version} into ${dir}` });
    if (options.force) rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(staging, dir);
    } catch (error) {
      // Another process finished the same version first: use its install.
      const existing = readInstall(backend, dir);
      if (!existing) throw error;
      emit({ type: "done", backend, path: existing.path, version, dir, alreadyInstalled: true });
      return { ...existing, alreadyInstalled: true };
    }
    const path = join(dir, binary);
    emit({ type: "done", backend, path, version, dir, alreadyInstalled: false });
    return { backend, version, dir, path, alreadyInstalled: false };
  } finally {
    rmSync(staging, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
  }
}

/** `npm view <pkg>@<spec> version --json` → the highest matching exact version. */
async function resolveVersion(
  npm: string,
  npmPackage: string,
  spec: string,
  backend: InstallableBackend,
  env: Record<string, string | undefined>,
  signal: AbortSignal | undefined,
): Promise<string> {
  let stdout: string;
  try {
    ({ stdout } = await runNpm(
      npm,
      ["view", `${npmPackage}@${spec}`, "version", "--json", "--loglevel=error"],
      {
        env: npmEnv(env),
        timeoutMs: VIEW_TIMEOUT_MS,
        ...(signal ? { signal } : {}),
      },
    ));
  } catch (error) {
    if (error instanceof NpmError && /E404|ETARGET|No match found/.test(error.stdout + error.stderr)) {
      throw new CliInstallError(`${npmPackage}@${spec} does not exist on the npm registry`, {
        backend,
        version: spec,
        failure: "version-not-found",
        stderrTail: npmErrorSummary(error),
        cause: error,
      });
    }
    throw asInstallError(error, backend, spec, `npm view ${npmPackage}@${spec} failed`);
  }
  let parsed: unknown;
  try {
    parsed = stdout.trim() === "" ? [] : JSON.parse(stdout);
  } catch (cause) {
    throw new CliInstallError(`npm view ${npmPackage}@${spec} printed something that is not JSON`, {
      backend,
      version: spec,
      failure: "npm-failed",
      stderrTail: stdout.slice(-STDERR_TAIL_BYTES),
      cause,
    });
  }
  const versions = (Array.isArray(parsed) ? parsed : [parsed]).filter(
    (v): v is string => typeof v === "string",
  );
  const best = versions.sort(compareVersions).at(-1);
  if (!best) {
    throw new CliInstallError(`${npmPackage}@${spec} does not exist on the npm registry`, {
      backend,
      version: spec,
      failure: "version-not-found",
    });
  }
  return best;
}

async function verifyBinary(
  path: string,
  backend: InstallableBackend,
  version: string,
  env: Record<string, string | undefined>,
): Promise<void> {
  const result = await execVersion(path, env);
  if (result.ok && result.stdout.includes(version)) return;
  throw new CliInstallError(
    result.ok
      ? `${path} --version printed ${JSON.stringify(result.stdout.trim().slice(0, 200))}, not version ${version}`
      : `${path} --version failed: ${result.error}`,
    { backend, version, failure: "verify-failed", stderrTail: result.stderr.slice(-STDERR_TAIL_BYTES) },
  );
}

async function runsVersion(path: string, env: Record<string, string | undefined>): Promise<boolean> {
  return (await execVersion(path, env)).ok;
}

function execVersion(
  path: string,
  env: Record<string, string | undefined>,
): Promise<{ ok: boolean; stdout: string; stderr: string; error?: string }> {
  return new Promise((resolve) => {
    execFile(
      path,
      ["--version"],
      {
        env: definedOnly(env),
        timeout: VERIFY_TIMEOUT_MS,
        killSignal: "SIGKILL",
        windowsHide: true,
        encoding: "utf8",
      },
      (error, stdout, stderr) => {
        resolve(
          error
            ? { ok: false, stdout, stderr, error: error.message.split("\n")[0] ?? "" }
            : { ok: true, stdout, stderr },
        );
      },
    );
  });
}

/** npm failed: its exit code and output. */
class NpmError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stdout: string,
    readonly stderr: string,
    readonly kind: "spawn" | "exit" | "timeout" | "aborted",
  ) {
    super(message);
  }
}

function runNpm(
  npm: string,
  args: string[],
  opts: { cwd?: string; env: Record<string, string>; timeoutMs: number; signal?: AbortSignal },
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(new NpmError("aborted", null, "", "", "aborted"));
      return;
    }
    // npm.cmd cannot be spawned without a shell on Windows; the arguments are fixed or validated.
    const child = spawn(npm, args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
      shell: process.platform === "win32" && npm.endsWith(".cmd"),
    });
    let stdout = "";
    let stderr = "";
    let settled = false;
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr = (stderr + d).slice(-64 * 1024);
    });
    const finish = (error?: NpmError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else resolve({ stdout, stderr });
    };
    const onAbort = () => {
      child.kill("SIGTERM");
      finish(new NpmError("aborted", null, stdout, stderr, "aborted"));
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish(new NpmError(`npm timed out after ${opts.timeoutMs} ms`, null, stdout, stderr, "timeout"));
    }, opts.timeoutMs);
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    child.on("error", (error) => {
      finish(new NpmError(`could not run ${npm}: ${error.message}`, null, stdout, stderr, "spawn"));
    });
    child.on("close", (code, signal) => {
      if (code === 0) finish();
      else
        finish(
          new NpmError(
            `npm ${args[0]} exited with ${code ?? signal ?? "an unknown status"}`,
            code,
            stdout,
            stderr,
            "exit",
          ),
        );
    });
  });
}

function asInstallError(
  error: unknown,
  backend: InstallableBackend,
  version: string,
  what: string,
): CliInstallError {
  if (error instanceof CliInstallError) return error;
  if (error instanceof NpmError) {
    const failure =
      error.kind === "spawn" ? "npm-not-found" : error.kind === "aborted" ? "aborted" : "npm-failed";
    const message =
      failure === "npm-not-found"
        ? `${error.message}. The installer needs npm (it comes with Node.js) on PATH, or pass npmCommand.`
        : failure === "aborted"
          ? "The install was aborted"
          : `${what}: ${error.message}`;
    return new CliInstallError(message, {
      backend,
      version,
      failure,
      stderrTail: npmErrorSummary(error),
      cause: error,
    });
  }
  return new CliInstallError(`${what}: ${(error as Error)?.message ?? String(error)}`, {
    backend,
    version,
    failure: "npm-failed",
    cause: error,
  });
}

/** npm's own error lines (without the noise of warnings), bounded. */
function npmErrorSummary(error: NpmError): string {
  const lines = `${error.stderr}\n${error.stdout}`
    .split("\n")
    .filter((line) => /^npm (error|ERR!)/.test(line) || /"(summary|code)"/.test(line));
  return (lines.length > 0 ? lines.join("\n") : error.stderr).slice(-STDERR_TAIL_BYTES);
}

function throwIfAborted(signal: AbortSignal | undefined, backend: InstallableBackend, version: string): void {
  if (signal?.aborted) {
    throw new CliInstallError("The install was aborted", {
      backend,
      version,
      failure: "aborted",
      cause: signal.reason,
    });
  }
}

/**
 * The environment for npm: the caller's, minus settings that would turn the install global or
 * point it at another prefix (set when we run under `npm exec` / `npm run`).
 */
function npmEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out = definedOnly(env);
  for (const key of Object.keys(out)) {
    const lower = key.toLowerCase();
    if (
      lower === "npm_config_global" ||
      lower === "npm_config_location" ||
      lower === "npm_config_prefix" ||
      lower === "npm_config_omit" ||
      lower === "npm_config_dry_run" ||
      lower === "npm_config_package_lock_only"
    ) {
      delete out[key];
    }
  }
  return out;
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

/** Bytes of the regular files under `dir` (symlinks not followed). Errors count as zero. */
function directorySize(dir: string): number {
  let total = 0;
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += directorySize(path);
    else if (entry.isFile()) {
      try {
        total += statSync(path).size;
      } catch {
        // Vanished between listing and stat: npm is still moving things.
      }
    }
  }
  return total;
}
