/**
 * code-agent-sdk/queue with worker processes standing in for machines, against a real redis-server
 * (Debian's package; skipped, saying why, when it is absent): many jobs over three workers, a worker
 * SIGKILLed mid-run, a worker closing gracefully.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentQueue } from "../../src/queue/index.js";
import { isAlive } from "../lifecycle/support/processes.js";
import { NO_REDIS_REASON, REDIS_SERVER, startRedis, type TestRedis } from "./support/redis.js";
import { follow, freshQueue, isAssistantText, scratch } from "./support/runs.js";
import { fastClaude, startWorker, until } from "./support/workers.js";

if (!REDIS_SERVER) console.warn(`[queue tests] skipped: ${NO_REDIS_REASON}`);

describe.skipIf(!REDIS_SERVER)("code-agent-sdk/queue across worker processes", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.[Symbol.asyncDispose]();
  });

  it("runs 100 jobs across 3 worker processes, each exactly once", async () => {
    using dir = scratch();
    const { cliPath, resultText } = fastClaude(dir.dir);
    const queueName = freshQueue();
    const config = { url: redis.url, queueName, concurrency: 3, cliPath };
    const [a, b, c] = await Promise.all([startWorker(config), startWorker(config), startWorker(config)]);
    await using _a = a;
    await using _b = b;
    await using _c = c;
    await using queue = await AgentQueue.connect({ connection: redis.url, queueName });
    const runs = await Promise.all(
      Array.from({ length: 100 }, (_, i) => queue.enqueue({ prompt: `job ${i}` })),
    );
    const results = await Promise.all(runs.map((run) => run.result()));
    expect(results.every((r) => r.result === resultText && !r.isError)).toBe(true);

    const started = [...a.runs, ...b.runs, ...c.runs];
    expect(started).toHaveLength(100);
    expect(new Set(started.map((r) => r.jobId))).toEqual(new Set(runs.map((r) => r.id)));
    expect(started.every((r) => r.attempt === 1)).toBe(true);
    for (const w of [a, b, c]) expect(w.runs.length).toBeGreaterThan(0);
  });

  it("retries on another worker the job of a SIGKILLed worker, whose CLI processes all die", async () => {
    using dir = scratch();
    const queueName = freshQueue();
    const fast = {
      url: redis.url,
      queueName,
      lockDurationMs: 1_500,
      stalledIntervalMs: 500,
      retryMode: "ok",
    };
    await using doomed = await startWorker(fast);
    await using queue = await AgentQueue.connect({ connection: redis.url, queueName, idleCheckMs: 500 });
    const pidsFile = join(dir.dir, "pids.json");
    const run = await queue.enqueue({
      prompt: "work until killed",
      options: {
        env: { FAKE_CLAUDE_MODE: "stall", FAKE_CLAUDE_PIDS: pidsFile, FAKE_CLAUDE_GRANDCHILD: "sleep" },
      },
    });
    const reader = follow(run);
    await reader.seen(isAssistantText("working"));
    const { pid, grandchildPid } = JSON.parse(readFileSync(pidsFile, "utf8")) as {
      pid: number;
      grandchildPid: number;
    };
    expect(isAlive(pid) && isAlive(grandchildPid) && isAlive(doomed.watchdogPid)).toBe(true);

    // Only now does a second machine join: the job can only reach it through stalled detection.
    await using survivor = await startWorker(fast);
    doomed.proc.kill("SIGKILL");
    await doomed.exited;
    await until(() => !isAlive(pid) && !isAlive(grandchildPid), "the dead worker's CLI and its child to die");
    await until(() => !isAlive(doomed.watchdogPid), "the watchdog to exit");

    await reader.done;
    const retry = reader.messages.find((m) => m.type === "system" && m.subtype === "queue_retry");
    expect(retry?.type === "system" && retry.data).toMatchObject({
      attempt: 2,
      error: { name: "WorkerLost" },
    });
    expect(reader.messages.at(-1)).toMatchObject({ type: "result", result: "ok" });
    expect(survivor.runs).toEqual([{ jobId: run.id, attempt: 2 }]);
  });

  it("on close, lets a run go on for the grace period, then hands it to another worker", async () => {
    using dir = scratch();
    const queueName = freshQueue();
    await using leaving = await startWorker({ url: redis.url, queueName, graceMs: 300, retryMode: "ok" });
    await using queue = await AgentQueue.connect({ connection: redis.url, queueName });
    const pidsFile = join(dir.dir, "pids.json");
    const run = await queue.enqueue({
      prompt: "long",
      options: {
        env: {
          FAKE_CLAUDE_MODE: "gate",
          FAKE_CLAUDE_GATE: join(dir.dir, "never"),
          FAKE_CLAUDE_PIDS: pidsFile,
        },
      },
    });
    const reader = follow(run);
    await reader.seen(isAssistantText("waiting at the gate"));
    const { pid } = JSON.parse(readFileSync(pidsFile, "utf8")) as { pid: number };
    await using staying = await startWorker({ url: redis.url, queueName, retryMode: "ok" });
    leaving.proc.kill("SIGTERM");
    await leaving.exited;
    expect({ code: leaving.proc.exitCode, stderr: leaving.stderr() }).toEqual({ code: 0, stderr: "" });
    expect(isAlive(pid)).toBe(false);
    await reader.done;
    const retry = reader.messages.find((m) => m.type === "system" && m.subtype === "queue_retry");
    expect(retry?.type === "system" && retry.data).toMatchObject({
      attempt: 2,
      error: { name: "AbortError" },
    });
    expect(reader.messages.at(-1)).toMatchObject({ type: "result", result: "ok" });
    expect(staying.runs).toEqual([{ jobId: run.id, attempt: 2 }]);
  });
});
