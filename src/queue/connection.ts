/**
 * Where the queue's Redis is, and the names of the keys it uses there.
 */
import type { Redis } from "ioredis";
import { AgentSdkError, InvalidOptionsError } from "../errors.js";
import type { QueueDeps } from "./deps.js";
import { QueueConnectionError } from "./errors.js";

/**
 * How to reach Redis: a `redis://` URL, or host/port and credentials. Every connection the queue
 * opens reconnects on its own after a Redis restart and waits for it instead of failing commands,
 * for up to `reconnectTimeoutMs` (see {@link QueueConnectionOptions}).
 */
export type RedisConnection =
  | string
  | {
      host?: string;
      port?: number;
      username?: string;
      password?: string;
      db?: number;
      /** `true` or Node `tls.connect` options for a TLS connection. */
      tls?: boolean | Record<string, unknown>;
    };

/** Options shared by the producer ({@link AgentQueue}) and the worker ({@link AgentWorker}). */
export interface QueueConnectionOptions {
  /** Redis to use. */
  connection: RedisConnection;
  /** Queue name; producers and workers of one queue use the same. Default `"agent-runs"`. */
  queueName?: string;
  /** Prefix of every Redis key the queue writes. Default `"code-agent"`. */
  prefix?: string;
  /**
   * How long starting a producer or worker waits for Redis to answer, in milliseconds; then it
   * fails with `QueueConnectionError`. Later outages are waited out (see `reconnectTimeoutMs`). Default 10 000.
   */
  connectTimeoutMs?: number;
  /**
   * How long a connection that lost Redis keeps reconnecting, in milliseconds. An outage shorter
   * than this (a restart, a failover) is ridden out: commands wait and runs carry on. Once it is
   * exceeded the connection gives up for good: the commands waiting on it, a producer's iterations
   * and calls, and a worker's runs fail with `QueueConnectionError`, a worker stops its runs and
   * closes, and no connection keeps the host alive. Default 60 000.
   */
  reconnectTimeoutMs?: number;
  /**
   * How long a connection waits for Redis to answer before it counts Redis as lost, in
   * milliseconds, on top of the time a blocking read is allowed to wait. A Redis that accepts
   * connections but answers nothing (stopped, swapping, stuck in a script) is then an outage like
   * any other: the connection reconnects and gives up after `reconnectTimeoutMs`, so a call fails
   * with `QueueConnectionError` within about 2 × `responseTimeoutMs` + `reconnectTimeoutMs` instead of
   * waiting forever. Default 10 000.
   */
  responseTimeoutMs?: number;
}

/** Default of {@link QueueConnectionOptions.reconnectTimeoutMs}. */
export const DEFAULT_RECONNECT_TIMEOUT_MS = 60_000;

/** Default of {@link QueueConnectionOptions.responseTimeoutMs}. */
const DEFAULT_RESPONSE_TIMEOUT_MS = 10_000;

/**
 * The longest a BullMQ `Worker` blocks in one `BZPOPMIN` on Redis (BullMQ 5–6 cap it at 10 s; our
 * workers leave `drainDelay` at its 5 s): its connections wait this much longer for an answer.
 */
export const BULLMQ_MAX_BLOCK_MS = 10_000;

/** When each connection's current outage began (keyed by the connection's own options object). */
const outageStarts = new WeakMap<object, number>();

/** The reconnect delay after the `times`-th failed attempt in a row: 100 ms doubling up to 2 s. */
function backoff(times: number): number {
  return Math.min(50 * 2 ** Math.min(times, 6), 2_000);
}

/**
 * An ioredis `retryStrategy` that gives up once the connection has been without Redis for
 * `reconnectTimeoutMs` (ioredis then rejects every waiting command and ends the connection).
 * ioredis calls it as a method of the connection's own options object (`duplicate()` and BullMQ's
 * connections each get a copy), which keys the outage's start; should that ever not be an object,
 * the sum of the delays so far stands in for the elapsed time.
 */
function boundedRetry(reconnectTimeoutMs: number) {
  return function retryStrategy(this: unknown, times: number): number | null {
    const key = typeof this === "object" && this !== null ? this : undefined;
    const now = performance.now();
    if (key && (times <= 1 || !outageStarts.has(key))) outageStarts.set(key, now);
    let elapsed = 0;
    if (key) elapsed = now - (outageStarts.get(key) ?? now);
    else for (let i = 1; i < times; i++) elapsed += backoff(i);
    // The start stays: a connection someone reconnects by hand after it gave up (BullMQ does) gives
    // up again at its first failure. A successful connect starts the count anew (`times` 1).
    if (elapsed >= reconnectTimeoutMs) return null;
    // The last attempt is made at the bound, not up to 2 s after it.
    return Math.max(1, Math.min(backoff(times), reconnectTimeoutMs - elapsed));
  };
}

/** `reconnectTimeoutMs` of `options`, checked (a positive number of milliseconds a timer can hold). */
export function reconnectTimeoutOf(options: Pick<QueueConnectionOptions, "reconnectTimeoutMs">): number {
  return millisecondsOption("reconnectTimeoutMs", options.reconnectTimeoutMs, DEFAULT_RECONNECT_TIMEOUT_MS);
}

/**
 * An option that is a duration: `fallback` when absent, else a positive number of milliseconds a
 * timer can hold, or `InvalidOptionsError` naming it.
 */
export function millisecondsOption(name: string, value: unknown, fallback: number): number {
  const ms = value ?? fallback;
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms <= 0 || ms > MAX_TIMER_MS)
    throw new InvalidOptionsError([
      `${name}: expected a positive number of milliseconds up to ${MAX_TIMER_MS}`,
    ]);
  return ms;
}

/** The longest delay a Node timer holds (longer ones fire at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** `responseTimeoutMs` of `options`, checked like {@link reconnectTimeoutOf}. */
export function responseTimeoutOf(options: Pick<QueueConnectionOptions, "responseTimeoutMs">): number {
  return millisecondsOption("responseTimeoutMs", options.responseTimeoutMs, DEFAULT_RESPONSE_TIMEOUT_MS);
}

/**
 * ioredis's `socketTimeout` for a connection of `options` whose blocking commands block up to
 * `blockMs`: Redis silent for longer than that while an answer is due destroys the socket, and the
 * connection reconnects (and gives up) as after any outage.
 */
export function answerBoundMs(
  options: Pick<QueueConnectionOptions, "responseTimeoutMs">,
  blockMs = 0,
): number {
  return Math.min(MAX_TIMER_MS, responseTimeoutOf(options) + blockMs);
}

/**
 * Plain ioredis options for `connection` (BullMQ takes the same object); connections made with
 * them give up after `reconnectTimeoutMs` without Redis.
 */
export function redisOptions(
  connection: RedisConnection,
  reconnectTimeoutMs = DEFAULT_RECONNECT_TIMEOUT_MS,
): Record<string, unknown> {
  const base = {
    // Commands wait for a reconnect instead of failing after a few retries: a Redis restart is an
    // outage to ride out, not an error of every run in flight — up to the reconnect bound, after
    // which the connection ends and every waiting command fails.
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    retryStrategy: boundedRetry(reconnectTimeoutMs),
  };
  if (typeof connection === "string") {
    const url = new URL(connection);
    return {
      ...base,
      host: url.hostname,
      port: url.port ? Number(url.port) : 6379,
      ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
      ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
      ...(url.pathname.length > 1 ? { db: Number(url.pathname.slice(1)) } : {}),
      ...(url.protocol === "rediss:" ? { tls: {} } : {}),
    };
  }
  const { tls, ...rest } = connection;
  return { ...base, ...rest, ...(tls ? { tls: tls === true ? {} : tls } : {}) };
}

/**
 * Opens an ioredis connection and waits until Redis answers; on timeout the connection is closed
 * and {@link QueueConnectionError} thrown.
 */
export async function openReachableRedis(
  deps: QueueDeps,
  options: QueueConnectionOptions,
  name: string,
): Promise<Redis> {
  const redis = openRedis(deps, options, name);
  const timeoutMs = options.connectTimeoutMs ?? 10_000;
  let timer: NodeJS.Timeout | undefined;
  let lastError: unknown;
  const onError = (error: unknown) => {
    lastError = error;
  };
  redis.on("error", onError);
  try {
    await Promise.race([
      redis.ping(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new QueueConnectionError(address(options.connection), timeoutMs, lastError)),
          timeoutMs,
        );
      }),
    ]);
    return redis;
  } catch (error) {
    redis.disconnect();
    throw error;
  } finally {
    clearTimeout(timer);
    redis.off("error", onError);
  }
}

/** `host:port` of a connection, without credentials (for messages). */
export function address(connection: RedisConnection): string {
  const options = redisOptions(connection);
  return `${String(options.host ?? "127.0.0.1")}:${String(options.port ?? 6379)}`;
}

/**
 * Opens an ioredis connection with {@link redisOptions} (see {@link endsOnDisconnect}) that asks
 * Redis for a sign of life (PING) every `responseTimeoutMs` while it is idle: a Redis that stops
 * answering is then noticed, and given up on, also when nothing else is being sent.
 */
export function openRedis(deps: QueueDeps, options: QueueConnectionOptions, name: string): Redis {
  const everyMs = responseTimeoutOf(options);
  // Auto-pipelining sends the commands issued in one tick as one write (many runs, one connection).
  const redis = endsOnDisconnect(
    new deps.Redis({
      ...redisOptions(options.connection, reconnectTimeoutOf(options)),
      socketTimeout: answerBoundMs(options),
      connectionName: name,
      enableAutoPipelining: true,
    }),
  );
  let asking = false;
  const heartbeat = setInterval(() => {
    if (asking || redis.status !== "ready") return;
    asking = true;
    redis
      .ping()
      .catch(() => {
        // The connection reports its trouble itself (error, then end).
      })
      .finally(() => {
        asking = false;
      });
  }, everyMs);
  heartbeat.unref();
  redis.once("end", () => clearInterval(heartbeat));
  return redis;
}

/**
 * The connection BullMQ's `Queue` or `Worker` is given (instead of options, so that every
 * connection BullMQ makes is one of ours: a `Worker` duplicates it, a `Queue` uses it and leaves
 * closing it to us). It connects on first use. `blockMs`: the longest its blocking commands block
 * (a `Worker`'s, {@link BULLMQ_MAX_BLOCK_MS}).
 */
export function openBullRedis(
  deps: QueueDeps,
  options: QueueConnectionOptions,
  name: string,
  blockMs = 0,
): Redis {
  return endsOnDisconnect(
    new deps.Redis({
      ...redisOptions(options.connection, reconnectTimeoutOf(options)),
      socketTimeout: answerBoundMs(options, blockMs),
      connectionName: name,
      lazyConnect: true,
    }),
  );
}

/**
 * Makes `disconnect()` end a connection that is waiting to reconnect, and does the same for its
 * duplicates. ioredis (6.0) only clears the reconnect timer there: the connection stays
 * "reconnecting" for good, never emits `end`, and the commands queued on it never settle — a
 * reader, a stream write or BullMQ's close waiting on one would hang (BullMQ's `Worker.close()`
 * waits for its blocking connection's `end`). Starting a connect and cutting it before its socket
 * exists ends it the ordinary way: the queued commands fail with "Connection is closed." and `end`
 * is emitted.
 */
function endsOnDisconnect(redis: Redis): Redis {
  const disconnect = redis.disconnect.bind(redis);
  const duplicate = redis.duplicate.bind(redis);
  redis.disconnect = (reconnect = false) => {
    const waiting = !reconnect && redis.status === "reconnecting";
    disconnect(reconnect);
    if (!waiting) return;
    redis.connect().catch(() => {
      // Cut on purpose: the queued commands carry the error.
    });
    disconnect();
  };
  redis.duplicate = (override) => endsOnDisconnect(duplicate(override));
  redis.on("end", () => failUnresent(redis));
  return redis;
}

/** What ioredis (6.0) keeps of the commands that were in flight when a ready connection closed. */
interface UnresentQueue {
  prevCommandQueue?: { shift(): { command?: { reject?(error: Error): void } } | undefined } | null;
}

/**
 * Rejects the commands a connection that ended still holds for resending. ioredis keeps the
 * commands in flight when a ready connection closes, to send them again once it is ready; when it
 * never is again (Redis accepts the connection but answers nothing, until the connection gives up),
 * its final `flushQueue` leaves them out, and their promises never settle. They fail as the other
 * queued commands do.
 */
function failUnresent(redis: Redis): void {
  const queue = (redis as unknown as UnresentQueue).prevCommandQueue;
  if (!queue || typeof queue.shift !== "function") return;
  for (let item = queue.shift(); item; item = queue.shift()) item.command?.reject?.(connectionClosedError());
}

/** The message of ioredis's error for a command on (or waiting on) a connection that ended. */
const CONNECTION_CLOSED = "Connection is closed.";

/**
 * An error like ioredis's for a connection that ended, for what fails because one of ours gave up:
 * {@link isConnectionClosed} knows it as such.
 */
export function connectionClosedError(): Error {
  return new Error(CONNECTION_CLOSED);
}

/** Whether `error` is ioredis's (or BullMQ's) error for a connection that ended. */
export function isConnectionClosed(error: unknown): boolean {
  return error instanceof Error && error.message === CONNECTION_CLOSED;
}

/**
 * Closes one of our connections: QUIT when it is up (the replies in flight arrive first), else at
 * once (a connection waiting for Redis would keep a QUIT until it gives up).
 */
export async function closeConnection(redis: Redis): Promise<void> {
  if (redis.status !== "ready") {
    redis.disconnect();
    return;
  }
  await redis.quit().catch(() => redis.disconnect());
}

/**
 * An error of one of our connections (or BullMQ's) as `onError` gets it: ours as they are, a Redis
 * client's as {@link QueueConnectionError} saying which connection.
 */
export function typedConnectionError(
  options: QueueConnectionOptions,
  error: unknown,
  operation: string,
): Error {
  if (error instanceof AgentSdkError) return error;
  return new QueueConnectionError(address(options.connection), reconnectTimeoutOf(options), error, {
    operation,
  });
}

/** The Redis key names of one queue. */
export class QueueKeys {
  constructor(
    readonly prefix: string,
    readonly queueName: string,
  ) {}
  /** The stream of one run's messages and lifecycle entries. */
  messages(jobId: string): string {
    return `${this.prefix}:${this.queueName}:run:${jobId}:messages`;
  }
  /** Set to `abort` when the producer aborts the run; read by the worker at start and on reconnect. */
  cancel(jobId: string): string {
    return `${this.prefix}:${this.queueName}:run:${jobId}:cancel`;
  }
  /** The list on which the producer pushes its decision on one permission request. */
  decision(jobId: string, requestId: string): string {
    return `${this.prefix}:${this.queueName}:run:${jobId}:permission:${requestId}`;
  }
  /** The stream by which a producer ends its reader's XREAD early (stream-reader.ts). */
  wake(readerId: string): string {
    return `${this.prefix}:${this.queueName}:reader:${readerId}:wake`;
  }
  /** Pub/sub channel on which cancellations reach running jobs at once. */
  control(): string {
    return `${this.prefix}:${this.queueName}:control`;
  }
}
