import { AgentSdkError } from "../errors.js";
import type { InstallableBackend } from "./packages.js";

/** Why an install failed. */
export type CliInstallFailure =
  /** The requested version (or range, or dist-tag) does not exist on the registry. */
  | "version-not-found"
  /** `npm` itself could not be started. */
  | "npm-not-found"
  /** `npm view` or `npm install` failed (network, registry, disk, permissions, …). */
  | "npm-failed"
  /** npm succeeded but no binary for this platform was installed. */
  | "binary-missing"
  /** The installed binary did not answer `--version`. */
  | "verify-failed"
  /** The version string or backend is not acceptable. */
  | "invalid-request"
  /** The `signal` was aborted. */
  | "aborted";

/** `installCli()` (`code-agent-sdk/install`) failed. `failure` says why; `stderrTail` holds npm's last words, when it ran. */
export class CliInstallError extends AgentSdkError {
  readonly backend: InstallableBackend | string;
  /** The version asked for (or resolved, when resolution got that far). */
  readonly version: string | undefined;
  readonly failure: CliInstallFailure;
  /** The end of npm's (or the binary's) stderr, when a process ran. */
  readonly stderrTail: string;
  constructor(
    message: string,
    details: {
      backend: InstallableBackend | string;
      version?: string | undefined;
      failure: CliInstallFailure;
      stderrTail?: string;
      cause?: unknown;
    },
  ) {
    const tail = details.stderrTail?.trim();
    super(tail ? `${message}\n--- stderr (tail) ---\n${tail}` : message, { cause: details.cause });
    this.backend = details.backend;
    this.version = details.version;
    this.failure = details.failure;
    this.stderrTail = details.stderrTail ?? "";
  }
}
