/**
 * Errors of the queue entry point. Like every error of the SDK they extend `AgentSdkError`.
 */
import { AgentSdkError } from "../errors.js";

/** An optional peer dependency of `code-agent-sdk/queue` (BullMQ, ioredis) is not installed. */
export class QueueDependencyError extends AgentSdkError {
  /** The npm packages that could not be loaded. */
  readonly packages: readonly string[];
  constructor(packages: readonly string[], cause: unknown) {
    super(
      `code-agent-sdk/queue needs ${packages.join(" and ")}, optional peer dependencies that are not installed. ` +
        `Install them next to code-agent-sdk: npm install ${packages.join(" ")}`,
      { cause },
    );
    this.packages = packages;
  }
}

/** The error a worker's run ended with, as it crossed back to the producer. */
export interface SerializedRunError {
  /** The class name of the error on the worker (`ProcessError`, `RunTimeoutError`, …). */
  name: string;
  message: string;
  /** `exitCode` of a `ProcessError`, when there was one. */
  exitCode?: number | null;
  /** Whether the worker considered the failure worth another attempt (a CLI crash). */
  retryable: boolean;
  /** Each reason, as `field: why`, when the worker refused the job (`JobRefusedError`) or its options. */
  issues?: string[];
}

/**
 * A worker refused a job before running anything: a field it does not accept from producers (see
 * `AgentWorker.start({ accept })`), an invalid value, a bad signature or MAC, an env it cannot
 * decrypt. Not retried; nothing was spawned. On the producer it arrives as a {@link RemoteRunError}
 * whose `remote.name` is `"JobRefusedError"` and `remote.issues` lists every refused field.
 */
export class JobRefusedError extends AgentSdkError {
  /** The job id. */
  readonly jobId: string;
  /** Every reason, as `field: why`. */
  readonly issues: readonly string[];
  constructor(jobId: string, issues: readonly string[]) {
    super(`The worker refused job ${jobId}:\n  - ${issues.join("\n  - ")}`);
    this.jobId = jobId;
    this.issues = issues;
  }
}

/**
 * A queued run failed on the worker side: the CLI kept crashing until the attempts ran out, the run
 * timed out, the options were refused, or the job was lost. `remote` says what happened there.
 */
export class RemoteRunError extends AgentSdkError {
  /** The job id of the run. */
  readonly jobId: string;
  /** The worker's error (its class name and message). */
  readonly remote: SerializedRunError;
  constructor(jobId: string, remote: SerializedRunError) {
    super(`Queued agent run ${jobId} failed on the worker: ${remote.name}: ${remote.message}`);
    this.jobId = jobId;
    this.remote = remote;
  }
}

/** A run took longer than its `timeoutMs`; the worker ended it. Not retried. */
export class RunTimeoutError extends AgentSdkError {
  /** The limit that was exceeded, in milliseconds. */
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`The agent run exceeded its timeout of ${timeoutMs} ms and was ended`);
    this.timeoutMs = timeoutMs;
  }
}

/** Redis could not be reached when a producer or worker started. */
export class QueueConnectionError extends AgentSdkError {
  /** The Redis address that was tried (without credentials). */
  readonly address: string;
  /** How long it was tried, in milliseconds. */
  readonly timeoutMs: number;
  constructor(address: string, timeoutMs: number, cause?: unknown) {
    super(`Redis at ${address} did not answer within ${timeoutMs} ms (connectTimeoutMs)`, { cause });
    this.address = address;
    this.timeoutMs = timeoutMs;
  }
}
