/**
 * Loads the optional peer dependencies (BullMQ, ioredis) on first use of the queue, so that
 * importing `code-agent-sdk` never needs them and a missing one is a typed error, not a crash at
 * import time.
 */
import { QueueDependencyError } from "./errors.js";

/** The two modules the queue runs on. */
export interface QueueDeps {
  bullmq: typeof import("bullmq");
  Redis: typeof import("ioredis").Redis;
}

let loading: Promise<QueueDeps> | undefined;

/** Imports BullMQ and ioredis once; rejects with {@link QueueDependencyError} naming what is missing. */
export function loadQueueDeps(): Promise<QueueDeps> {
  loading ??= Promise.allSettled([import("bullmq"), import("ioredis")]).then(([bullmq, ioredis]) => {
    const missing: string[] = [];
    if (bullmq.status === "rejected") missing.push("bullmq");
    if (ioredis.status === "rejected") missing.push("ioredis");
    if (bullmq.status === "rejected" || ioredis.status === "rejected") {
      loading = undefined;
      const cause = bullmq.status === "rejected" ? bullmq.reason : (ioredis as PromiseRejectedResult).reason;
      throw new QueueDependencyError(missing, cause);
    }
    return { bullmq: bullmq.value, Redis: ioredis.value.Redis };
  });
  return loading;
}
