/**
 * Typed errors. Every failure the SDK reports is one of these classes, so callers can
 * `catch (e) { if (e instanceof ProcessError) … }` and read the context they need to act.
 */
import { detachedString } from "./wire/detached-string.js";

/** Base class of every error thrown or yielded by code-agent-sdk. */
export class AgentSdkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The agent CLI binary could not be found. `searched` lists every place that was tried. */
export class CliNotFoundError extends AgentSdkError {
  /** `"ENOENT"`, as on Node's spawn error for a missing executable (callers that retry branch on it). */
  readonly code = "ENOENT" as const;
  /** Which CLI was looked for (`claude`, `codex`, `cursor-agent`). */
  readonly cli: string;
  /** Every path or lookup that was tried, in order. */
  readonly searched: readonly string[];
  constructor(cli: string, searched: readonly string[], hint: string) {
    super(`${cli} CLI not found. Searched: ${searched.length ? searched.join(", ") : "(nothing)"}.\n${hint}`);
    this.cli = cli;
    this.searched = searched;
  }
}

/** A connection-level failure: spawning failed, a pipe broke, a transport is closed. */
export class CliConnectionError extends AgentSdkError {}

/** The CLI process failed: it exited non-zero, was killed by a signal, or could not be spawned. */
export class ProcessError extends AgentSdkError {
  /** Exit code, or `null` when the process was killed by a signal or never started. */
  readonly exitCode: number | null;
  /** The terminating signal, if any. */
  readonly signal: NodeJS.Signals | null;
  /** The last lines the process wrote to stderr (bounded). */
  readonly stderrTail: string;
  constructor(
    message: string,
    details: {
      exitCode: number | null;
      signal?: NodeJS.Signals | null;
      stderrTail?: string;
      cause?: unknown;
    },
  ) {
    const tail = details.stderrTail?.trim();
    super(tail ? `${message}\n--- stderr (tail) ---\n${tail}` : message, { cause: details.cause });
    this.exitCode = details.exitCode;
    this.signal = details.signal ?? null;
    this.stderrTail = details.stderrTail ?? "";
  }
}

/**
 * The CLI closed its stdout but did not exit: after a grace (`closeGraceMs`) it was terminated,
 * since nothing it does could reach the caller any more. `exitCode` is `null`; the stderr tail
 * says what the CLI reported.
 */
export class OutputClosedError extends ProcessError {
  constructor(message: string, details: { stderrTail?: string }) {
    super(message, { exitCode: null, ...details });
  }
}

/** A line from the CLI was not valid JSON, or a line exceeded the configured buffer limit. */
export class JsonDecodeError extends AgentSdkError {
  /** The start of the offending line (at most 200 characters). */
  readonly lineHead: string;
  /** Total length of the offending line or buffer, in bytes. */
  readonly lineLength: number;
  constructor(message: string, line: string, lineLength = Buffer.byteLength(line), cause?: unknown) {
    const head = detachedString(line.length > 200 ? `${line.slice(0, 200)}…` : line);
    super(`${message}: ${JSON.stringify(head)}`, { cause });
    this.lineHead = head;
    this.lineLength = lineLength;
  }
}

/** A line exceeded `maxBufferSize`. The limit is named in the message. */
export class BufferOverflowError extends JsonDecodeError {
  /** The configured limit, in bytes. */
  readonly limit: number;
  constructor(limit: number, head: string, length: number) {
    super(
      `A line from the CLI exceeded maxBufferSize (${limit} bytes; got at least ${length})`,
      head,
      length,
    );
    this.limit = limit;
  }
}

/**
 * A reader of a session (e.g. a `receiveMessages()` iterator) fell further behind the session's
 * furthest reader than `maxReaderLagBytes` allows, and was dropped so it cannot pin the session's
 * memory. The other readers and the session go on. Read it on time, or raise the option.
 */
export class ReaderOverflowError extends AgentSdkError {
  /** The configured limit, in bytes of CLI output. */
  readonly limit: number;
  /** The option that sets the limit. */
  readonly option = "maxReaderLagBytes";
  constructor(limit: number, behind: number) {
    super(
      `This reader fell ${behind} bytes of CLI output behind the session's furthest reader, more than ` +
        `maxReaderLagBytes (${limit} bytes), and was dropped; the session and its other readers go on. ` +
        "Keep reading each iterator you start (or stop it with break/return()), or raise maxReaderLagBytes.",
    );
    this.limit = limit;
  }
}

/** A JSON message from the CLI had an unexpected shape. The raw message is kept. */
export class MessageParseError extends AgentSdkError {
  /** The message that could not be interpreted. */
  readonly data: unknown;
  constructor(message: string, data: unknown) {
    super(message);
    this.data = data;
  }
}

/** A control request to the CLI got no answer in time. */
export class ControlTimeoutError extends AgentSdkError {
  /** The control request subtype that timed out (`initialize`, `interrupt`, …). */
  readonly subtype: string;
  /** How long we waited, in milliseconds. */
  readonly timeoutMs: number;
  constructor(subtype: string, timeoutMs: number) {
    super(`Control request "${subtype}" got no response within ${timeoutMs} ms`);
    this.subtype = subtype;
    this.timeoutMs = timeoutMs;
  }
}

/** The CLI answered a control request with an error. */
export class ControlRequestError extends AgentSdkError {
  /** The control request subtype that failed. */
  readonly subtype: string;
  /** The error code the CLI gave, when it gave one (e.g. `unsupported_request`). */
  readonly code: string | undefined;
  constructor(subtype: string, message: string, code?: string) {
    super(`Control request "${subtype}" failed: ${message}`);
    this.subtype = subtype;
    this.code = code;
  }
}

/** A method that needs a live session was called before `connect()` or after `disconnect()`. */
export class NotConnectedError extends AgentSdkError {
  /** @param options.cause Why the session ended, when it ended by itself (its process exited). */
  constructor(message = "Not connected. Call connect() first.", options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A turn was started (`AgentSdkClient.run()`, `Query.collect()`) while another one is still being
 * collected on the same query or client: wait for it first.
 */
export class TurnInProgressError extends AgentSdkError {
  /** The call that was refused, e.g. `run()`. */
  readonly operation: string;
  constructor(operation: string) {
    super(
      `${operation} was called while another turn is still being collected on this session; await it first`,
    );
    this.operation = operation;
  }
}

/**
 * `AgentSdkClient.run()` was called while the answer to an earlier turn is still unread: the answer
 * it would collect is that earlier one. Read the pending answers with `receiveResponse()` first.
 */
export class UnreadResponseError extends AgentSdkError {
  /** How many answers are unread; `undefined` after a streamed prompt (the count is unknown). */
  readonly unread: number | undefined;
  constructor(unread: number | undefined) {
    super(
      unread === undefined
        ? "run() cannot tell which answer is its own after a streamed prompt: read the answers with receiveResponse()"
        : `run() was called with ${unread} earlier answer(s) unread; read them with receiveResponse() first`,
    );
    this.unread = unread;
  }
}

/** The selected backend cannot do what was asked (e.g. `setModel` on Cursor). */
export class UnsupportedFeatureError extends AgentSdkError {
  readonly feature: string;
  readonly backend: string;
  constructor(feature: string, backend: string) {
    super(`Feature "${feature}" is not supported by the ${backend} backend`);
    this.feature = feature;
    this.backend = backend;
  }
}

/** Options were given that the selected backend cannot honour. Lists every offending option. */
export class UnsupportedOptionsError extends AgentSdkError {
  readonly backend: string;
  readonly options: readonly string[];
  /** Why an option is refused, where there is more to say than "this backend has no such thing". */
  readonly reasons: Readonly<Record<string, string>>;
  constructor(backend: string, options: readonly string[], reasons: Readonly<Record<string, string>> = {}) {
    const listed = options.map((o) => (reasons[o] ? `${o} (${reasons[o]})` : o));
    super(`Options not supported by the ${backend} backend: ${listed.join(", ")}`);
    this.backend = backend;
    this.options = options;
    this.reasons = reasons;
  }
}

/** Options failed validation. `issues` lists each problem as `path: message`. */
export class InvalidOptionsError extends AgentSdkError {
  readonly issues: readonly string[];
  constructor(issues: readonly string[]) {
    super(`Invalid options:\n  - ${issues.join("\n  - ")}`);
    this.issues = issues;
  }
}

/**
 * The operation was aborted through an `AbortSignal` or `close()`. Shaped like Node's own
 * `AbortError`: `name` `"AbortError"`, `code` `"ABORT_ERR"`, and the signal's reason as `cause`
 * where a signal aborted it.
 */
export class AbortError extends AgentSdkError {
  /** `"ABORT_ERR"`, as on Node's `AbortError`. */
  readonly code = "ABORT_ERR" as const;
  constructor(message = "The operation was aborted", options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A time limit of the options ran out: the turn (or the query) was ended and its CLI's process
 * group terminated. `limit` names the option (`timeoutMs`); `timeoutMs` is its value.
 */
export class TimeoutError extends AgentSdkError {
  /** The option whose limit was reached, e.g. `"timeoutMs"`. */
  readonly limit: string;
  /** The limit in milliseconds. */
  readonly timeoutMs: number;
  constructor(limit: string, timeoutMs: number, what = "The turn") {
    super(`${what} did not finish within ${limit}: ${timeoutMs} ms; it was ended and its process stopped`);
    this.limit = limit;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A process started ahead of time (`startup()`, `WarmPool`, `prewarm()`) cannot serve this query
 * or client: the query asks for options the process was not started with, the warm session was
 * already used or closed, or its process exited while it waited; for a spare (`prewarm()`), the
 * CLI refused the claim or one of the options sent with it.
 */
export class WarmStartError extends AgentSdkError {
  /**
   * Why: `conflicting-options`, `already-used`, `closed`, `exited`; for a spare's claim,
   * `claim-refused` (the prompt did not run) or `option-not-applied` (it runs without the option).
   */
  readonly reason:
    | "conflicting-options"
    | "already-used"
    | "closed"
    | "exited"
    | "claim-refused"
    | "option-not-applied";
  /** For `conflicting-options`: the options that differ from the warm ones. */
  readonly options: readonly string[];
  constructor(
    reason: WarmStartError["reason"],
    message: string,
    options: readonly string[] = [],
    /** `cause`: for `exited` during a claim, the `ProcessError` with the exit code or signal. */
    details?: { cause?: unknown },
  ) {
    super(message, details);
    this.reason = reason;
    this.options = options;
  }
}

/** A stored Claude session (or subagent transcript) was not found where the session helpers looked. */
export class SessionNotFoundError extends AgentSdkError {
  /** The session asked for. */
  readonly sessionId: string;
  /** The project directory searched, or `undefined` when every project was searched. */
  readonly dir: string | undefined;
  /** The `projects` folder that was searched. */
  readonly projectsDir: string;
  constructor(sessionId: string, dir: string | undefined, projectsDir: string, what = "Session") {
    super(
      dir === undefined
        ? `${what} ${sessionId} not found in any project directory (under ${projectsDir})`
        : `${what} ${sessionId} not found in project directory for ${dir} (under ${projectsDir})`,
    );
    this.sessionId = sessionId;
    this.dir = dir;
    this.projectsDir = projectsDir;
  }
}

/**
 * A `sessionStore` call failed (threw, rejected — with any value —, did not settle in time, or
 * answered something that is not what the `SessionStore` interface says). A resume from the store
 * fails the query with it before the CLI is started; the session helpers (`listSessions`,
 * `getSessionMessages`, … with `{ sessionStore }`) throw it; a transcript batch the mirror could
 * not append is reported with its message as a `mirror_error`. `cause` is what the store threw.
 */
export class SessionStoreError extends AgentSdkError {
  /** The store method that failed. */
  readonly operation: "append" | "load" | "listSubkeys" | "listSessions" | "listSessionSummaries" | "delete";
  /** `true` when the call did not settle within its bound (`loadTimeoutMs`, the mirror's 60 s). */
  readonly timedOut: boolean;
  constructor(
    operation: SessionStoreError["operation"],
    message: string,
    details: { timedOut?: boolean; cause?: unknown } = {},
  ) {
    super(message, { cause: details.cause });
    this.operation = operation;
    this.timedOut = details.timedOut ?? false;
  }
}
