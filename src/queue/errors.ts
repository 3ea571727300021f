/**
 * Errors of the queue entry point. Like every error of the SDK they extend `AgentSdkError`.
 */
import { AbortError, AgentSdkError } from "../errors.js";
import { describeError } from "../wire/safe-json.js";

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

/** What a {@link QueueConnectionError} after the start was doing. */
export interface QueueConnectionContext {
  /** The call or task that failed: `"reading run …"`, `"enqueue"`, `"worker"`, … */
  operation: string;
  /** The run concerned, when there is one. */
  jobId?: string;
}

/**
 * Redis could not be reached when a producer or worker started (`timeoutMs` is then
 * `connectTimeoutMs`), or later: a connection stayed without Redis for `reconnectTimeoutMs` and gave
 * up, or a Redis command of a queue call failed. `operation` and `jobId` say what was going on;
 * `cause` is the Redis client's error.
 */
export class QueueConnectionError extends AgentSdkError {
  /** The Redis address that was tried (without credentials). */
  readonly address: string;
  /** How long it was tried, in milliseconds (`connectTimeoutMs` or `reconnectTimeoutMs`). */
  readonly timeoutMs: number;
  /** What failed; `"connect"` when the producer or worker was starting. */
  readonly operation: string;
  /** The run concerned, when there is one. */
  readonly jobId: string | undefined;
  constructor(address: string, timeoutMs: number, cause?: unknown, context?: QueueConnectionContext) {
    super(
      context
        ? `${context.operation}${context.jobId !== undefined ? ` (run ${context.jobId})` : ""} failed: ` +
            `Redis at ${address}: ${describeError(cause)} (connections give up after ${timeoutMs} ms ` +
            "without Redis: reconnectTimeoutMs)"
        : `Redis at ${address} did not answer within ${timeoutMs} ms (connectTimeoutMs)`,
      { cause },
    );
    this.address = address;
    this.timeoutMs = timeoutMs;
    this.operation = context?.operation ?? "connect";
    this.jobId = context?.jobId;
  }
}

/**
 * The `AgentQueue` was closed: calls made afterwards, and iterations (`for await`, `result()`,
 * `collect()`) still reading when it closed, reject with this. An `AbortError`, so code that treats
 * an abort as "stop quietly" keeps doing so.
 */
export class QueueClosedError extends AbortError {
  constructor(jobId?: string, cause?: unknown) {
    super(
      jobId === undefined
        ? "The AgentQueue was closed"
        : `The AgentQueue was closed while reading run ${jobId}`,
      cause === undefined ? undefined : { cause },
    );
  }
}

/**
 * An entry of a run's Redis stream is not one this version can read: not the fields a worker
 * writes, data that is not JSON, or a known kind with the wrong shape. The iteration ends with
 * this error rather than guess what the run produced. (An entry of a kind this version does not
 * know, well-formed otherwise, is skipped and reported to `onError` with this error instead: a
 * newer worker may add kinds.)
 */
export class QueueProtocolError extends AgentSdkError {
  /** The run whose stream holds the entry. */
  readonly jobId: string;
  /** The stream entry's id (`<ms>-<n>`). */
  readonly entryId: string;
  /** What is wrong with it. */
  readonly problem: string;
  constructor(jobId: string, entryId: string, problem: string) {
    super(`Malformed entry ${entryId} in the stream of queued run ${jobId}: ${problem}`);
    this.jobId = jobId;
    this.entryId = entryId;
    this.problem = problem;
  }
}

/**
 * A reader of a run's stream found entries missing: it fell so far behind a live run (or arrived
 * so late) that the worker's trimming (`streamMaxLen`) removed entries it had not read. Thrown
 * instead of going on without them; `expectedSeq`/`gotSeq` say which ones are gone (within
 * `attempt`). Raise the worker's `streamMaxLen`, or read faster.
 */
export class StreamGapError extends AgentSdkError {
  /** The run whose stream was trimmed under the reader. */
  readonly jobId: string;
  /** The attempt the missing entries belong to. */
  readonly attempt: number;
  /** The sequence number the reader needed next. */
  readonly expectedSeq: number;
  /** The sequence number of the oldest entry left. */
  readonly gotSeq: number;
  constructor(jobId: string, attempt: number, expectedSeq: number, gotSeq: number) {
    super(
      `Entries ${expectedSeq}–${gotSeq - 1} of attempt ${attempt} of queued run ${jobId} were trimmed ` +
        "from its stream before this reader read them (streamMaxLen); the run's messages are incomplete",
    );
    this.jobId = jobId;
    this.attempt = attempt;
    this.expectedSeq = expectedSeq;
    this.gotSeq = gotSeq;
  }
}

/**
 * A queue worker's watchdog process (which SIGKILLs the worker's CLIs should the worker be killed
 * outright) exited while the worker was running. Reported to the worker's `onError`; `restarted`
 * says whether a new watchdog took over (it is told every CLI group alive), or whether it died too
 * often and the worker now runs without one.
 */
export class QueueWatchdogError extends AgentSdkError {
  /** The pid of the watchdog that exited. */
  readonly pid: number | undefined;
  /** Its exit code, or `null` when a signal ended it. */
  readonly exitCode: number | null;
  /** The signal that ended it, if any. */
  readonly signal: NodeJS.Signals | null;
  /** Whether a new watchdog was started. */
  readonly restarted: boolean;
  constructor(
    pid: number | undefined,
    exitCode: number | null,
    signal: NodeJS.Signals | null,
    restarted: boolean,
  ) {
    super(
      `The queue worker's watchdog (pid ${pid ?? "?"}) exited (${signal ?? `code ${exitCode}`}) while the worker ran; ` +
        (restarted
          ? "a new one was started and told every CLI group alive"
          : "it died too often and was not restarted: a SIGKILLed worker would now leave its CLIs running"),
    );
    this.pid = pid;
    this.exitCode = exitCode;
    this.signal = signal;
    this.restarted = restarted;
  }
}
