#!/usr/bin/env node
/**
 * Where the first query of a fresh process spends its time, step by step, for ours (the cold-path
 * breakdown in bench/README.md). Each repetition is a fresh `node` process that times, in order:
 *
 * 1. `import()` of the package;
 * 2. `await loadBackend(backend)`: the backend's chunks (resolve, read, compile, evaluate) and its
 *    warm-up (one turn over an in-memory stand-in; builds before that warm-up had none);
 * 3. the backend's first `validateOptions()` of the bench's options, then a second one;
 * 4. a query with all of the above done (spawn → first assistant message), then a second query:
 *    their difference is the code the first query runs for the first time (V8 compiles functions
 *    on first call), besides what bare Node spends on its first spawn (see raw's cold figure).
 *
 * The fake CLI is bench/.build's (build it with a BENCH_QUICK=1 run first).
 *   node bench/tools/cold-parts.mjs <claude|codex> [repetitions]      (BENCH_DIST: another build)
 */
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const STEPS = ["import", "loadBackend", "validate (1st)", "validate (2nd)", "query (1st)", "query (2nd)"];

async function child(backend) {
  const cli = join(here, "..", ".build", backend);
  const options = backend === "claude" ? { cliPath: cli } : { backend: "codex", cliPath: cli };
  const times = [];
  let t = performance.now();
  const lap = () => {
    const now = performance.now();
    times.push(now - t);
    t = now;
  };
  const sdk = await import(pathToFileURL(process.env.BENCH_DIST).href);
  lap();
  const loaded = await sdk.loadBackend(backend);
  lap();
  loaded.validateOptions(options);
  lap();
  loaded.validateOptions({ ...options });
  lap();
  for (let i = 0; i < 2; i++) {
    let first;
    for await (const message of sdk.query({ prompt: "bench", options })) {
      if (message.type === "assistant" && first === undefined) first = performance.now() - t;
    }
    times.push(first);
    t = performance.now();
  }
  process.stdout.write(`${JSON.stringify(times)}\n`);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

if (process.argv[2] === "--child") {
  await child(process.argv[3]);
} else {
  const backend = process.argv[2] ?? "claude";
  const reps = Number(process.argv[3] ?? 15);
  const env = {
    ...process.env,
    BENCH_DIST: resolve(process.env.BENCH_DIST ?? join(here, "..", "..", "dist", "index.js")),
    FAKE_N: "1",
    FAKE_S: "200",
    FAKE_REPORT: "/dev/null",
  };
  const rows = [];
  for (let i = 0; i < reps; i++) {
    const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child", backend], {
      env,
      encoding: "utf8",
    });
    if (run.status !== 0) throw new Error(`child failed: ${run.stderr}`);
    rows.push(JSON.parse(run.stdout.trim().split("\n").at(-1)));
  }
  console.log(`${backend}, ${reps} fresh processes, median ms (min):`);
  STEPS.forEach((step, i) => {
    const values = rows.map((row) => row[i]);
    const min = Math.min(...values);
    console.log(`  ${step.padEnd(16)} ${median(values).toFixed(2).padStart(7)} (${min.toFixed(2)})`);
  });
}
