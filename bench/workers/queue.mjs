/**
 * Agent runs through code-agent-sdk/queue ("ours") versus the same sessions run directly with
 * query() ("raw"), both on the native fake claude:
 *
 * - throughput: `jobs` runs, `concurrency` at a time (the worker's limit / a pool of direct queries);
 * - one job end to end on an idle system (enqueue → result, or query() → result), `solo` times;
 * - per-job end to end with `concurrency` callers each running one job after another (a pool as
 *   wide as the worker's limit, so queueing in front of the worker is not counted): p50 and p99;
 * - ours only: each message's latency from the worker (query() yields it there) to the producer's
 *   handle, both in this process, so one clock: with one run at a time, and during the 200 jobs.
 *
 * A redis-server on a free loopback port with a temp directory is started for the trial and stopped
 * after it.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { guard, params, report } from "./common.mjs";

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startRedis() {
  if (spawnSync("sh", ["-c", "command -v redis-server"]).status !== 0)
    throw new Error("redis-server is not installed (apt-get install -y redis-server)");
  const dir = mkdtempSync(join(tmpdir(), "bench-redis-"));
  const port = await freePort();
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--save",
    "",
    "--appendonly",
    "no",
  ];
  const proc = spawn("redis-server", args, { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve, reject) => {
    let out = "";
    proc.stdout.on("data", (d) => {
      out += d;
      if (out.includes("Ready to accept connections")) resolve();
    });
    proc.once("exit", (code) => reject(new Error(`redis-server exited (${code})`)));
  });
  proc.stdout.resume();
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      const exited = new Promise((resolve) => proc.once("exit", resolve));
      proc.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `count` tasks, `width` at a time. */
async function pool(count, width, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

await guard(async () => {
  const p = params();
  const dist = process.env.BENCH_DIST;
  const sdk = await import(pathToFileURL(dist).href);
  const expected = Number(process.env.FAKE_N);
  const check = (count) => {
    if (count !== expected)
      throw new Error(`a run yielded ${count} assistant messages, expected ${expected}`);
  };

  if (p.impl === "raw") {
    const once = async () => {
      let assistant = 0;
      for await (const m of sdk.query({ prompt: "bench", options: { cliPath: p.cli } }))
        if (m.type === "assistant") assistant++;
      check(assistant);
    };
    for (let i = 0; i < 2; i++) await once(); // warm-up, as for ours
    const solo = [];
    for (let i = 0; i < p.solo; i++) {
      const t0 = performance.now();
      await once();
      solo.push(performance.now() - t0);
    }
    const jobs = [];
    const t0 = performance.now();
    await pool(p.jobs, p.concurrency, async () => {
      const t = performance.now();
      await once();
      jobs.push(performance.now() - t);
    });
    const seconds = (performance.now() - t0) / 1000;
    report({
      jobsPerSec: p.jobs / seconds,
      jobP50Ms: percentile(jobs, 50),
      jobP99Ms: percentile(jobs, 99),
      ms: percentile(solo, 50),
      soloP99Ms: percentile(solo, 99),
      msgP50Ms: 0,
      msgP99Ms: 0,
      msgLoadedP50Ms: 0,
      msgLoadedP99Ms: 0,
    });
    return;
  }

  const { AgentQueue, AgentWorker } = await import(
    pathToFileURL(join(dirname(dist), "queue", "index.js")).href
  );
  const redis = await startRedis();
  const atWorker = new Map();
  const worker = await AgentWorker.start({
    connection: redis.url,
    concurrency: p.concurrency,
    options: { cliPath: p.cli },
    onMessage: (_message, info) => {
      const list = atWorker.get(info.jobId) ?? [];
      list.push(performance.now());
      atWorker.set(info.jobId, list);
    },
  });
  const queue = await AgentQueue.connect({ connection: redis.url });
  const latencies = [];
  try {
    const once = async () => {
      const run = await queue.enqueue({ prompt: "bench" });
      let assistant = 0;
      let i = 0;
      for await (const m of run) {
        const sent = atWorker.get(run.id)?.[i++];
        if (sent !== undefined) latencies.push(performance.now() - sent);
        if (m.type === "assistant") assistant++;
      }
      atWorker.delete(run.id);
      check(assistant);
    };
    for (let i = 0; i < 2; i++) await once();
    latencies.length = 0;
    const solo = [];
    for (let i = 0; i < p.solo; i++) {
      const t0 = performance.now();
      await once();
      solo.push(performance.now() - t0);
    }
    const idle = latencies.splice(0);
    const t0 = performance.now();
    // All enqueued at once: the worker's concurrency is the limit, as the pool's width is for raw.
    await Promise.all(Array.from({ length: p.jobs }, once));
    const seconds = (performance.now() - t0) / 1000;
    const loaded = latencies.splice(0);
    const jobs = [];
    await pool(p.jobs, p.concurrency, async () => {
      const t = performance.now();
      await once();
      jobs.push(performance.now() - t);
    });
    report({
      jobsPerSec: p.jobs / seconds,
      jobP50Ms: percentile(jobs, 50),
      jobP99Ms: percentile(jobs, 99),
      ms: percentile(solo, 50),
      soloP99Ms: percentile(solo, 99),
      msgP50Ms: percentile(idle, 50),
      msgP99Ms: percentile(idle, 99),
      msgLoadedP50Ms: percentile(loaded, 50),
      msgLoadedP99Ms: percentile(loaded, 99),
    });
  } finally {
    await queue.close();
    await worker.close({ graceMs: 1_000 });
    await redis.stop();
  }
});
