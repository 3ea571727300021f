/**
 * The scenarios of the issue, with their sizes, repetitions and targets. Repetitions are chosen so
 * a full run stays within ~5 minutes on 2 vCPUs; BENCH_QUICK=1 runs each trial once (a smoke run:
 * the ratios are then single samples).
 */
import type { Backend, Metric, Scenario } from "./model.js";
import { atMost, everyResult, overAnchor, overFloor, ratioToFloor, ratioToFloorAtLeast } from "./targets.js";

const MiB = 1024 * 1024;
/** code-agent-sdk's default maxBufferSize. */
const DEFAULT_LIMIT = 64 * MiB;

const TIME: Metric = { key: "ms", label: "time ms" };
const CPU: Metric = { key: "cpuMs", label: "consumer CPU ms" };
const PEAK_RSS: Metric = { key: "peakRssGrowthMB", label: "peak RSS growth MiB" };

/**
 * The per-message targets (issue 31): wall time and consumer CPU within 1.15× the callback floor,
 * and Claude's many small messages no slower than the floor.
 */
function throughputTargets(backend: Backend, n: number): Scenario["targets"] {
  if (backend === "claude" && n >= 100_000) return [ratioToFloor("ms", 1.0), ratioToFloor("cpuMs", 1.15)];
  return [ratioToFloor("ms", 1.15), ratioToFloor("cpuMs", 1.15)];
}

function throughput(backend: Backend, n: number, size: number, label: string, reps: number): Scenario {
  return {
    id: `throughput-${backend}-${n}x${size}`,
    title: `${backend} ${label}`,
    backend,
    worker: "throughput.mjs",
    reps,
    env: { FAKE_N: String(n), FAKE_S: String(size) },
    metrics: [TIME, CPU, PEAK_RSS],
    targets: throughputTargets(backend, n),
    timeoutMs: 120_000,
  };
}

/**
 * How the first query of the process meets ours: right after `import()` ("cold": the backend loads
 * inside the clock), after `await loadBackend()` ("preloaded"), or after the host's event loop has
 * come round for 20 ms ("idle": an application that does anything asynchronous between importing
 * the SDK and its first query, during which the SDK loads Claude, then Codex, in the background).
 * Every implementation waits the same way; only ours does something with it.
 */
type FirstQueryStart = "cold" | "preloaded" | "idle";

const FIRST_QUERY_TITLES: Record<FirstQueryStart, string> = {
  cold: "first message (N=1)",
  preloaded: "first message, backend preloaded",
  idle: "first message, 20 ms idle after import",
};

function timeToFirstMessage(backend: Backend, reps: number, start: FirstQueryStart = "cold"): Scenario {
  return {
    id: start === "cold" ? `ttfm-${backend}` : `ttfm-${start}-${backend}`,
    title: `${backend} ${FIRST_QUERY_TITLES[start]}`,
    backend,
    worker: "ttfm.mjs",
    reps,
    env: { FAKE_N: "1", FAKE_S: "200" },
    params: { warmup: 3, sessions: 20, preload: start === "preloaded", idleMs: start === "idle" ? 20 : 0 },
    metrics: [
      { key: "ms", label: "first msg ms (warm)" },
      { key: "coldMs", label: "first msg ms (1st query)" },
      { key: "sessionMs", label: "whole query ms (warm)" },
    ],
    // Checked warm and for the first query of a process: a CLI tool runs exactly one.
    targets: [overFloor("ms", 2, "ms"), overFloor("coldMs", 3, "ms")],
    timeoutMs: 60_000,
  };
}

/**
 * Time to first message with the real CLI binaries offline (the scripted model answers at once):
 * cold, warm-started, from a warm pool, and the official SDK's own warm start where it has one.
 */
function realFirstMessage(backend: Backend, reps: number): Scenario {
  return {
    id: `real-ttfm-${backend}`,
    title: `${backend} (real CLI) first message: cold / warm / pool`,
    backend,
    worker: "real-ttfm.mjs",
    reps,
    env: {},
    params: { rounds: 4 },
    metrics: [
      { key: "coldMs", label: "1st query of the process ms" },
      { key: "ms", label: "cold query ms" },
      { key: "warmMs", label: "warm-started (startup) ms" },
      { key: "poolMs", label: "from a WarmPool ms" },
      { key: "poolDelayedMs", label: "WarmPool, refillDelayMs 300 ms" },
      { key: "spareMs", label: "prewarm() spare, claimed ms" },
      { key: "warmRssMB", label: "RSS of one warm process MiB" },
    ],
    targets: [],
    timeoutMs: 180_000,
  };
}

/**
 * A fresh process that imports the implementation and, in the same tick, runs one query to its
 * first message (a serverless function, a short script): the whole, its two parts and its CPU.
 * With `compileCache`, each trial first runs one unmeasured process that fills a V8 code cache
 * through `module.enableCompileCache()` (Node ≥ 22.1; the application's switch, not the library's),
 * then measures a second one that uses it.
 */
function coldStart(backend: Backend, reps: number, compileCache = false): Scenario {
  return {
    id: compileCache ? `cold-cache-${backend}` : `cold-${backend}`,
    title: `${backend} cold start: import + first message${compileCache ? ", compile cache on" : ""}`,
    backend,
    worker: "cold-start.mjs",
    reps,
    env: { FAKE_N: "1", FAKE_S: "200" },
    params: { compileCache },
    metrics: [
      { key: "ms", label: "import + 1st message ms" },
      { key: "importMs", label: "import() ms", noFloorRatio: true },
      { key: "firstMs", label: "query() → 1st message ms" },
      { key: "cpuMs", label: "CPU ms (all threads)" },
    ],
    // The target is for Node 22 (the line users run); shown on every line.
    targets: backend === "codex" ? [overAnchor("ms", 5, "ms"), overAnchor("cpuMs", 5, "ms")] : [],
    timeoutMs: 30_000,
  };
}

function importCost(backend: Backend, reps: number, withTargets: boolean): Scenario {
  return {
    id: `import-${backend}`,
    title: `import (raw: bare node, anchor: ${backend})`,
    backend,
    worker: "import-cost.mjs",
    reps,
    env: {},
    metrics: [
      { key: "ms", label: "import() ms", noFloorRatio: true },
      { key: "rssMB", label: "RSS after import MiB" },
      { key: "readyMs", label: "import + loadBackend ms", noFloorRatio: true },
      { key: "readyRssMB", label: "RSS after loadBackend MiB" },
    ],
    targets: withTargets ? [atMost("ms", 30, "ms"), overFloor("rssMB", 10, "MiB")] : [],
    timeoutMs: 30_000,
  };
}

function overflow(backend: Backend, reps: number): Scenario {
  return {
    id: `overflow-${backend}`,
    title: `${backend} one 80 MiB line > 64 MiB limit`,
    backend,
    worker: "overflow.mjs",
    reps,
    env: { FAKE_N: "1", FAKE_S: String(80 * MiB) },
    metrics: [
      { key: "outcome", label: "outcome", text: true },
      { key: "errorName", label: "error class", text: true },
      { key: "ms", label: "time ms" },
      PEAK_RSS,
      { key: "childrenLeft", label: "children left", count: true },
    ],
    targets: [
      everyResult(
        "errorName",
        "typed error, survives",
        (r) => r.outcome === "threw" && r.typed === true && r.childrenLeft === 0,
        (o) => `${o.text("ours", "errorName") ?? "none"}`,
      ),
    ],
    timeoutMs: 120_000,
  };
}

function concurrency(backend: Backend, reps: number): Scenario {
  const sessions = 100;
  return {
    id: `concurrency-${backend}`,
    title: `${backend} ${sessions} concurrent sessions × 1000 msgs`,
    backend,
    worker: "concurrent.mjs",
    reps,
    env: { FAKE_N: "1000", FAKE_S: "200" },
    params: { sessions },
    metrics: [
      TIME,
      { key: "complete", label: "sessions complete", count: true },
      { key: "childrenPeak", label: "children (peak seen)", count: true },
      { key: "childrenLeft", label: "children left", count: true },
      { key: "fdsLeft", label: "fds left", count: true },
    ],
    targets: [
      everyResult(
        "complete",
        `all ${sessions} finish, 0 left`,
        (r) => r.complete === sessions && r.childrenLeft === 0 && (r.fdsLeft as number) <= 0,
        (o) => `${o.median("ours", "complete") ?? "?"} done`,
      ),
    ],
    timeoutMs: 120_000,
  };
}

function controlRoundTrip(reps: number): Scenario {
  return {
    id: "control-claude",
    title: "claude can_use_tool round trip (K=2000)",
    backend: "claude",
    worker: "control.mjs",
    reps,
    env: { FAKE_N: "1", FAKE_S: "200", FAKE_K: "2000" },
    metrics: [
      { key: "ms", label: "p50 ms" },
      { key: "p99Ms", label: "p99 ms" },
    ],
    targets: [atMost("ms", 1, "ms")],
    timeoutMs: 60_000,
  };
}

/**
 * A consumer that takes one message per ms for 20 s while the CLI could write 1.2 GB (12 000
 * messages of 1 000 B, 100 times): peak RSS shows what an implementation reads ahead of its
 * consumer; the rate, that holding back costs the consumer nothing.
 */
function slowConsumer(backend: Backend, reps: number): Scenario {
  return {
    id: `slow-consumer-${backend}`,
    title: `${backend} slow consumer (1 msg/ms, 20 s; CLI can write 1.2 GB)`,
    backend,
    worker: "slow-consumer.mjs",
    reps,
    env: { FAKE_N: "12000", FAKE_S: "1000", FAKE_REPEAT: "100" },
    params: { durationMs: 20_000 },
    metrics: [
      { key: "peakRssMB", label: "peak RSS MiB" },
      { key: "rate", label: "consumer msgs/s" },
    ],
    targets: [ratioToFloor("peakRssMB", 2), ratioToFloorAtLeast("rate", 0.9)],
    timeoutMs: 90_000,
  };
}

/**
 * The same session as the second query of a process (after an N = 1 warm-up query): the targets
 * apply to the first-query scenarios above; this one separates the per-message cost from the
 * one-time cost of a first query.
 */
function warmThroughput(backend: Backend, n: number, size: number, label: string, reps: number): Scenario {
  const base = throughput(backend, n, size, label, reps);
  return {
    ...base,
    id: `warm-${base.id}`,
    title: `${base.title}, 2nd query`,
    params: { warmup: true },
    targets: [],
  };
}

/**
 * The same session, with the iterated floor as "raw" (readline + `for await` + `JSON.parse`, see
 * workers/adapters/raw-lines.mjs): the floor of any API that hands messages out through an async
 * iterator. The gap between this floor and the callback floor above is the cost of iteration
 * itself; held-out measurements that compare against such a floor report smaller ratios.
 */
function iteratedFloorThroughput(
  backend: Backend,
  n: number,
  size: number,
  label: string,
  reps: number,
): Scenario {
  const base = throughput(backend, n, size, label, reps);
  return {
    ...base,
    id: `${base.id}-iterated-floor`,
    title: `${base.title}, floor iterated`,
    params: { floor: "lines" },
  };
}

/**
 * Agent runs through code-agent-sdk/queue (ours) against the same sessions run directly with
 * `query()` in one process ("raw" here); a local redis-server, the worker in the producer's process
 * and again in a child process of its own (the `…WorkerProc` rows), and BullMQ's own floor (the
 * `…BullFloor` rows).
 */
function queue(reps: number): Scenario {
  return {
    id: "queue-claude",
    title: "claude via queue (raw: same sessions by query())",
    backend: "claude",
    worker: "queue.mjs",
    reps,
    env: { FAKE_N: "20", FAKE_S: "200" },
    params: { jobs: 200, concurrency: 4, solo: 20 },
    metrics: [
      { key: "jobsPerSec", label: "jobs/s (200 jobs, 4 at a time)" },
      { key: "jobP50Ms", label: "one job end to end ms (p50, 4 callers)" },
      { key: "jobP99Ms", label: "one job end to end ms (p99, 4 callers)" },
      { key: "ms", label: "one job end to end ms (p50, idle)" },
      { key: "soloP99Ms", label: "one job end to end ms (p99, idle)" },
      { key: "msgP50Ms", label: "msg latency worker→producer p50 ms (1 run)", noFloorRatio: true },
      { key: "msgP99Ms", label: "msg latency worker→producer p99 ms (1 run)", noFloorRatio: true },
      { key: "msgLoadedP50Ms", label: "msg latency p50 ms (200 jobs, 4 at a time)", noFloorRatio: true },
      { key: "msgLoadedP99Ms", label: "msg latency p99 ms (200 jobs, 4 at a time)", noFloorRatio: true },
      // The worker in a child process of its own, as deployed (workers/queue.mjs); direct reports
      // its one layout under these names too.
      { key: "jobsPerSecWorkerProc", label: "jobs/s, worker in its own process" },
      { key: "jobP99MsWorkerProc", label: "one job ms (p99, 4 callers), worker in its own process" },
      // The floor BullMQ itself sets (workers/queue.mjs): the same direct query() in a bare BullMQ
      // Worker in a child process, a bare Queue.add + waitUntilFinished producer, nothing of ours;
      // reported in the "ours" column, its ratio to direct beside it.
      { key: "jobsPerSecBullFloor", label: "jobs/s, bare BullMQ + direct query() (BullMQ's floor)" },
      { key: "jobP99MsBullFloor", label: "one job ms (p99, 4 callers), bare BullMQ (BullMQ's floor)" },
    ],
    // Read from the in-process layout (the stricter one: producer, worker and pipes share a thread).
    targets: [ratioToFloorAtLeast("jobsPerSec", 0.8), ratioToFloor("jobP99Ms", 2)],
    // Three layouts of ours (in-process, worker process, BullMQ's floor) per trial.
    timeoutMs: 360_000,
    unavailable: { anchor: "n/a: no official SDK queues agent runs" },
  };
}

/**
 * What telemetry costs (issue 30), one Claude session of 100 000 messages per trial, the columns
 * reused: raw = telemetry off in options, ours = nothing registered (the default), anchor = an
 * in-memory exporter and a meter provider passed in options (workers/telemetry.mjs). Nothing
 * registered must cost nothing: ours/raw within noise.
 */
function telemetry(reps: number): Scenario {
  return {
    id: "telemetry-claude",
    title:
      "claude telemetry, 100 000 × 200 B (raw: off; ours: nothing registered; anchor: in-memory exporter)",
    backend: "claude",
    worker: "telemetry.mjs",
    reps,
    env: { FAKE_N: "100000", FAKE_S: "200" },
    metrics: [TIME, CPU, { key: "usPerMessage", label: "µs per message" }],
    targets: [ratioToFloor("ms", 1.1), ratioToFloor("cpuMs", 1.1)],
    timeoutMs: 120_000,
  };
}

export function scenarios(quick: boolean): Scenario[] {
  const reps = (full: number): number => (quick ? 1 : full);
  return [
    throughput("claude", 100_000, 200, "100 000 × 200 B", reps(7)),
    throughput("claude", 2_000, 50_000, "2 000 × 50 KB", reps(7)),
    throughput("codex", 100_000, 200, "100 000 × 200 B", reps(7)),
    throughput("codex", 2_000, 50_000, "2 000 × 50 KB", reps(7)),
    iteratedFloorThroughput("claude", 100_000, 200, "100 000 × 200 B", reps(7)),
    iteratedFloorThroughput("claude", 2_000, 50_000, "2 000 × 50 KB", reps(5)),
    iteratedFloorThroughput("codex", 100_000, 200, "100 000 × 200 B", reps(7)),
    iteratedFloorThroughput("codex", 2_000, 50_000, "2 000 × 50 KB", reps(5)),
    warmThroughput("claude", 100_000, 200, "100 000 × 200 B", reps(5)),
    warmThroughput("claude", 2_000, 50_000, "2 000 × 50 KB", reps(5)),
    warmThroughput("codex", 100_000, 200, "100 000 × 200 B", reps(5)),
    warmThroughput("codex", 2_000, 50_000, "2 000 × 50 KB", reps(5)),
    coldStart("codex", reps(9)),
    coldStart("claude", reps(5)),
    coldStart("codex", reps(5), true),
    timeToFirstMessage("claude", reps(7)),
    timeToFirstMessage("codex", reps(7)),
    timeToFirstMessage("claude", reps(5), "preloaded"),
    timeToFirstMessage("codex", reps(5), "preloaded"),
    timeToFirstMessage("claude", reps(5), "idle"),
    timeToFirstMessage("codex", reps(5), "idle"),
    importCost("claude", reps(9), true),
    importCost("codex", reps(3), false),
    {
      ...throughput("claude", 3, 20_000_000, "3 × 20 MB lines", reps(3)),
      targets: [],
    },
    {
      ...throughput("claude", 1, DEFAULT_LIMIT, "one 64 MiB line (= limit)", reps(3)),
      targets: [atMost("peakRssGrowthMB", 4 * 64, "MiB")],
    },
    overflow("claude", reps(2)),
    overflow("codex", reps(1)),
    concurrency("claude", reps(3)),
    concurrency("codex", reps(3)),
    controlRoundTrip(reps(5)),
    realFirstMessage("claude", reps(3)),
    realFirstMessage("codex", reps(3)),
    slowConsumer("claude", reps(1)),
    slowConsumer("codex", reps(1)),
    queue(reps(3)),
    telemetry(reps(5)),
  ];
}
