/**
 * `npm run bench`: code-agent-sdk against the raw floor and the official SDKs, on fake CLIs.
 *
 * Each trial is a fresh node process (see lib/trial.ts). Within a scenario, each repetition runs
 * raw, ours and the anchor back to back, in an order that rotates from one repetition to the next,
 * so drift in machine load or cache state does not favour whichever always goes first; the table
 * reports medians and paired ratios. Every process the run starts carries a marker in its
 * environment and is checked for (and killed, by pid) after each trial and at the end.
 *
 * Environment: BENCH_QUICK=1 (one repetition each: smoke run), BENCH_ONLY=<id prefixes, comma
 * separated> (a subset of scenarios), BENCH_SKIP_BUILD=1 (measure dist/ as it is), BENCH_DIST=<path
 * to an index.js> (measure another build, e.g. a candidate optimisation), CC (compiler).
 *
 * `--node 20,22,24`: every selected scenario on each of those Node lines (lib/node-versions.ts), one
 * table per line, then the targets of all lines side by side.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { reapLeftovers } from "./lib/leftovers.js";
import { IMPLS, type Impl, Outcome, type Scenario } from "./lib/model.js";
import { type NodeLine, nodeArg, nodeLines } from "./lib/node-versions.js";
import { FAKE_CLI } from "./lib/paths.js";
import { notes, table, targetSummary, writeJson } from "./lib/report.js";
import { scenarios } from "./lib/scenarios.js";
import { buildFake, buildSdk, ensureAnchors } from "./lib/setup.js";
import { runTrial, type Trial } from "./lib/trial.js";

const RUN_ID = randomUUID();
/** Per-trial files of the fake CLI (round-trip samples); outside the repository, removed at the end. */
const SCRATCH = mkdtempSync(join(tmpdir(), "code-agent-sdk-bench-"));
const NOT_AVAILABLE = "n/a: backend not available";

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

function short(trial: Trial): string {
  const ms = trial.result?.ms;
  if (typeof ms === "number") return ms.toFixed(ms >= 10 ? 0 : 2);
  return trial.result ? "ok" : "ERR";
}

let trialCount = 0;
let leftoverTotal = 0;

async function runScenario(
  scenario: Scenario,
  unavailable: Partial<Record<Impl, string>>,
  node: NodeLine,
): Promise<Outcome> {
  const trials: Record<Impl, Trial[]> = { raw: [], ours: [], anchor: [] };
  for (let rep = 0; rep < scenario.reps; rep++) {
    const parts: string[] = [];
    for (const impl of rotate(IMPLS, rep)) {
      if (unavailable[impl]) continue;
      trialCount += 1;
      const trial = await runTrial({
        worker: scenario.worker,
        params: { ...scenario.params, impl, backend: scenario.backend, cli: FAKE_CLI[scenario.backend] },
        env: { ...scenario.env, FAKE_REPORT: join(SCRATCH, `fake-report-${trialCount}.json`) },
        runId: RUN_ID,
        timeoutMs: scenario.timeoutMs,
        node: node.execPath,
      });
      const left = await reapLeftovers(RUN_ID);
      if (left > 0) {
        leftoverTotal += left;
        log(`  ${impl}: ${left} process(es) left behind by this trial, killed`);
      }
      trials[impl].push(trial);
      parts.push(`${impl} ${short(trial)}`);
    }
    log(`  ${node.version} ${scenario.title} [${rep + 1}/${scenario.reps}] ${parts.join("  ")}`);
  }
  return new Outcome(scenario, trials, unavailable);
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const loadAtStart = loadavg()[0]!;
  const quick = process.env.BENCH_QUICK === "1";
  const only = process.env.BENCH_ONLY?.split(",").filter(Boolean);
  const lines = nodeLines(nodeArg(process.argv.slice(2)));

  const anchors = ensureAnchors();
  const build = buildSdk();
  buildFake();

  let sdkVersion = "unavailable";
  let codexBackend = false;
  if (build.available) {
    const probe = await runTrial({
      worker: "probe.mjs",
      params: {},
      env: {},
      runId: RUN_ID,
      timeoutMs: 30_000,
    });
    if (probe.result) {
      sdkVersion = String(probe.result.version);
      codexBackend = probe.result.codexBackend === true;
    } else {
      log(`the built SDK cannot be imported: ${probe.error}`);
      build.available = false;
    }
  }

  const selected = scenarios(quick).filter((s) => !only || only.some((o) => s.id.startsWith(o)));
  log(
    `${selected.length} scenarios on ${lines.map((l) => l.version).join(", ")}${quick ? " (BENCH_QUICK: 1 repetition each)" : ""}; ${build.note}`,
  );
  const runs: { node: string; outcomes: Outcome[] }[] = [];
  for (const line of lines) {
    const outcomes: Outcome[] = [];
    for (const scenario of selected) {
      const unavailable: Partial<Record<Impl, string>> = { ...scenario.unavailable };
      if (!build.available) unavailable.ours = "n/a: dist/ could not be built or imported";
      else if (scenario.backend === "codex" && !codexBackend) unavailable.ours = NOT_AVAILABLE;
      outcomes.push(await runScenario(scenario, unavailable, line));
    }
    runs.push({ node: line.version, outcomes });
  }
  leftoverTotal += await reapLeftovers(RUN_ID);

  const seconds = (performance.now() - t0) / 1000;
  const meta = {
    date: new Date().toISOString(),
    node: lines.map((l) => l.version).join(", "),
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? "?"}`,
    sdk: `code-agent-sdk ${sdkVersion} (${build.note})`,
    anchors,
    quick,
    trials: trialCount,
    seconds: Math.round(seconds),
    leftoverProcesses: leftoverTotal,
    // Other work on the machine inflates absolute times; paired ratios are much less affected.
    loadAverage: { start: loadAtStart, end: loadavg()[0]! },
  };
  const file = writeJson(meta, runs);

  const anchorList = Object.entries(anchors)
    .map(([pkg, version]) => `${pkg}@${version}`)
    .join(", ");
  console.log(`code-agent-sdk ${sdkVersion} vs raw floor and ${anchorList}`);
  console.log(`${meta.node}, ${meta.cpus}; ${build.note}; ${trialCount} trials in ${meta.seconds} s`);
  const busy = Math.max(meta.loadAverage.start, meta.loadAverage.end);
  console.log(
    `load average ${meta.loadAverage.start.toFixed(1)} → ${meta.loadAverage.end.toFixed(1)}` +
      (busy > cpus().length ? " (machine busy: absolute times inflated, compare the paired ratios)" : ""),
  );
  console.log("values: medians over repetitions; ratios: medians of per-repetition (paired) ratios\n");
  for (const run of runs) {
    if (runs.length > 1) console.log(`\nNode ${run.node}\n`);
    console.log(table(run.outcomes));
    const why = notes(run.outcomes);
    if (why.length > 0) console.log(`\n${why.join("\n")}`);
  }
  if (runs.length > 1) console.log(`\ntargets, side by side\n\n${targetSummary(runs)}`);
  console.log(`\nleftover processes after the run: ${leftoverTotal}`);
  console.log(`results: ${file}`);
}

/** Ctrl-C: take down whatever this run started before exiting. */
process.once("SIGINT", () => {
  void reapLeftovers(RUN_ID, 0).finally(() => process.exit(130));
});

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(SCRATCH, { recursive: true, force: true }));
