/**
 * A run whose abort is already stored when a worker takes it (published while the worker was away,
 * or before it registered the run): the worker's start round trip finds it, and the run ends
 * aborted, failed without retry, with nothing of it in the stream between its start and its end and
 * no message seen by the worker (the property a worker that starts its CLI before that round trip
 * is answered must keep: session 10 tried one, bench/README.md).
 */
import { Queue } from "bullmq";
import { describe, expect, it } from "vitest";
import type { AgentOptions } from "../../src/index.js";
import { decodeStreamEntry } from "../../src/queue/entries.js";
import { AgentQueue, AgentWorker } from "../../src/queue/index.js";
import { NO_REDIS_REASON, REDIS_SERVER, redisForSuite } from "./support/redis.js";
import { freshQueue } from "./support/runs.js";
import { FAKE_CLAUDE } from "./support/workers.js";

if (!REDIS_SERVER) console.warn(`[queue tests] skipped: ${NO_REDIS_REASON}`);

describe.skipIf(!REDIS_SERVER)("code-agent-sdk/queue: an abort stored before the run started", () => {
  const suite = redisForSuite();

  it("ends the run aborted, with no message in its stream and none seen by the worker", async () => {
    const queueName = freshQueue();
    const raw = new Queue(queueName, {
      connection: { host: "127.0.0.1", port: suite.server.port },
      prefix: "code-agent",
    });
    const seen: string[] = [];
    try {
      // A job without a run key (added with BullMQ directly): its worker obeys any abort.
      await raw.add("agent-run", { v: 1, prompt: "hi", options: {} }, { jobId: "stored-abort", attempts: 3 });
      await suite.raw.set(`code-agent:${queueName}:run:stored-abort:cancel`, "abort");
      await using _worker = await AgentWorker.start({
        connection: suite.server.url,
        queueName,
        onError: () => {},
        onMessage: (message, info) => seen.push(`${info.jobId} ${message.type}`),
        options: (job: AgentOptions) => ({ ...job, cliPath: FAKE_CLAUDE }),
      });
      await using queue = await AgentQueue.connect({ connection: suite.server.url, queueName });
      await expect(queue.run("stored-abort").collect()).rejects.toThrow(/aborted/);
      const entries = await suite.raw.xrange(`code-agent:${queueName}:run:stored-abort:messages`, "-", "+");
      const kinds = entries.flatMap(([, fields]) =>
        (decodeStreamEntry(fields).parts ?? []).map((part) =>
          part.entry ? `${part.entry.kind}${part.entry.kind === "end" ? ` ${part.entry.status}` : ""}` : "?",
        ),
      );
      expect(kinds).toEqual(["start", "end aborted"]);
      expect(seen).toEqual([]);
      const job = await raw.getJob("stored-abort");
      expect({ state: await job?.getState(), attemptsMade: job?.attemptsMade }).toEqual({
        state: "failed",
        attemptsMade: 1,
      });
    } finally {
      await raw.close();
    }
  });
});
