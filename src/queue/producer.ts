/**
 * The producer side: `AgentQueue.connect()` → `enqueue()` → an {@link AgentRun} handle whose
 * messages stream live from whichever worker runs the job.
 */
import { randomUUID } from "node:crypto";
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { AbortError, AgentSdkError, InvalidOptionsError } from "../errors.js";
import type { Message, ResultMessage } from "../messages.js";
import type { CanUseTool, PermissionResult } from "../permissions.js";
import { combineSignals } from "../signals/abort.js";
import { currentTraceContext } from "../telemetry/start.js";
import { describeError, trySerialise } from "../wire/safe-json.js";
import { type EntrySigner, QueueKey, RunKeys } from "./auth.js";
import {
  address,
  answerBoundMs,
  closeConnection,
  connectionClosedError,
  isConnectionClosed,
  millisecondsOption,
  openBullRedis,
  openReachableRedis,
  type QueueConnectionOptions,
  QueueKeys,
  reconnectTimeoutOf,
  responseTimeoutOf,
  typedConnectionError,
} from "./connection.js";
import { loadQueueDeps } from "./deps.js";
import { type DecodedStreamEntry, decodeStreamEntry, encodeEntries, type RunEntry } from "./entries.js";
import {
  QueueClosedError,
  QueueConnectionError,
  QueueProtocolError,
  RemoteRunError,
  type SerializedRunError,
  StreamGapError,
} from "./errors.js";
import {
  type AgentJobData,
  type RemoteAgentOptions,
  type RemotePrompt,
  toJobData,
} from "./remote-options.js";
import { READ_COUNT, StreamReader, streamReply } from "./stream-reader.js";

/** Options of {@link AgentQueue.connect}. */
export interface AgentQueueOptions extends QueueConnectionOptions {
  /**
   * How long a reader waits on an idle stream before it checks the job's state in BullMQ, in
   * milliseconds: bounds how long a handle can wait for a run that ended without a final entry
   * (its worker died on the last attempt). Default 2 000.
   */
  idleCheckMs?: number;
  /**
   * Connection trouble that belongs to no call (Redis went away; the connections reconnect by
   * themselves and calls wait meanwhile). Default: `process.emitWarning`.
   */
  onError?: (error: Error) => void;
  /**
   * The queue's shared key (at least 32 bytes; the same on the workers): with it, each job's `env`
   * is encrypted (AES-256-GCM) and the job authenticated (HMAC-SHA256) before it reaches Redis, and
   * readers ignore stream entries not written by a holder of the key (reported to `onError`).
   */
  key?: string | Uint8Array;
}

/** What {@link AgentQueue.enqueue} runs, and how. */
export interface EnqueueParams {
  /** The prompt: text or content blocks (a streamed prompt cannot be queued). */
  prompt: RemotePrompt;
  /**
   * Agent options, as for `query()` (including `backend`), minus what cannot leave this process:
   * callbacks (`canUseTool`, `hooks`, `stderr`, `onCliInstallProgress`), in-process (`sdk`) MCP
   * servers, a custom `transport`, an AbortSignal. Those are refused with `InvalidOptionsError`.
   */
  options?: RemoteAgentOptions;
  /** Per-run time limit in milliseconds (the worker's `defaultTimeoutMs` when absent). Not retried. */
  timeoutMs?: number;
  /** Attempts in all, for CLI crashes (a `ProcessError` and the like). Default 3. */
  attempts?: number;
  /** First retry delay in milliseconds, doubling with each retry. Default 1 000. */
  backoffMs?: number;
  /** BullMQ priority (1 is highest; unset runs before any prioritized job). */
  priority?: number;
  /** The job id; default a random UUID. Enqueueing an id that exists returns the existing run. */
  jobId?: string;
  /**
   * Answers the worker's permission requests from this process: the CLI's request travels over the
   * run's stream, this callback decides (as `canUseTool` does for `query()`), the decision travels
   * back. Only while this `AgentQueue` is open; a request not answered within
   * `permissionTimeoutMs` is denied. A worker with its own `canUseTool` keeps deciding itself.
   */
  canUseTool?: CanUseTool;
  /** How long the worker waits for this producer's permission decision, in milliseconds. Default 60 000. */
  permissionTimeoutMs?: number;
}

/** How to cancel a run: end the current turn (the run then completes), or end the run. */
export type CancelMode = "interrupt" | "abort";

/** A run's messages and its final result. */
export interface CollectedRun {
  messages: Message[];
  result: ResultMessage;
}

/**
 * A queued agent run. Iterate it (any number of times, from any process holding the queue) for its
 * messages from the start, live as the worker produces them; `result()` for the final result.
 *
 * When an attempt fails and the job runs again, a `system` message with subtype `queue_retry`
 * (data: `attempt`, `error`) precedes the new attempt's messages: what came before it belongs to
 * the failed attempt.
 */
export interface AgentRun extends AsyncIterable<Message> {
  /** The BullMQ job id. */
  readonly id: string;
  /** The run's messages, from the first, ending after the last (throws like {@link result}). */
  messages(): AsyncIterable<Message>;
  /**
   * The final `result` message. Rejects with `AbortError` when the run was aborted, and with
   * {@link RemoteRunError} when it failed on the worker.
   */
  result(): Promise<ResultMessage>;
  /** Every message and the result: for fire-and-forget callers that look at the run afterwards. */
  collect(): Promise<CollectedRun>;
  /**
   * Cancels the run. `"abort"` (default) ends it wherever it is: a waiting job is removed, a
   * running one has its CLI closed, and `result()` rejects with `AbortError`. `"interrupt"`
   * interrupts the turn running now (the run then completes with that turn's result); it does
   * nothing to a run that has not started, and is not redelivered to a worker that missed it.
   */
  cancel(mode?: CancelMode): Promise<void>;
}

/** The producer: enqueues agent runs and hands out {@link AgentRun}s. Close it when done. */
export class AgentQueue implements AsyncDisposable {
  private readonly keys: QueueKeys;
  /** Reads the runs' streams (a connection per 32 waiting reads); made by the first reader. */
  private reader: StreamReader | undefined;
  /** Background readers answering permission requests (see {@link answerPermissions}). */
  private readonly permissionTasks = new Set<Promise<void>>();
  /** Aborts the callbacks of those readers when the producer closes. */
  private readonly permissionAbort = new AbortController();
  private closed = false;
  /** How long a connection waits for Redis to come back before it gives up (`reconnectTimeoutMs`). */
  private readonly reconnectTimeoutMs: number;
  /** `idleCheckMs`, checked. */
  private readonly idleCheckMs: number;
  /** The signing keys of this producer's runs (decisions, cancellations): held in memory only. */
  private readonly runKeys = new RunKeys();
  /** The operator's queue key, when there is one. */
  private readonly queueKey: QueueKey | undefined;

  private constructor(
    private readonly options: AgentQueueOptions,
    private readonly queue: Queue,
    private readonly commands: Redis,
    private readonly onError: (error: Error) => void,
    /** The connection the BullMQ queue uses (ours: BullMQ leaves closing it to us). */
    private readonly bullRedis: Redis,
  ) {
    this.keys = new QueueKeys(options.prefix ?? "code-agent", options.queueName ?? "agent-runs");
    this.reconnectTimeoutMs = reconnectTimeoutOf(options);
    this.idleCheckMs = idleCheckOf(options);
    this.queueKey = QueueKey.from(options.key);
    commands.once("end", () => this.lostRedis());
  }

  /**
   * The commands connection gave up on Redis (`reconnectTimeoutMs`; it asks for a sign of life
   * while idle, so a Redis that stopped answering counts too): every call fails from now on, so
   * the other connections are cut as well — waiting reads fail with `QueueConnectionError` at once,
   * later ones too, and nothing keeps the host alive.
   */
  private lostRedis(): void {
    if (this.closed) return;
    this.reader?.close(connectionClosedError());
    this.bullRedis.disconnect();
  }

  /**
   * Connects to the queue's Redis. Rejects with `QueueDependencyError` when `bullmq` or `ioredis`
   * is not installed.
   */
  static async connect(options: AgentQueueOptions): Promise<AgentQueue> {
    QueueKey.from(options.key); // a bad key fails before anything connects
    idleCheckOf(options);
    responseTimeoutOf(options);
    const deps = await loadQueueDeps();
    const queueName = options.queueName ?? "agent-runs";
    const commands = await openReachableRedis(deps, options, "code-agent-producer");
    const report = options.onError ?? ((error: Error) => process.emitWarning(error));
    // Errors of the Redis client (and BullMQ) reach `onError` typed, saying which connection.
    const onError = (error: unknown) =>
      report(typedConnectionError(options, error, "the producer's Redis connection"));
    commands.on("error", onError);
    const bullRedis = openBullRedis(deps, options, "code-agent-producer-bullmq");
    bullRedis.on("error", onError);
    const queue = new deps.bullmq.Queue(queueName, {
      connection: bullRedis,
      prefix: options.prefix ?? "code-agent",
    });
    queue.on("error", onError);
    return new AgentQueue(options, queue, commands, onError, bullRedis);
  }

  /**
   * Validates the run (everything `query()` checks, plus that it can cross machines) and adds it
   * to the queue. Throws `InvalidOptionsError` before anything reaches Redis when it cannot run.
   */
  async enqueue(params: EnqueueParams): Promise<AgentRun> {
    this.assertOpen();
    const { canUseTool } = params;
    if (canUseTool !== undefined && typeof canUseTool !== "function")
      throw new InvalidOptionsError(["canUseTool: expected a function"]);
    const jobId = params.jobId ?? randomUUID();
    const trace = await currentTraceContext();
    const data = this.protect(jobId, {
      ...toJobData(
        params.prompt,
        (params.options ?? {}) as Record<string, unknown>,
        params.timeoutMs,
        canUseTool ? (params.permissionTimeoutMs ?? 60_000) : undefined,
      ),
      ...(trace ? { trace } : {}),
    });
    const job = await this.redisCall("enqueue", jobId, () =>
      this.queue.add("agent-run", data, {
        jobId,
        attempts: params.attempts ?? 3,
        backoff: { type: "exponential", delay: params.backoffMs ?? 1_000 },
        ...(params.priority !== undefined ? { priority: params.priority } : {}),
        removeOnComplete: { age: 3_600, count: 10_000 },
        removeOnFail: { age: 24 * 3_600 },
      }),
    );
    if (job.id === undefined) throw new Error("BullMQ returned a job without an id");
    if (canUseTool) this.answerPermissions(job.id, canUseTool, data.remotePermissions?.timeoutMs ?? 60_000);
    return this.run(job.id);
  }

  /**
   * The job as it goes to Redis: with the run's public key (the worker then obeys only this
   * producer's decisions and cancellations) and, with a queue key, its env sealed and a MAC.
   */
  private protect(jobId: string, data: AgentJobData): AgentJobData {
    const withKey: AgentJobData = { ...data, auth: { runKey: this.runKeys.publicKey(jobId) } };
    if (!this.queueKey) return withKey;
    const { env, ...options } = withKey.options as Record<string, unknown>;
    const sealed: AgentJobData =
      env === undefined
        ? withKey
        : {
            ...withKey,
            options: options as RemoteAgentOptions,
            sealedEnv: this.queueKey.seal(jobId, env as Record<string, string | null>),
          };
    return { ...sealed, mac: this.queueKey.jobMac(jobId, JSON.stringify(sealed)) };
  }

  /** A handle on a run enqueued earlier (by this or another producer), by job id. */
  run(jobId: string): AgentRun {
    this.assertOpen();
    return new QueuedRun(this, jobId);
  }

  /**
   * Closes the producer's connections; iterations in progress end with {@link QueueClosedError}.
   * Resolves within about `reconnectTimeoutMs` also when Redis is gone.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.permissionAbort.abort(new QueueClosedError());
    // Its waiting reads fail with this; each iteration then ends with a QueueClosedError naming its run.
    this.reader?.close(new Error("the producer was closed"));
    await closeBullQueue(this.queue, this.reconnectTimeoutMs, this.onError);
    await closeConnection(this.bullRedis);
    await closeConnection(this.commands);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * @internal Every entry of a run's stream, from the start, without duplicates. Fails with
   * {@link QueueConnectionError} (Redis gone for longer than `reconnectTimeoutMs`, or a command
   * failed), {@link QueueClosedError} (the producer closed), {@link QueueProtocolError} (a
   * malformed entry) or {@link StreamGapError} (entries trimmed before they were read).
   */
  async *entries(jobId: string): AsyncGenerator<RunEntry, void, undefined> {
    this.assertOpen();
    const reader = this.streamReader();
    const key = this.keys.messages(jobId);
    const idleMs = this.idleCheckMs;
    const order = new EntryOrder(jobId);
    const signer = this.queueKey?.entries(key);
    const operation = "reading the run's stream";
    let last = "0-0";
    for (;;) {
      let items = await this.redisCall(operation, jobId, () => reader.read(key, last, idleMs));
      if (!items) {
        const ended = await this.redisCall(operation, jobId, () => this.endFromJobState(jobId));
        if (!ended) continue;
        // The state is final; whatever the worker wrote before it is read before the verdict.
        items = await this.redisCall(
          operation,
          jobId,
          async () =>
            streamReply(await this.commands.xread("COUNT", READ_COUNT, "STREAMS", key, last)).get(key) ??
            null,
        );
        if (!items?.length) {
          yield ended;
          return;
        }
      }
      for (const [id, fields] of items) {
        last = id;
        if (signer && !this.authentic(jobId, id, fields, signer)) continue;
        const decoded = decodeStreamEntry(fields);
        if (decoded.problem !== undefined) throw new QueueProtocolError(jobId, id, decoded.problem);
        for (const part of decoded.parts) {
          const entry = this.accept(jobId, id, part, order);
          if (!entry) continue;
          yield entry;
          if (entry.kind === "end") return;
        }
      }
    }
  }

  /**
   * One entry of a stream entry: the entry, or `undefined` for a duplicate or an entry of a kind
   * this version does not know (reported to `onError` as {@link QueueProtocolError}, then skipped);
   * {@link StreamGapError} thrown for entries missing before it.
   */
  private accept(
    jobId: string,
    entryId: string,
    part: NonNullable<DecodedStreamEntry["parts"]>[number],
    order: EntryOrder,
  ): RunEntry | undefined {
    if (part.entry) return order.accept(part.entry) ? part.entry : undefined;
    if (order.accept(part.unknown)) this.onError(new QueueProtocolError(jobId, entryId, part.problem));
    return undefined;
  }

  /**
   * With a queue key: whether a stream entry carries a valid MAC (was written by a holder of the
   * key: the run's worker, or this producer's cancel). Forged ones are reported and skipped.
   */
  private authentic(jobId: string, entryId: string, fields: unknown, signer: EntrySigner): boolean {
    if (Array.isArray(fields) && fields.every((f) => typeof f === "string") && signer.verify(fields))
      return true;
    this.onError(
      new Error(
        `Ignored entry ${entryId} of run ${jobId}: not written by a holder of the queue key (forged?)`,
      ),
    );
    return false;
  }

  /**
   * @internal Runs a Redis call of `operation`; its failure becomes a typed error (see
   * {@link typedFailure}).
   */
  async redisCall<T>(operation: string, jobId: string | undefined, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.typedFailure(error, operation, jobId);
    }
  }

  /**
   * A failed Redis call as the caller sees it: {@link QueueClosedError} once the producer is closed
   * (its connections were cut), our own errors as they are, anything else (the connection gave up,
   * a command failed) as {@link QueueConnectionError} with what was going on.
   */
  private typedFailure(error: unknown, operation: string, jobId: string | undefined): Error {
    if (error instanceof AgentSdkError) return error;
    if (this.closed) return new QueueClosedError(jobId, error);
    return new QueueConnectionError(address(this.options.connection), this.reconnectTimeoutMs, error, {
      operation,
      ...(jobId !== undefined ? { jobId } : {}),
    });
  }

  /** The reader of this producer's runs' streams (connections of its own), made at the first read. */
  private streamReader(): StreamReader {
    if (!this.reader) {
      // A lane's XREAD blocks up to idleCheckMs: Redis may be silent that much longer.
      const socketTimeout = answerBoundMs(this.options, this.idleCheckMs);
      const open = () => {
        const connection = this.commands.duplicate({ socketTimeout });
        connection.on("error", this.onError);
        return connection;
      };
      const id = randomUUID();
      this.reader = new StreamReader(open, this.commands, (lane) => this.keys.wake(`${id}-${lane}`));
      // Made after the connections gave up: its reads fail at once, as those of an older one do.
      if (this.commands.status === "end") this.reader.close(connectionClosedError());
    }
    return this.reader;
  }

  /** Follows a run in the background and answers its permission requests with `canUseTool`. */
  private answerPermissions(jobId: string, canUseTool: CanUseTool, timeoutMs: number): void {
    const task = (async () => {
      const answered = new Set<string>();
      for await (const entry of this.entries(jobId)) {
        if (entry.kind !== "permission" || answered.has(entry.requestId)) continue;
        answered.add(entry.requestId);
        const decision = await decide(canUseTool, entry, this.permissionAbort.signal, timeoutMs);
        if (!decision) continue; // the worker has denied it already
        const key = this.keys.decision(jobId, entry.requestId);
        const d = decisionText(decision);
        const s = this.runKeys.signDecision(jobId, entry.requestId, d);
        await this.commands.lpush(key, JSON.stringify({ d, s }));
        await this.commands.expire(key, 3_600);
      }
    })().catch((error: unknown) => {
      if (!this.closed) this.onError(this.typedFailure(error, "answering permission requests", jobId));
    });
    this.permissionTasks.add(task);
    void task.finally(() => this.permissionTasks.delete(task));
  }

  /** @internal Records a cancellation and tells the worker running the job. */
  async cancel(jobId: string, mode: CancelMode): Promise<void> {
    this.assertOpen();
    // An abort is stored too, for a worker that takes the job later or was reconnecting; an
    // interrupt concerns the turn running now only (a stored one would hit a later retry's turn).
    // Signed with the run's key: workers obey only the producer that enqueued the run.
    const nonce = randomUUID();
    const sig = this.runKeys.signCancel(jobId, mode, nonce);
    if (mode === "abort")
      await this.commands.set(
        this.keys.cancel(jobId),
        JSON.stringify({ mode, nonce, sig }),
        "EX",
        24 * 3_600,
      );
    await this.commands.publish(this.keys.control(), JSON.stringify({ jobId, mode, nonce, sig }));
    if (mode !== "abort") return;
    // A job no worker holds yet is removed here (remove() refuses a locked, i.e. running, job);
    // the stream then needs its final entry from us.
    const removed = await this.queue.remove(jobId).catch(() => 0);
    if (removed) {
      const fields = encodeEntries([{ kind: "end", attempt: 0, seq: 0, status: "aborted" }]);
      const signer = this.queueKey?.entries(this.keys.messages(jobId));
      await this.commands.xadd(this.keys.messages(jobId), "*", ...(signer ? signer.sign(fields) : fields));
      await this.commands.expire(this.keys.messages(jobId), 3_600);
    }
  }

  /** The run's final entry derived from BullMQ when the job is over but its stream has no end. */
  private async endFromJobState(jobId: string): Promise<RunEntry | undefined> {
    const job = await this.queue.getJob(jobId);
    const lost = { kind: "end", attempt: 0, seq: 0, status: "failed" } as const;
    if (!job) {
      return {
        ...lost,
        error: { name: "JobNotFound", message: `No job ${jobId} in the queue`, retryable: false },
      };
    }
    const state = await job.getState();
    if (state === "failed") {
      return {
        ...lost,
        error: { name: "JobFailed", message: job.failedReason || "the job failed", retryable: false },
      };
    }
    if (state === "completed") {
      const result = (job.returnvalue as { result?: ResultMessage } | null)?.result;
      return result ? { ...lost, status: "completed", result } : lost;
    }
    return undefined;
  }

  private assertOpen(): void {
    if (this.closed) throw new QueueClosedError();
  }
}

/**
 * Runs the producer's `canUseTool` on a request from the stream; a throw denies with its message.
 * `undefined` once the worker has stopped waiting (`timeoutMs`): the callback's signal then aborts.
 */
async function decide(
  canUseTool: CanUseTool,
  entry: Extract<RunEntry, { kind: "permission" }>,
  closed: AbortSignal,
  timeoutMs: number,
): Promise<PermissionResult | undefined> {
  const expired = AbortSignal.timeout(timeoutMs);
  const signal = combineSignals(closed, expired);
  const gaveUp = new Promise<undefined>((resolve) =>
    signal.addEventListener("abort", () => resolve(undefined)),
  );
  try {
    return await Promise.race([
      Promise.resolve(canUseTool(entry.toolName, entry.input, { ...entry.context, signal })),
      gaveUp,
    ]);
  } catch (error) {
    return { behavior: "deny", message: error instanceof Error ? error.message : describeError(error) };
  }
}

/**
 * A decision as the JSON sent to the worker; one that JSON cannot carry (a BigInt, a cycle, a
 * throwing getter) is sent as a denial saying so, so the run goes on and the producer's
 * connection is not blamed.
 */
function decisionText(decision: PermissionResult): string {
  const sent = trySerialise(decision);
  if (sent.ok) return sent.line;
  return JSON.stringify({
    behavior: "deny",
    message: `canUseTool answered something that cannot be sent to the worker (${sent.problem})`,
  });
}

/**
 * Keeps a reader's entries in order: per attempt, each `seq` once (a write re-sent after a Redis
 * reconnect lands twice; the second copy is dropped) and none missing — a `seq` beyond the next
 * one, or an attempt read first beyond its `seq` 0, means the worker's trimming (`streamMaxLen`)
 * removed entries this reader had not read: {@link StreamGapError}.
 */
class EntryOrder {
  private readonly next = new Map<number, number>();
  constructor(private readonly jobId: string) {}

  /** Whether to deliver `entry` (false: a duplicate); throws on a gap. */
  accept(entry: { attempt: number; seq: number }): boolean {
    const next = this.next.get(entry.attempt) ?? 0;
    if (entry.seq < next) return false;
    if (entry.seq > next) throw new StreamGapError(this.jobId, entry.attempt, next, entry.seq);
    this.next.set(entry.attempt, next + 1);
    return true;
  }
}

/**
 * Closes a BullMQ queue; when that has not finished within `boundMs` (its connections wait for a
 * Redis that is gone), cuts them.
 */
async function closeBullQueue(queue: Queue, boundMs: number, onError: (error: Error) => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closing = queue.close().catch((error: unknown) => {
    // A connection that already gave up fails its QUIT: nothing is left open then.
    if (!isConnectionClosed(error)) onError(error instanceof Error ? error : new Error(describeError(error)));
  });
  const bound = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), boundMs);
  });
  try {
    if ((await Promise.race([closing, bound])) === "late") await queue.disconnect().catch(() => {});
  } finally {
    clearTimeout(timer);
  }
}

class QueuedRun implements AgentRun {
  constructor(
    private readonly queue: AgentQueue,
    readonly id: string,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<Message> {
    return this.messages()[Symbol.asyncIterator]();
  }

  async *messages(): AsyncGenerator<Message, void, undefined> {
    const retries = new RetryTracker();
    for await (const entry of this.queue.entries(this.id)) {
      const retry = retries.see(entry);
      if (retry) yield retry;
      if (entry.kind === "message") yield entry.message;
      else if (entry.kind === "end") outcome(this.id, entry);
    }
  }

  async result(): Promise<ResultMessage> {
    for await (const entry of this.queue.entries(this.id))
      if (entry.kind === "end") return outcome(this.id, entry);
    throw new RemoteRunError(this.id, {
      name: "StreamEnded",
      message: "the run's stream ended",
      retryable: false,
    });
  }

  async collect(): Promise<CollectedRun> {
    const messages: Message[] = [];
    const retries = new RetryTracker();
    for await (const entry of this.queue.entries(this.id)) {
      const retry = retries.see(entry);
      if (retry) messages.push(retry);
      if (entry.kind === "message") messages.push(entry.message);
      else if (entry.kind === "end") return { messages, result: outcome(this.id, entry) };
    }
    throw new RemoteRunError(this.id, {
      name: "StreamEnded",
      message: "the run's stream ended",
      retryable: false,
    });
  }

  cancel(mode: CancelMode = "abort"): Promise<void> {
    return this.queue.redisCall(`cancel (${mode})`, this.id, () => this.queue.cancel(this.id, mode));
  }
}

/**
 * Turns the start of a second or later attempt into a `queue_retry` system message, with the error
 * of the attempt before (a worker that died leaves none: it is reported as lost).
 */
class RetryTracker {
  private started = false;
  private lastError: SerializedRunError | undefined;

  see(entry: RunEntry): Message | undefined {
    if (entry.kind === "retry") this.lastError = entry.error;
    if (entry.kind !== "start") return undefined;
    const first = !this.started;
    this.started = true;
    if (first) return undefined;
    const error = this.lastError ?? {
      name: "WorkerLost",
      message: "the worker running the previous attempt stopped answering (it died or lost Redis)",
      retryable: true,
    };
    this.lastError = undefined;
    const data = { attempt: entry.attempt, worker: entry.worker, error };
    return {
      type: "system",
      subtype: "queue_retry",
      data,
      raw: { type: "system", subtype: "queue_retry", ...data },
    };
  }
}

/** The result of an `end` entry, or the error it stands for. */
function outcome(jobId: string, entry: Extract<RunEntry, { kind: "end" }>): ResultMessage {
  if (entry.status === "aborted") throw new AbortError(`The queued run ${jobId} was aborted`);
  if (entry.status === "completed" && entry.result) return entry.result;
  throw new RemoteRunError(
    jobId,
    entry.error ?? { name: "NoResult", message: "the run ended without a result message", retryable: false },
  );
}

/** `idleCheckMs` of `options`, checked. */
const idleCheckOf = (options: Pick<AgentQueueOptions, "idleCheckMs">) =>
  millisecondsOption("idleCheckMs", options.idleCheckMs, 2_000);
