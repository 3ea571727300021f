/**
 * The worker side: takes agent runs off the queue and runs each with `query()` on this machine,
 * streaming its messages into the run's Redis stream.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Job, Worker } from "bullmq";
import type { Redis } from "ioredis";
import {
  AbortError,
  CliConnectionError,
  ControlTimeoutError,
  InvalidOptionsError,
  JsonDecodeError,
  ProcessError,
} from "../errors.js";
import type { Message, ResultMessage } from "../messages.js";
import type { ResolvedOptions } from "../options/resolved.js";
import type { CanUseTool, PermissionResult, PermissionResultAllow } from "../permissions.js";
import { type Query, query } from "../query.js";
import { telemetryWanted } from "../telemetry/load.js";
import { describeError } from "../wire/safe-json.js";
import { type AdmittedJob, admitJob } from "./admit.js";
import { QueueKey, type RunVerifier } from "./auth.js";
import {
  address,
  answerBoundMs,
  BULLMQ_MAX_BLOCK_MS,
  closeConnection,
  connectionClosedError,
  isConnectionClosed,
  openBullRedis,
  openReachableRedis,
  type QueueConnectionOptions,
  QueueKeys,
  reconnectTimeoutOf,
  responseTimeoutOf,
  typedConnectionError,
} from "./connection.js";
import { loadQueueDeps, type QueueDeps } from "./deps.js";
import { type RunEntry, serializeError } from "./entries.js";
import { JobRefusedError, QueueConnectionError, RunTimeoutError } from "./errors.js";
import { checkAcceptance, durationIssue, type JobAcceptance } from "./job-policy.js";
import { StreamWriter } from "./stream-writer.js";
import { startWatchdog, type Watchdog } from "./watchdog.js";

/** The longest one BLPOP for a permission decision blocks (a longer wait takes several). */
const WAIT_SLICE_MS = 10_000;

/** What a worker knows about a job when it resolves the job's options. */
export interface RunInfo {
  jobId: string;
  /** 1 for the first attempt, 2 for the first retry, … */
  attempt: number;
}

/** Options of {@link AgentWorker.start}. */
export interface AgentWorkerOptions extends QueueConnectionOptions {
  /** Runs at once on this worker (each is a CLI process). Default 2. */
  concurrency?: number;
  /**
   * Time limit of a run whose producer set none, in milliseconds. Default 1 800 000 (30 min). At
   * most 2^31−1 (a job's `timeoutMs` too: a longer one is refused).
   */
  defaultTimeoutMs?: number;
  /**
   * Which job fields this worker takes from producers beyond the safe set (deny by default: see
   * {@link JobAcceptance}). A job with any other field is refused with `JobRefusedError` before
   * anything is spawned; the producer's `result()` rejects with a `RemoteRunError` naming each field.
   */
  accept?: JobAcceptance;
  /**
   * The queue's shared key (at least 32 bytes; the same on the producers): with it, this worker
   * refuses jobs not made by a producer holding it (raw BullMQ jobs), decrypts the env producers
   * seal with it, and authenticates every entry it writes to a run's stream.
   */
  key?: string | Uint8Array;
  /**
   * This machine's share of the options, applied after the job is accepted: an object laid over
   * each job's options (its fields win: `cliPath`, `cwd`, `env`, callbacks such as `canUseTool`,
   * `hooks` or `stderr`), or a function that returns the options to run a job with (to refuse or
   * rewrite what producers send — throwing refuses the run without retry). When the result has no
   * `settingSources`, a Claude run gets `[]`: no settings files of the checkout (or the user) are
   * loaded unless the operator sets it.
   */
  options?:
    | ResolvedOptions
    | ((jobOptions: ResolvedOptions, info: RunInfo) => ResolvedOptions | Promise<ResolvedOptions>);
  /**
   * How long a job's lock lasts without a heartbeat, in milliseconds: when a worker dies, its
   * jobs are retried elsewhere after about this long (plus `stalledIntervalMs`). Default 30 000.
   */
  lockDurationMs?: number;
  /** How often this worker looks for jobs whose worker died, in milliseconds. Default 30 000. */
  stalledIntervalMs?: number;
  /** How often a job may lose its worker before it fails instead of running again. Default 1. */
  maxStalledCount?: number;
  /**
   * Stream entries kept per run stream (older ones are trimmed). Each holds the messages written
   * together, up to 64. Default 10 000.
   */
  streamMaxLen?: number;
  /** How long a finished run's stream stays readable, in seconds. Default 3 600. */
  retentionSeconds?: number;
  /**
   * Start the watchdog process that SIGKILLs this worker's CLI process groups if the worker is
   * killed outright (see docs/queue.md). Default true (ignored on Windows).
   */
  watchdog?: boolean;
  /** Errors that belong to no run (Redis connection trouble, a failed interrupt). Default: `process.emitWarning`. */
  onError?: (error: Error) => void;
  /**
   * Sees each message on this machine as the run produces it, before it is sent to the stream
   * (logging, metrics). It must not throw.
   */
  onMessage?: (message: Message, info: RunInfo) => void;
  /** Shown in each attempt's `start` entry. Default `hostname:pid`. */
  name?: string;
}

/** Options of {@link AgentWorker.close}. */
export interface WorkerCloseOptions {
  /**
   * How long running jobs may go on finishing, in milliseconds; after that their CLIs are closed
   * and the jobs go back to the queue for another worker (no attempt is used up). Default 30 000.
   */
  graceMs?: number;
}

/** Why a run was stopped from outside its CLI. */
type StopReason = "abort" | "timeout" | "shutdown";

interface ActiveRun {
  readonly controller: AbortController;
  /** Checks the producer's signature on cancellations; none for a job without a run key. */
  readonly verifier: RunVerifier | undefined;
  /** Nonces of the cancellations seen, so a copied one is not obeyed twice. */
  readonly nonces: Set<string>;
  query?: Query;
  stopReason?: StopReason;
}

/**
 * A worker: runs queued agent runs on this machine, `concurrency` at a time. Start as many as you
 * like, on as many machines as you like, against the same Redis.
 */
export class AgentWorker implements AsyncDisposable {
  private readonly active = new Map<string, ActiveRun>();
  private closing: Promise<void> | undefined;
  /** Set when {@link shutDown} closes our connections: their `end` is then no loss of Redis. */
  private connectionsClosing = false;
  /** Until {@link open} has finished: a loss of Redis then fails the start instead. */
  private starting = true;
  /** Set once a closing worker's grace period is over: a run that registers later is stopped at once. */
  private graceOver = false;
  /** Called when the last run ends (see {@link whenIdle}). */
  private idleWaiters: (() => void)[] = [];
  private readonly keys: QueueKeys;
  private readonly name: string;
  private readonly onError: (error: Error) => void;
  private worker!: Worker;
  private subscriber!: Redis;
  private commands!: Redis;
  /** The connection BullMQ's worker duplicates for its own (never connected itself). */
  private bullRedis!: Redis;
  private watchdog: Watchdog | undefined;
  private readonly accept: JobAcceptance;
  private readonly key: QueueKey | undefined;

  private constructor(private readonly options: AgentWorkerOptions) {
    const issues = [
      durationIssue("defaultTimeoutMs", options.defaultTimeoutMs),
      ...(options.options !== undefined &&
      typeof options.options !== "function" &&
      typeof options.options !== "object"
        ? ["options: expected an object or a function"]
        : []),
    ].filter((issue) => issue !== undefined);
    if (issues.length > 0) throw new InvalidOptionsError(issues);
    reconnectTimeoutOf(options);
    responseTimeoutOf(options);
    this.accept = checkAcceptance(options.accept);
    this.key = QueueKey.from(options.key);
    this.keys = new QueueKeys(options.prefix ?? "code-agent", options.queueName ?? "agent-runs");
    this.name = options.name ?? `${hostname()}:${process.pid}`;
    this.onError = options.onError ?? ((error) => process.emitWarning(error));
  }

  /**
   * Connects to Redis and starts taking jobs. Rejects with `QueueDependencyError` when `bullmq` or
   * `ioredis` is not installed.
   */
  static async start(options: AgentWorkerOptions): Promise<AgentWorker> {
    const worker = new AgentWorker(options);
    const deps = await loadQueueDeps();
    try {
      await worker.open(deps);
    } catch (error) {
      // Redis went away (or stopped answering) while the worker was starting: what it opened goes.
      worker.abandon();
      throw typedConnectionError(options, error, "starting the worker");
    }
    return worker;
  }

  /** Cuts whatever {@link open} got to open, at once (a start that failed). */
  private abandon(): void {
    this.connectionsClosing = true;
    this.starting = false;
    // Each is unset until open() got to it.
    for (const connection of [this.subscriber, this.commands, this.bullRedis] as (Redis | undefined)[])
      connection?.disconnect();
    void (this.worker as Worker | undefined)?.disconnect().catch(() => {});
    this.watchdog?.stop();
  }

  /** Runs in progress on this worker. */
  get running(): number {
    return this.active.size;
  }

  /** The pid of the watchdog process, when there is one. */
  get watchdogPid(): number | undefined {
    return this.watchdog?.pid;
  }

  private async open(deps: QueueDeps): Promise<void> {
    this.commands = await openReachableRedis(deps, this.options, "code-agent-worker");
    if (this.options.watchdog !== false) this.watchdog = startWatchdog(this.onError);
    this.subscriber = this.commands.duplicate();
    const report = (error: unknown) =>
      this.onError(typedConnectionError(this.options, error, "the worker's Redis connection"));
    this.subscriber.on("error", report);
    this.commands.on("error", report);
    // A connection that gave up (Redis gone for reconnectTimeoutMs) ends: nothing this worker does
    // can reach Redis any more, so it says so and closes, stopping its runs at once.
    for (const connection of [this.commands, this.subscriber]) connection.once("end", () => this.lostRedis());
    this.subscriber.on("message", (_channel: string, payload: string) => this.onControl(payload));
    // After a reconnect, cancellations published while we were away are in their keys.
    this.subscriber.on("ready", () => void this.recheckCancellations());
    await this.subscriber.subscribe(this.keys.control());
    // BullMQ duplicates this one for its blocking connection too (BZPOPMIN, up to 10 s).
    this.bullRedis = openBullRedis(deps, this.options, "code-agent-worker-bullmq", BULLMQ_MAX_BLOCK_MS);
    this.worker = new deps.bullmq.Worker(
      this.keys.queueName,
      (job, token) => this.process(deps, job, token),
      {
        // A template: BullMQ duplicates it for each of its connections (all of them ours).
        connection: this.bullRedis,
        prefix: this.keys.prefix,
        concurrency: this.options.concurrency ?? 2,
        lockDuration: this.options.lockDurationMs ?? 30_000,
        stalledInterval: this.options.stalledIntervalMs ?? 30_000,
        maxStalledCount: this.options.maxStalledCount ?? 1,
        autorun: false,
      },
    );
    this.worker.on("error", report);
    void this.worker.run().catch(report);
    await this.worker.waitUntilReady();
    // A connection that gave up meanwhile (its loss was left to this start) fails the start.
    if (this.commands.status === "end" || this.subscriber.status === "end") throw connectionClosedError();
    this.starting = false;
  }

  /**
   * Stops taking jobs, lets running ones finish for `graceMs`, then closes their CLIs and puts the
   * jobs back in the queue; resolves when nothing runs and every connection is closed. With Redis
   * gone it still resolves: within about `graceMs` + `reconnectTimeoutMs` (what the runs still
   * write fails once the connections give up; BullMQ's own closing is cut after `reconnectTimeoutMs`).
   */
  close(options: WorkerCloseOptions = {}): Promise<void> {
    this.closing ??= this.shutDown(options.graceMs ?? 30_000);
    return this.closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private async shutDown(graceMs: number): Promise<void> {
    const bound = reconnectTimeoutOf(this.options);
    const drained = this.worker.close().then(
      () => true,
      (error: unknown) => {
        // A connection that already gave up fails BullMQ's QUIT: nothing is left open then.
        if (!isConnectionClosed(error))
          this.onError(typedConnectionError(this.options, error, "closing the worker"));
        return true;
      },
    );
    const grace = setTimeout(() => {
      this.graceOver = true;
      for (const run of this.active.values()) this.stop(run, "shutdown");
    }, graceMs);
    let deadline: NodeJS.Timeout | undefined;
    try {
      // BullMQ's close waits for the runs, which end within the grace period (then their CLIs are
      // closed) plus what their last writes take (bounded by the connections' reconnect limit).
      // Once none is left, BullMQ gets `bound` to finish; with Redis gone its connections can keep
      // retrying, and are cut.
      const closed = await Promise.race([drained, this.whenIdle().then(() => false)]);
      const late = new Promise<false>((resolve) => {
        deadline = setTimeout(() => resolve(false), bound);
      });
      if (!closed && !(await Promise.race([drained, late]))) {
        this.onError(
          new QueueConnectionError(address(this.options.connection), bound, undefined, {
            operation: "closing the worker's BullMQ connections (cut after reconnectTimeoutMs)",
          }),
        );
        // Not awaited: with its connections gone BullMQ's disconnect can wait forever too.
        void this.worker.disconnect().catch(() => {});
      }
    } finally {
      clearTimeout(grace);
      clearTimeout(deadline);
    }
    this.connectionsClosing = true;
    await closeConnection(this.subscriber);
    await closeConnection(this.commands);
    this.bullRedis.disconnect();
    this.watchdog?.stop();
  }

  /** Resolves when no run is in progress. */
  private whenIdle(): Promise<void> {
    if (this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** A run ended: forgets it, and wakes {@link whenIdle} when it was the last. */
  private release(jobId: string): void {
    this.active.delete(jobId);
    if (this.active.size > 0) return;
    for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /** One of our connections gave up on Redis (not during close): report, then close at once. */
  private lostRedis(): void {
    // While starting, the start itself fails (see {@link start}); nothing runs yet.
    if (this.connectionsClosing || this.starting) return;
    // BullMQ's connections are cut too: its calls in flight (a job's move back to the queue, a lock
    // renewal) then fail now, not after their own wait for a Redis that no longer answers.
    void this.worker.disconnect().catch(() => {});
    if (this.closing) return;
    this.onError(
      new QueueConnectionError(
        address(this.options.connection),
        reconnectTimeoutOf(this.options),
        connectionClosedError(),
        { operation: "the worker (it gave up on Redis and closes, stopping its runs)" },
      ),
    );
    void this.close({ graceMs: 0 });
  }

  private stop(run: ActiveRun, reason: StopReason): void {
    run.stopReason ??= reason;
    run.controller.abort(new AbortError(`Run stopped: ${reason}`));
  }

  private onControl(payload: string): void {
    let message: { jobId?: unknown; mode?: unknown; nonce?: unknown; sig?: unknown };
    try {
      message = JSON.parse(payload) as typeof message;
    } catch (error) {
      this.onError(
        new Error(`Malformed control message on ${this.keys.control()}: ${payload}`, { cause: error }),
      );
      return;
    }
    if (typeof message.jobId !== "string") return;
    const run = this.active.get(message.jobId);
    if (!run) return; // another worker's job, or one that has not started (it reads the key at start)
    const mode = message.mode === "interrupt" ? "interrupt" : "abort";
    if (this.signedCancel(message.jobId, run, { ...message, mode })) this.cancel(message.jobId, run, mode);
  }

  /**
   * Whether a cancellation comes from the run's producer: signed with the run key (a job without
   * one, a raw BullMQ job, has no producer to tell apart). A forged or copied one is reported.
   */
  private signedCancel(
    jobId: string,
    run: Pick<ActiveRun, "verifier" | "nonces">,
    cancel: { mode: string; nonce?: unknown; sig?: unknown },
  ): boolean {
    if (!run.verifier) return true;
    const nonce = typeof cancel.nonce === "string" ? cancel.nonce : "";
    const valid = run.verifier.cancel(jobId, cancel.mode, nonce, cancel.sig);
    // An abort is final, so a copy does no harm (and the stored one is read again on reconnect).
    const replayed = valid && cancel.mode === "interrupt" && run.nonces.has(nonce);
    if (valid && !replayed) {
      run.nonces.add(nonce);
      return true;
    }
    this.onError(
      new Error(
        `Ignored ${replayed ? "a replayed" : "an unsigned or forged"} ${cancel.mode} of run ${jobId}: ` +
          "only the producer that enqueued a run can cancel it",
      ),
    );
    return false;
  }

  /** The stored cancellation of a run (`{ mode, nonce, sig }` JSON), when it is a signed abort. */
  private storedAbort(
    jobId: string,
    run: Pick<ActiveRun, "verifier" | "nonces">,
    stored: string | null,
  ): boolean {
    if (stored === null) return false;
    let cancel: { mode?: unknown; nonce?: unknown; sig?: unknown } = { mode: stored };
    try {
      if (stored.startsWith("{")) cancel = JSON.parse(stored) as typeof cancel;
    } catch {
      // not ours: judged as an unsigned abort below
    }
    return cancel.mode === "abort" && this.signedCancel(jobId, run, { ...cancel, mode: "abort" });
  }

  private cancel(jobId: string, run: ActiveRun, mode: "interrupt" | "abort"): void {
    if (mode === "abort") {
      this.stop(run, "abort");
      return;
    }
    run.query
      ?.interrupt()
      .catch((error: unknown) =>
        this.onError(new Error(`Interrupting run ${jobId} failed`, { cause: error })),
      );
  }

  /** Aborts the running jobs whose abort is stored (it may have been published while we were away). */
  private async recheckCancellations(): Promise<void> {
    const ids = [...this.active.keys()];
    if (ids.length === 0) return;
    try {
      const modes = await this.commands.mget(ids.map((id) => this.keys.cancel(id)));
      ids.forEach((id, i) => {
        const run = this.active.get(id);
        if (run && !run.stopReason && this.storedAbort(id, run, modes[i] ?? null))
          this.cancel(id, run, "abort");
      });
    } catch (error) {
      this.onError(error as Error);
    }
  }

  /** The BullMQ processor: one attempt of one run. */
  private async process(
    deps: QueueDeps,
    job: Job,
    token: string | undefined,
  ): Promise<{ result: ResultMessage }> {
    const jobId = job.id as string;
    const attempt = Math.max(job.attemptsStarted, 1);
    const stream = new StreamWriter(
      this.commands,
      this.keys.messages(jobId),
      attempt,
      this.options.streamMaxLen ?? 10_000,
      this.key?.entries(this.keys.messages(jobId)),
      (error) =>
        typedConnectionError(this.options, error, `writing the stream of run ${jobId} (attempt ${attempt})`),
    );
    // Checked here, on the worker, whoever added the job: nothing is spawned for a refused one.
    let data: AdmittedJob;
    try {
      data = await admitJob(jobId, job.data, this.accept, this.key);
    } catch (error) {
      const refused = error instanceof JobRefusedError ? error : new JobRefusedError(jobId, [String(error)]);
      await stream.add({ kind: "start", worker: this.name });
      await this.finish(stream, "failed", { error: serializeError(refused, false) });
      throw new deps.bullmq.UnrecoverableError(refused.message);
    }
    const run: ActiveRun = { controller: new AbortController(), verifier: data.verifier, nonces: new Set() };
    // Registered before the stored abort is read: one published from here on reaches the run through
    // the subscription, and one published before is in the key by then (the producer stores an abort
    // before it publishes it).
    this.active.set(jobId, run);
    let timer: NodeJS.Timeout | undefined;
    const timeoutMs = data.timeoutMs ?? this.options.defaultTimeoutMs ?? 1_800_000;
    try {
      if (this.graceOver) this.stop(run, "shutdown");
      // Issued together (one round trip), the start entry first (the EXPIRE needs the stream): a
      // cancelled run's stream then shows its start and its end.
      const started = stream.add({ kind: "start", worker: this.name });
      stream.send();
      const [cancelled] = await Promise.all([
        this.commands.get(this.keys.cancel(jobId)),
        started,
        this.commands.expire(this.keys.messages(jobId), 7 * 24 * 3_600),
      ]);
      if (run.stopReason === "abort" || this.storedAbort(jobId, run, cancelled)) {
        await this.finish(stream, "aborted", {});
        throw new deps.bullmq.UnrecoverableError("aborted by the producer before it started");
      }
      timer = setTimeout(() => this.stop(run, "timeout"), timeoutMs);
      return await this.runQuery(deps, job, token, stream, run, data, attempt, timeoutMs);
    } finally {
      clearTimeout(timer);
      this.release(jobId);
    }
  }

  /** The query of one attempt, its messages into the stream, its end (see {@link process}). */
  private async runQuery(
    deps: QueueDeps,
    job: Job,
    token: string | undefined,
    stream: StreamWriter,
    run: ActiveRun,
    data: AdmittedJob,
    attempt: number,
    timeoutMs: number,
  ): Promise<{ result: ResultMessage }> {
    const jobId = job.id as string;
    try {
      const options = await this.runOptions(data.options, { jobId, attempt });
      const remote = data.remotePermissions && !options.canUseTool ? data.remotePermissions : undefined;
      const verifier = data.verifier;
      const q = query({
        prompt: data.prompt,
        options: {
          ...options,
          ...(remote && verifier
            ? { canUseTool: this.askProducer(jobId, stream, remote.timeoutMs, verifier) }
            : {}),
          // The producer's span parents the run's spans, when this run has telemetry at all.
          ...(data.trace && telemetryWanted(options)
            ? { telemetry: { ...options.telemetry, parent: data.trace } }
            : {}),
          signal: run.controller.signal,
        },
      });
      run.query = q;
      let result: ResultMessage | undefined;
      const onMessage = this.options.onMessage;
      const info = { jobId, attempt };
      for await (const message of q) {
        onMessage?.(message, info);
        await stream.add({ kind: "message", message });
        if (message.type === "result") result = message;
      }
      if (run.stopReason) throw run.controller.signal.reason;
      if (!result) throw new ProcessError("The CLI ended without a result message", { exitCode: null });
      // The end entry goes out with the last messages (one XADD, one round trip); a write of theirs
      // that failed fails the attempt here as before.
      await this.finish(stream, "completed", { result });
      return { result };
    } catch (error) {
      throw await this.failAttempt(deps, job, token, stream, run, error, timeoutMs);
    }
  }

  /** Records a failed attempt in the stream; returns what to throw at BullMQ. */
  private async failAttempt(
    deps: QueueDeps,
    job: Job,
    token: string | undefined,
    stream: StreamWriter,
    run: ActiveRun,
    error: unknown,
    timeoutMs: number,
  ): Promise<Error> {
    await stream.flush().catch(this.onError);
    const { UnrecoverableError, WaitingError } = deps.bullmq;
    switch (run.stopReason) {
      case "abort":
        await this.finish(stream, "aborted", {});
        return new UnrecoverableError("aborted by the producer");
      case "timeout": {
        const timeout = new RunTimeoutError(timeoutMs);
        await this.finish(stream, "failed", { error: serializeError(timeout, false) });
        return new UnrecoverableError(timeout.message);
      }
      case "shutdown": {
        const reason = new AbortError(`worker ${this.name} shut down before the run finished`);
        await stream.add({ kind: "retry", error: serializeError(reason, true) });
        await stream.flush().catch(this.onError);
        await job.moveToWait(token);
        return new WaitingError(reason.message);
      }
    }
    const retryable = isCliCrash(error);
    const attempts = job.opts.attempts ?? 1;
    const willRetry = retryable && job.attemptsMade + 1 < attempts;
    const serialized = serializeError(error, retryable);
    if (willRetry) {
      await stream.add({ kind: "retry", error: serialized });
      await stream.flush().catch(this.onError);
      return error instanceof Error ? error : new Error(describeError(error));
    }
    await this.finish(stream, "failed", { error: serialized });
    return new UnrecoverableError(`${serialized.name}: ${serialized.message}`);
  }

  private async finish(
    stream: StreamWriter,
    status: Extract<RunEntry, { kind: "end" }>["status"],
    fields: Pick<Extract<RunEntry, { kind: "end" }>, "result" | "error">,
  ): Promise<void> {
    const ended = stream.add({ kind: "end", status, ...fields });
    ended.catch(() => {});
    stream.send();
    // Sent right behind the end entry, on the same connection (Redis runs them in order): one round
    // trip less before the job's slot is free. Its outcome is still awaited after the writes' own.
    const retention = this.commands.expire(stream.key, this.options.retentionSeconds ?? 3_600);
    retention.catch(() => {});
    await ended;
    await stream.flush();
    await retention;
  }

  /**
   * A `canUseTool` that asks the producer: the request goes into the run's stream, the decision
   * comes back on a list the producer pushes to (BLPOP on a connection of its own, bounded by the
   * producer's `permissionTimeoutMs`; no answer denies). Only a decision signed with the run's key
   * counts: anything else on the list is reported and the wait goes on.
   */
  private askProducer(
    jobId: string,
    stream: StreamWriter,
    timeoutMs: number,
    verifier: RunVerifier,
  ): CanUseTool {
    return async (toolName, input, { signal, ...context }) => {
      const requestId = randomUUID();
      const asked = stream.add({ kind: "permission", requestId, toolName, input, context });
      stream.send(); // the run waits for the answer: nothing else joins this batch
      await asked;
      // Each BLPOP blocks up to WAIT_SLICE_MS: Redis may be silent that much longer.
      const waiter = this.commands.duplicate({ socketTimeout: answerBoundMs(this.options, WAIT_SLICE_MS) });
      waiter.on("error", (error: Error) => {
        if (!signal.aborted) this.onError(error);
      });
      const stop = () => waiter.disconnect();
      signal.addEventListener("abort", stop, { once: true });
      const deadline = performance.now() + timeoutMs;
      try {
        for (;;) {
          const left = deadline - performance.now();
          const slice = Math.min(left, WAIT_SLICE_MS);
          const reply =
            left > 0
              ? await waiter.blpop(this.keys.decision(jobId, requestId), Math.max(slice, 1) / 1_000)
              : null;
          if (!reply && left > WAIT_SLICE_MS) continue; // this slice passed; the wait goes on
          if (!reply) {
            return {
              behavior: "deny",
              message: `The producer did not answer this permission request within ${timeoutMs} ms`,
            };
          }
          const decision = this.signedDecision(jobId, requestId, reply[1], verifier);
          if (decision) return decision;
        }
      } finally {
        signal.removeEventListener("abort", stop);
        waiter.disconnect();
      }
    };
  }

  /**
   * The decision in a reply (`{ d: <decision JSON>, s: <signature> }`) when the run's producer signed
   * it, reduced to what may cross: behaviour, message, interrupt, updated input (and permission
   * updates only with `accept.updatedPermissions`). `undefined`, reported, for anything else.
   */
  private signedDecision(
    jobId: string,
    requestId: string,
    reply: string,
    verifier: RunVerifier,
  ): PermissionResult | undefined {
    const ignore = (why: string) => {
      this.onError(
        new Error(`Ignored a permission decision for run ${jobId} (request ${requestId}): ${why}`),
      );
      return undefined;
    };
    let envelope: { d?: unknown; s?: unknown };
    try {
      envelope = JSON.parse(reply) as typeof envelope;
    } catch {
      return ignore("not JSON");
    }
    if (typeof envelope?.d !== "string" || !verifier.decision(jobId, requestId, envelope.d, envelope.s))
      return ignore("not signed by the run's producer");
    let decision: Record<string, unknown>;
    try {
      decision = JSON.parse(envelope.d) as Record<string, unknown>;
    } catch {
      return { behavior: "deny", message: "The producer's decision was not JSON" };
    }
    if (decision?.behavior === "allow") {
      const { updatedInput, updatedPermissions } = decision;
      const input =
        updatedInput && typeof updatedInput === "object" && !Array.isArray(updatedInput)
          ? { updatedInput: updatedInput as Record<string, unknown> }
          : {};
      if (updatedPermissions !== undefined && !this.accept.updatedPermissions)
        this.onError(
          new Error(
            `Dropped the updatedPermissions of a permission decision for run ${jobId}: ` +
              "remote producers may not change this machine's permission rules (accept.updatedPermissions)",
          ),
        );
      const permissions =
        this.accept.updatedPermissions && Array.isArray(updatedPermissions)
          ? { updatedPermissions: updatedPermissions as PermissionResultAllow["updatedPermissions"] }
          : {};
      return { behavior: "allow", ...input, ...permissions };
    }
    return {
      behavior: "deny",
      message: typeof decision?.message === "string" ? decision.message : "Denied by the producer",
      ...(decision?.interrupt === true ? { interrupt: true } : {}),
    };
  }

  private async runOptions(fromJob: ResolvedOptions, info: RunInfo): Promise<ResolvedOptions> {
    const local = this.options.options;
    const options = typeof local === "function" ? await local(fromJob, info) : { ...fromJob, ...local };
    // No settings files of the checkout (hooks run commands) unless the operator asks for them.
    const claude = options.backend === undefined || options.backend === "claude";
    return claude && options.settingSources === undefined ? { ...options, settingSources: [] } : options;
  }
}

/**
 * Whether a failure is the CLI's rather than the agent's, and so worth another attempt: the process
 * crashed or was killed, its pipe broke, it stopped answering control requests or wrote garbage.
 */
export function isCliCrash(error: unknown): boolean {
  return (
    error instanceof ProcessError ||
    error instanceof CliConnectionError ||
    error instanceof ControlTimeoutError ||
    error instanceof JsonDecodeError
  );
}
