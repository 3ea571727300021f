/**
 * code-agent-sdk/queue when Redis goes away for good (redis-server SIGKILLed mid-run, never back, or
 * SIGSTOPped: connections accepted, nothing answered):
 * a host process (host/redis-gone.mts, `--unhandled-rejections=strict`) with a worker running a
 * run and two producers reading it must see every failure typed, close within a bound, and exit 0
 * on its own — no connection retrying forever, no CLI left behind. Skipped, saying why, without
 * redis-server.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { isAlive, readPids } from "../lifecycle/support/processes.js";
import { NO_REDIS_REASON, REDIS_SERVER, startRedis } from "./support/redis.js";
import { freshQueue, scratch } from "./support/runs.js";
import { FAKE_CLAUDE, until } from "./support/workers.js";

if (!REDIS_SERVER) console.warn(`[queue tests] skipped: ${NO_REDIS_REASON}`);

const HOST = join(import.meta.dirname, "host", "redis-gone.mts");
/** How long the host's connections keep reconnecting. */
const RECONNECT_TIMEOUT_MS = 1_500;
/** The host must have exited this long after Redis died (generous: a loaded 2-core machine). */
const EXIT_BOUND_MS = 30_000;

interface Outcome {
  name: string;
  operation?: string;
  jobId?: string;
  atMs: number;
}
interface Report {
  mode: string;
  goneAt: number;
  jobId: string;
  readerFirst: Outcome;
  readerSecond: Outcome;
  enqueue: { name: string; ms: number };
  secondClose?: { name: string; ms: number };
  workerClose?: { name: string; ms: number };
  firstClose?: { name: string; ms: number };
  reported: string[];
}

/** How long the host's connections wait for an answer, when Redis is stopped rather than killed. */
const RESPONSE_TIMEOUT_MS = 1_000;

async function redisGone(mode: "closing" | "unattended", how: "killed" | "stopped" = "killed") {
  await using redis = await startRedis();
  using dir = scratch();
  const pidsFile = join(dir.dir, "pids.json");
  const config = {
    url: redis.url,
    queueName: freshQueue(),
    mode,
    cliPath: FAKE_CLAUDE,
    gate: join(dir.dir, "never"),
    pidsFile,
    reconnectTimeoutMs: RECONNECT_TIMEOUT_MS,
    ...(how === "stopped" ? { responseTimeoutMs: RESPONSE_TIMEOUT_MS } : {}),
  };
  const host = spawn(
    process.execPath,
    ["--unhandled-rejections=strict", "--import", "tsx", HOST, JSON.stringify(config)],
    { cwd: join(import.meta.dirname, "..", ".."), stdio: ["pipe", "pipe", "pipe"] },
  );
  let stderr = "";
  host.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const lines: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    host.once("exit", (code, signal) => resolve({ code, signal })),
  );
  try {
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: host.stdout }).on("line", (line) => {
        lines.push(line);
        if (line.includes('"ready"')) resolve();
      });
      void exited.then(() => reject(new Error(`host exited before it was ready:\n${stderr}`)));
    });
    const cli = readPids(pidsFile);
    expect(cli && isAlive(cli.pid)).toBe(true);

    if (how === "killed") await redis.kill();
    else redis.pause();
    const killedAt = performance.now();
    host.stdin.end("gone\n");
    let bound: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      exited,
      new Promise<"bound">((resolve) => {
        bound = setTimeout(() => resolve("bound"), EXIT_BOUND_MS);
      }),
    ]);
    clearTimeout(bound);
    const exitMs = Math.round(performance.now() - killedAt);
    expect(exit, `the host did not exit within ${EXIT_BOUND_MS} ms\n${lines.join("\n")}\n${stderr}`).toEqual({
      code: 0,
      signal: null,
    });
    const report = (JSON.parse(lines.at(-1) ?? "{}") as { report: Report }).report;
    // What nothing else can tell: the host's own times, for the record.
    console.info(
      `[redis-gone ${mode}] exit ${exitMs} ms after ${how === "killed" ? "SIGKILL" : "SIGSTOP"} of redis-server`,
      JSON.stringify(report),
    );
    await until(() => !isAlive(cli!.pid), "the run's CLI to end", 10_000);
    return report;
  } finally {
    if (host.exitCode === null && host.signalCode === null) {
      host.kill("SIGKILL");
      await exited;
    }
  }
}

/**
 * Killed: the sockets close. Stopped: the kernel still accepts connections and takes in commands,
 * only `responseTimeoutMs` (each attempt to reconnect silent as long) tells.
 */
const OUTAGES = [
  { how: "killed", title: "is gone for good (SIGKILL)", boundMs: RECONNECT_TIMEOUT_MS + 15_000 },
  {
    how: "stopped",
    title: "stops answering (SIGSTOP, never continued)",
    boundMs: RECONNECT_TIMEOUT_MS + 3 * RESPONSE_TIMEOUT_MS + 15_000,
  },
] as const;

for (const { how, title, boundMs } of OUTAGES)
  describe.skipIf(!REDIS_SERVER)(`code-agent-sdk/queue when Redis ${title}`, () => {
    it("closes the worker and both producers within a bound, every failure typed, and the host exits", async () => {
      const report = await redisGone("closing", how);
      // The producer closed mid-iteration ends its reader with QueueClosedError (an AbortError).
      expect(report.readerSecond.name).toBe("QueueClosedError");
      expect(report.secondClose?.name).toBe("resolved");
      // The other reader learns that Redis is gone once the connections give up, with context.
      expect(report.readerFirst).toMatchObject({
        name: "QueueConnectionError",
        operation: "reading the run's stream",
        jobId: report.jobId,
      });
      expect(report.enqueue.name).toBe("QueueConnectionError");
      // worker.close({ graceMs: 200 }) resolves: the grace, then the run's last writes fail once the
      // connections give up (reconnectTimeoutMs); a worker that gave up cuts BullMQ's connections too.
      expect(report.workerClose?.name).toBe("resolved");
      expect(report.workerClose!.ms).toBeLessThan(boundMs);
      expect(report.firstClose?.name).toBe("resolved");
      // What reached onError is typed too.
      expect(report.reported.every((name) => name.startsWith("Queue"))).toBe(true);
    });

    it("with nobody closing anything, the worker gives up and closes itself and the host exits", async () => {
      const report = await redisGone("unattended", how);
      expect(report.readerFirst).toMatchObject({ name: "QueueConnectionError", jobId: report.jobId });
      expect(report.readerSecond).toMatchObject({ name: "QueueConnectionError", jobId: report.jobId });
      expect(report.enqueue.name).toBe("QueueConnectionError");
      expect(report.reported).toContain("QueueConnectionError");
      expect(report.reported.every((name) => name.startsWith("Queue"))).toBe(true);
    });
  });
