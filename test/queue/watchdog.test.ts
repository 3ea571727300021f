/**
 * The queue worker's watchdog knows every CLI group alive from the moment it runs (a host SIGKILLed
 * right after starting it leaves none behind), and is watched in turn: killed while the worker runs,
 * it is started again with every group alive, so a worker SIGKILLed afterwards still leaves no CLI
 * behind. The second test runs a worker process against a real redis-server (skipped, saying why,
 * when absent).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentQueue } from "../../src/queue/index.js";
import { isAlive, liveChildren } from "../lifecycle/support/processes.js";
import { NO_REDIS_REASON, REDIS_SERVER, startRedis, type TestRedis } from "./support/redis.js";
import { follow, freshQueue, isAssistantText, scratch } from "./support/runs.js";
import { startWorker, until } from "./support/workers.js";

if (!REDIS_SERVER) console.warn(`[queue tests] skipped: ${NO_REDIS_REASON}`);

/** Live watchdog processes started by `workerPid` (children running the watchdog script). */
function watchdogsOf(workerPid: number): number[] {
  return liveChildren(workerPid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("groups.add");
    } catch {
      return false;
    }
  });
}

const HOST = fileURLToPath(new URL("./host/watchdog-host.mts", import.meta.url));

describe.skipIf(process.platform !== "linux")("the queue worker's watchdog, started", () => {
  it("knows the groups alive when it starts, so a worker SIGKILLed at once leaves no CLI running", async () => {
    const host = spawn(process.execPath, ["--import", "tsx", HOST], { stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      host.once("exit", (_code, signal) => resolve(signal)),
    );
    const [line] = await once(createInterface({ input: host.stdout! }), "line");
    const [sleeper, watchdog] = String(line).split(" ").map(Number) as [number, number];
    try {
      expect(await exited).toBe("SIGKILL");
      await until(() => !isAlive(sleeper), "the dead host's group to be killed", 10_000);
      await until(() => !isAlive(watchdog), "the watchdog to exit");
    } finally {
      for (const pid of [-sleeper, watchdog]) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Already gone: the case the test expects.
        }
      }
    }
  });
});

describe.skipIf(!REDIS_SERVER || process.platform !== "linux")("the queue worker's watchdog", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.[Symbol.asyncDispose]();
  });

  it("is restarted when it dies first, so a worker SIGKILLed later still leaves no CLI running", async () => {
    using dir = scratch();
    const queueName = freshQueue();
    await using worker = await startWorker({ url: redis.url, queueName });
    await using queue = await AgentQueue.connect({ connection: redis.url, queueName });
    const pidsFile = join(dir.dir, "pids.json");
    const run = await queue.enqueue({
      prompt: "work until killed",
      options: {
        env: { FAKE_CLAUDE_MODE: "stall", FAKE_CLAUDE_PIDS: pidsFile, FAKE_CLAUDE_GRANDCHILD: "sleep" },
      },
      attempts: 1,
    });
    const reader = follow(run);
    await reader.seen(isAssistantText("working"));
    const { pid, grandchildPid } = JSON.parse(readFileSync(pidsFile, "utf8")) as {
      pid: number;
      grandchildPid: number;
    };
    const first = worker.watchdogPid;
    expect(watchdogsOf(worker.proc.pid!)).toEqual([first]);

    process.kill(first, "SIGKILL");
    await until(() => !isAlive(first), "the first watchdog to die");
    await until(() => watchdogsOf(worker.proc.pid!).length === 1, "a new watchdog to start");
    const [second] = watchdogsOf(worker.proc.pid!);
    expect(second).not.toBe(first);
    await until(() => worker.stderr().includes("QueueWatchdogError"), "the worker to report it");
    expect(worker.stderr()).toContain("a new one was started");

    worker.proc.kill("SIGKILL");
    await worker.exited;
    await until(
      () => !isAlive(pid) && !isAlive(grandchildPid),
      "the dead worker's CLI and its child to die",
      10_000,
    );
    await until(() => !isAlive(second!), "the new watchdog to exit");
  });
});
