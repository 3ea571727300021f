/**
 * One trial = one fresh `node` process running one worker for one implementation. A fresh process
 * per trial keeps JIT state, heap growth and loaded modules of one implementation from colouring
 * another's numbers, and makes RSS and CPU figures per-implementation by construction.
 *
 * Workers run under plain node (no tsx loader): they are .mjs, and a loader hook would tax every
 * module load, i.e. exactly the import costs being measured.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { DIST_ENTRY, WORKERS_DIR } from "./paths.js";

/** Must match workers/common.mjs. */
const RESULT_MARK = "@@bench-result ";
const STDERR_TAIL_BYTES = 4096;

export type TrialResult = Record<string, unknown>;

export interface Trial {
  /** The worker's report; absent when the worker failed or crashed. */
  result?: TrialResult;
  /** Why there is no result: the worker's own error, a crash (exit status), or a timeout. */
  error?: string;
  /** Wall time of the whole process, start-up included. */
  wallMs: number;
}

export interface TrialSpec {
  worker: string;
  params: Record<string, unknown>;
  env: Record<string, string>;
  runId: string;
  timeoutMs: number;
  /** The `node` binary of the trial (another Node line, see lib/node-versions.ts); default ours. */
  node?: string;
}

export function runTrial(spec: TrialSpec): Promise<Trial> {
  const t0 = performance.now();
  const child = spawn(
    spec.node ?? process.execPath,
    [join(WORKERS_DIR, spec.worker), JSON.stringify(spec.params)],
    {
      env: { ...process.env, ...spec.env, BENCH_RUN_ID: spec.runId, BENCH_DIST: DIST_ENTRY },
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group, so a timeout can take down the worker and anything it started.
      detached: true,
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr = (stderr + text).slice(-STDERR_TAIL_BYTES);
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }, spec.timeoutMs);

  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const wallMs = performance.now() - t0;
      const line = stdout.split("\n").find((l) => l.startsWith(RESULT_MARK));
      const result = line ? (JSON.parse(line.slice(RESULT_MARK.length)) as TrialResult) : undefined;
      if (timedOut) return resolve({ error: `timed out after ${spec.timeoutMs} ms`, wallMs });
      if (result && typeof result.error === "string") return resolve({ error: result.error, wallMs });
      if (result) return resolve({ result, wallMs });
      const lastLine = stderr.trim().split("\n").slice(-1)[0] ?? "";
      resolve({ error: `crashed (${signal ?? `exit ${code}`}): ${lastLine.slice(0, 200)}`, wallMs });
    });
  });
}
