/**
 * Agent runs through code-agent-sdk/queue ("ours") versus the same sessions run directly with
 * query() ("raw"), both on the native fake claude:
 *
 * - throughput: `jobs` runs, `concurrency` at a time (the worker's limit / a pool of direct queries);
 * - one job end to end on an idle system (enqueue → result, or query() → result), `solo` times;
 * - per-job end to end with `concurrency` callers each running one job after another (a pool as
 *   wide as the worker's limit, so queueing in front of the worker is not counted): p50 and p99;
 * - ours only: each message's latency from the worker (query() yields it there) to the producer's
 *   handle: with one run at a time, and during the 200 jobs.
 *
 * Ours is measured in two layouts, one after the other in the same trial, each against a
 * redis-server of its own (a free loopback port, a temp directory, stopped after it):
 *
 * - in-process (the metrics without a suffix): the producer, the worker and the CLIs' pipes share
 *   this one Node thread — what the target has been read from since session 7;
 * - worker process (the metrics ending in `WorkerProc`): the worker in a child Node process of its
 *   own, as deployed (workers run in their own processes, usually on other machines), so this
 *   process is the producer only; the message latency then compares the two processes' clocks
 *   (`performance.timeOrigin + performance.now()`, the same machine), collected after each phase
 *   so no per-message IPC weighs on either side. `producerCpuMsPerJob` / `workerCpuMsPerJob`: CPU
 *   time (user + system) of each process per job over the throughput phase.
 *
 * A third measurement, the BullMQ floor (the metrics ending in `BullFloor`): the same direct
 * query() run inside a bare BullMQ `Worker` processor in a child process (returning the result
 * message, as ours stores it), fed by a bare `Queue.add` + `job.waitUntilFinished(QueueEvents)`
 * producer: no stream, no keys, no admission of ours — what BullMQ alone costs on this machine.
 * Each layout also reports `redisCpuMsPerJob`: redis-server's CPU (utime + stime from
 * /proc/<pid>/stat) per job over the throughput phase. `BENCH_QUEUE_LAYOUTS` (comma-separated
 * among in-process, worker-process, floor; default all three) runs only some, for paired runs.
 *
 * Raw (direct) has one layout — it needs no second process — and reports its numbers under every
 * suffix, so the paired ratios exist for all. Neither side is pinned: both get the machine's cores.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
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
    /** redis-server's CPU time so far (user + system), ms, from /proc (Linux; 0 elsewhere). */
    cpuMs() {
      try {
        // Fields after the command name's closing parenthesis: utime and stime are the 12th and 13th.
        const stat = readFileSync(`/proc/${proc.pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
      } catch {
        return 0;
      }
    },
    async stop() {
      const exited = new Promise((resolve) => proc.once("exit", resolve));
      proc.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Clock ticks per second of /proc/<pid>/stat's times. */
const CLK_TCK = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout) || 100;

/** Runs `count` tasks, `width` at a time. */
async function pool(count, width, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** Wall-clock ms with sub-ms precision, comparable between processes of this machine. */
const clock = () => performance.timeOrigin + performance.now();

/** The child process's side of the worker-process layout: a worker, until told to stop. */
async function workerProcess(p) {
  const { AgentWorker } = await import(
    pathToFileURL(join(dirname(process.env.BENCH_DIST), "queue", "index.js")).href
  );
  const atWorker = new Map();
  const worker = await AgentWorker.start({
    connection: p.redisUrl,
    concurrency: p.concurrency,
    options: { cliPath: p.cli },
    onMessage: (_message, info) => {
      const list = atWorker.get(info.jobId) ?? [];
      list.push(clock());
      atWorker.set(info.jobId, list);
    },
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await worker.close({ graceMs: 1_000 });
    process.disconnect?.();
  };
  process.on("disconnect", () => void stop());
  process.on("message", (m) => {
    if (m === "dump") {
      process.send({ sent: [...atWorker], cpu: process.cpuUsage() });
      atWorker.clear();
    } else if (m === "stop") void stop();
  });
  process.send("ready");
}

/**
 * The BullMQ floor's child process: a bare BullMQ Worker whose processor runs the direct query()
 * and returns its result message (with the assistant count, to check), until told to stop.
 */
async function floorWorkerProcess(p) {
  const { Worker } = await import("bullmq");
  const sdk = await import(pathToFileURL(process.env.BENCH_DIST).href);
  const url = new URL(p.redisUrl);
  const worker = new Worker(
    FLOOR_QUEUE,
    async () => {
      let assistant = 0;
      let result;
      for await (const m of sdk.query({ prompt: "bench", options: { cliPath: p.cli } })) {
        if (m.type === "assistant") assistant++;
        else if (m.type === "result") result = m;
      }
      return { assistant, result };
    },
    {
      connection: { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null },
      concurrency: p.concurrency,
    },
  );
  await worker.waitUntilReady();
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await worker.close();
    process.disconnect?.();
  };
  process.on("disconnect", () => void stop());
  process.on("message", (m) => {
    if (m === "dump") process.send({ sent: [], cpu: process.cpuUsage() });
    else if (m === "stop") void stop();
  });
  process.send("ready");
}

const FLOOR_QUEUE = "bench-floor";

/** Starts the worker-process layout's child (or the floor's); resolves once it is taking jobs. */
async function startWorkerProcess(p, redisUrl, role = "worker") {
  const child = spawn(
    process.execPath,
    [
      // e.g. "--cpu-prof --cpu-prof-dir=/tmp/x" to profile the worker process (NODE_OPTIONS refuses it)
      ...(process.env.BENCH_QUEUE_WORKER_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
      fileURLToPath(import.meta.url),
      JSON.stringify({ ...p, role, redisUrl }),
    ],
    { stdio: ["ignore", "ignore", "inherit", "ipc"] },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const next = () =>
    new Promise((resolve, reject) => {
      const onExit = (code) => reject(new Error(`the worker process exited (${code})`));
      child.once("exit", onExit);
      child.once("message", (m) => {
        child.off("exit", onExit);
        resolve(m);
      });
    });
  if ((await next()) !== "ready") throw new Error("the worker process did not start");
  return {
    /** Each job's send times since the last dump, and the child's CPU usage so far. */
    async dump() {
      const answer = next();
      child.send("dump");
      const { sent, cpu } = await answer;
      return { sent: new Map(sent), cpu };
    },
    async stop() {
      if (child.exitCode === null) child.send("stop");
      await exited;
    },
  };
}

/** One layout of ours: warm-up, solo, throughput, 4 callers. */
/** CPU time (user + system) of a `process.cpuUsage()` reading, in ms. */
const cpuMs = (u) => (u.user + u.system) / 1000;

/** `p.solo` jobs one after the other on an idle system: each one's end-to-end ms. */
async function soloPhase(p, once) {
  const solo = [];
  for (let i = 0; i < p.solo; i++) {
    const t0 = performance.now();
    await once();
    solo.push(performance.now() - t0);
  }
  return solo;
}

/**
 * The throughput phase: `p.jobs` enqueued at once (the worker's concurrency is the limit, as the
 * pool's width is for raw); its seconds, this process's CPU ms and redis-server's over it.
 */
async function throughputPhase(p, redis, once) {
  const redisCpu = redis.cpuMs();
  const ownCpu = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: p.jobs }, once));
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, ownCpuMs: cpuMs(process.cpuUsage(ownCpu)), redisCpuMs: redis.cpuMs() - redisCpu };
}

/**
 * The 4-caller phase: `p.jobs` through `p.concurrency` callers, each job's end-to-end ms; each
 * job's phase marks (filled in by `once(marks)`) go onto `marked` when given.
 */
async function pooledPhase(p, once, marked) {
  const jobs = [];
  await pool(p.jobs, p.concurrency, async () => {
    const t = performance.now();
    const marks = {};
    await once(marks);
    jobs.push(performance.now() - t);
    marked?.push(marks);
  });
  return jobs;
}

/** The timings every layout reports, from its throughput, 4-caller and solo phases. */
function timings(p, seconds, jobs, solo) {
  return {
    jobsPerSec: p.jobs / seconds,
    jobP50Ms: percentile(jobs, 50),
    jobP99Ms: percentile(jobs, 99),
    ms: percentile(solo, 50),
    soloP99Ms: percentile(solo, 99),
  };
}

async function measureOurs(p, dist, check, layout) {
  const { AgentQueue, AgentWorker } = await import(
    pathToFileURL(join(dirname(dist), "queue", "index.js")).href
  );
  const redis = await startRedis();
  const inProcess = layout === "in-process";
  // In-process: the worker's onMessage fills atWorker; worker process: received times are kept
  // here and matched with the child's send times after each phase.
  const atWorker = new Map();
  const received = new Map();
  let worker;
  let child;
  try {
    if (inProcess) {
      worker = await AgentWorker.start({
        connection: redis.url,
        concurrency: p.concurrency,
        options: { cliPath: p.cli },
        onMessage: (_message, info) => {
          const list = atWorker.get(info.jobId) ?? [];
          list.push(performance.now());
          atWorker.set(info.jobId, list);
        },
      });
    } else {
      child = await startWorkerProcess(p, redis.url);
    }
    const queue = await AgentQueue.connect({ connection: redis.url });
    const latencies = [];
    try {
      const once = async (marks) => {
        if (marks) marks.t0 = clock();
        const run = await queue.enqueue({ prompt: "bench" });
        if (marks) {
          marks.enqueued = clock();
          marks.id = run.id;
        }
        let assistant = 0;
        let i = 0;
        const times = inProcess ? undefined : [];
        for await (const m of run) {
          if (times) times.push(clock());
          else {
            const sent = atWorker.get(run.id)?.[i++];
            if (sent !== undefined) latencies.push(performance.now() - sent);
          }
          if (m.type === "assistant") assistant++;
        }
        if (marks) marks.end = clock();
        if (times) received.set(run.id, times);
        else atWorker.delete(run.id);
        check(assistant);
      };
      /** Worker process: the latencies of the runs since the last call (clocks of both processes). */
      const collect = async () => {
        const { sent, cpu } = await child.dump();
        for (const [jobId, times] of received) {
          const at = sent.get(jobId) ?? [];
          times.forEach((t, i) => {
            if (at[i] !== undefined) latencies.push(t - at[i]);
          });
        }
        received.clear();
        return cpu;
      };
      for (let i = 0; i < 2; i++) await once();
      if (child) await collect();
      latencies.length = 0;
      const solo = await soloPhase(p, once);
      const cpuBefore = child ? await collect() : undefined;
      const idle = latencies.splice(0);
      const { seconds, ownCpuMs, redisCpuMs } = await throughputPhase(p, redis, once);
      const cpuAfter = child ? await collect() : undefined;
      const loaded = latencies.splice(0);
      const marked = [];
      const jobs = await pooledPhase(p, once, marked);
      if (child) await collect();
      const phases = await jobPhases(redis.url, marked);
      return {
        ...timings(p, seconds, jobs, solo),
        msgP50Ms: percentile(idle, 50),
        msgP99Ms: percentile(idle, 99),
        msgLoadedP50Ms: percentile(loaded, 50),
        msgLoadedP99Ms: percentile(loaded, 99),
        ...phases,
        redisCpuMsPerJob: redisCpuMs / p.jobs,
        ...(cpuBefore && cpuAfter
          ? {
              producerCpuMsPerJob: ownCpuMs / p.jobs,
              workerCpuMsPerJob: (cpuMs(cpuAfter) - cpuMs(cpuBefore)) / p.jobs,
            }
          : { cpuMsPerJob: ownCpuMs / p.jobs }),
      };
    } finally {
      await queue.close();
    }
  } finally {
    await worker?.close({ graceMs: 1_000 });
    await child?.stop();
    await redis.stop();
  }
}

/**
 * The BullMQ floor: a bare Queue.add + waitUntilFinished producer here, a bare BullMQ Worker
 * running the direct query() in a child process; the same phases as {@link measureOurs}.
 */
async function measureFloor(p, check) {
  const { Queue, QueueEvents } = await import("bullmq");
  const redis = await startRedis();
  const url = new URL(redis.url);
  const connection = { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null };
  let child;
  let queue;
  let events;
  try {
    child = await startWorkerProcess(p, redis.url, "floor-worker");
    queue = new Queue(FLOOR_QUEUE, { connection });
    events = new QueueEvents(FLOOR_QUEUE, { connection });
    // Each waitUntilFinished listens on both until its job ends; 200 are waiting at once.
    queue.setMaxListeners(p.jobs + 10);
    events.setMaxListeners(p.jobs + 10);
    await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
    const once = async () => {
      const job = await queue.add("run", { prompt: "bench" });
      const { assistant } = await job.waitUntilFinished(events);
      check(assistant);
    };
    for (let i = 0; i < 2; i++) await once();
    const solo = await soloPhase(p, once);
    const { cpu: cpuBefore } = await child.dump();
    const { seconds, ownCpuMs, redisCpuMs } = await throughputPhase(p, redis, once);
    const { cpu: cpuAfter } = await child.dump();
    const jobs = await pooledPhase(p, once);
    return {
      ...timings(p, seconds, jobs, solo),
      producerCpuMsPerJob: ownCpuMs / p.jobs,
      workerCpuMsPerJob: (cpuMs(cpuAfter) - cpuMs(cpuBefore)) / p.jobs,
      redisCpuMsPerJob: redisCpuMs / p.jobs,
    };
  } finally {
    await events?.close();
    await queue?.close();
    await child?.stop();
    await redis.stop();
  }
}

/**
 * Where the time of each job of the 4-caller phase went, from timestamps of the same machine's
 * wall clock: the producer's (enqueue called / resolved, end entry read), BullMQ's (the job's
 * `timestamp`, `processedOn` and `finishedOn`, Date.now() of the producer and the worker) and
 * redis-server's (the ids of the run's stream entries: start, first messages, end). Read after
 * the phase, so nothing here runs while it is measured. Each phase's p50 and p99, in ms:
 * `enqueue` (the call), `pickup` (added → a worker's moveToActive), `startEntry` (→ the start
 * entry written), `firstMessages` (→ the first messages' entry: the start round trip, spawn, the
 * CLI's first output), `run` (→ the end entry), `finished` (end entry → BullMQ's completed),
 * `delivered` (end entry → the producer has read it).
 */
async function jobPhases(url, marked) {
  const { Redis } = await import("ioredis");
  const redis = new Redis(url);
  try {
    const spans = {
      enqueue: [],
      pickup: [],
      startEntry: [],
      firstMessages: [],
      run: [],
      finished: [],
      delivered: [],
    };
    for (const m of marked) {
      const job = await redis.hgetall(`code-agent:agent-runs:${m.id}`);
      const entries = await redis.xrange(`code-agent:agent-runs:run:${m.id}:messages`, "-", "+");
      if (entries.length < 3) continue;
      const at = (i) => Number(entries.at(i)[0].split("-")[0]);
      const [added, active, finished] = [job.timestamp, job.processedOn, job.finishedOn].map(Number);
      spans.enqueue.push(m.enqueued - m.t0);
      spans.pickup.push(active - added);
      spans.startEntry.push(at(0) - active);
      spans.firstMessages.push(at(1) - at(0));
      spans.run.push(at(-1) - at(1));
      spans.finished.push(finished - at(-1));
      spans.delivered.push(m.end - at(-1));
    }
    return Object.fromEntries(
      Object.entries(spans).flatMap(([k, v]) => [
        [`phase_${k}P50Ms`, percentile(v, 50)],
        [`phase_${k}P99Ms`, percentile(v, 99)],
      ]),
    );
  } finally {
    redis.disconnect();
  }
}

/** The names of a layout's metrics: `suffix` after each key. */
const suffixed = (result, suffix) =>
  Object.fromEntries(Object.entries(result).map(([k, v]) => [`${k}${suffix}`, v]));
const workerProc = (result) => suffixed(result, "WorkerProc");

const LAYOUTS = (process.env.BENCH_QUEUE_LAYOUTS ?? "in-process,worker-process,floor").split(",");

const p = params();
if (p.role === "worker") {
  await workerProcess(p);
} else if (p.role === "floor-worker") {
  await floorWorkerProcess(p);
} else {
  await guard(async () => {
    const dist = process.env.BENCH_DIST;
    const expected = Number(process.env.FAKE_N);
    const check = (count) => {
      if (count !== expected)
        throw new Error(`a run yielded ${count} assistant messages, expected ${expected}`);
    };

    if (p.impl === "raw") {
      const sdk = await import(pathToFileURL(dist).href);
      const once = async () => {
        let assistant = 0;
        for await (const m of sdk.query({ prompt: "bench", options: { cliPath: p.cli } }))
          if (m.type === "assistant") assistant++;
        check(assistant);
      };
      for (let i = 0; i < 2; i++) await once(); // warm-up, as for ours
      const solo = await soloPhase(p, once);
      // Direct's throughput is its 4-caller phase: the pool's width is the limit.
      const cpu = process.cpuUsage();
      const t0 = performance.now();
      const jobs = await pooledPhase(p, once);
      const seconds = (performance.now() - t0) / 1000;
      const used = process.cpuUsage(cpu);
      const result = {
        ...timings(p, seconds, jobs, solo),
        msgP50Ms: 0,
        msgP99Ms: 0,
        msgLoadedP50Ms: 0,
        msgLoadedP99Ms: 0,
        cpuMsPerJob: cpuMs(used) / p.jobs,
      };
      report({ ...result, ...workerProc(result), ...suffixed(result, "BullFloor") });
      return;
    }

    const has = (layout) => LAYOUTS.includes(layout);
    const inProcess = has("in-process") ? await measureOurs(p, dist, check, "in-process") : {};
    const split = has("worker-process") ? await measureOurs(p, dist, check, "worker-process") : {};
    const floor = has("floor") ? await measureFloor(p, check) : {};
    report({ ...inProcess, ...workerProc(split), ...suffixed(floor, "BullFloor") });
  });
}
