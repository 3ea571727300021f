/**
 * Where the queue's Redis is, and the names of the keys it uses there.
 */
import type { Redis } from "ioredis";
import type { QueueDeps } from "./deps.js";
import { QueueConnectionError } from "./errors.js";

/**
 * How to reach Redis: a `redis://` URL, or host/port and credentials. Every connection the queue
 * opens reconnects on its own after a Redis restart and waits for it instead of failing commands.
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
   * fails with `QueueConnectionError`. Later outages are waited out (connections reconnect). Default 10 000.
   */
  connectTimeoutMs?: number;
}

/** Plain ioredis options for `connection` (BullMQ takes the same object). */
export function redisOptions(connection: RedisConnection): Record<string, unknown> {
  const base = {
    // Commands wait for a reconnect instead of failing after a few retries: a Redis restart is an
    // outage to ride out, not an error of every run in flight.
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    retryStrategy: (times: number) => Math.min(50 * 2 ** Math.min(times, 6), 2_000),
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
  const redis = openRedis(deps, options.connection, name);
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
function address(connection: RedisConnection): string {
  const options = redisOptions(connection);
  return `${String(options.host ?? "127.0.0.1")}:${String(options.port ?? 6379)}`;
}

/** Opens an ioredis connection with {@link redisOptions}. */
export function openRedis(deps: QueueDeps, connection: RedisConnection, name: string): Redis {
  // Auto-pipelining sends the commands issued in one tick as one write (many runs, one connection).
  return new deps.Redis({ ...redisOptions(connection), connectionName: name, enableAutoPipelining: true });
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
  /** Pub/sub channel on which cancellations reach running jobs at once. */
  control(): string {
    return `${this.prefix}:${this.queueName}:control`;
  }
}
