/**
 * Worker processes ("machines") for the queue tests, and small waits on events.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const FIXTURE = fileURLToPath(new URL("../../fixtures/queue/worker.mts", import.meta.url));
export const FAKE_CLAUDE = fileURLToPath(new URL("../../fixtures/fake-cli/fake-claude.mjs", import.meta.url));

export interface WorkerConfig {
  url: string;
  queueName: string;
  cliPath?: string;
  concurrency?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  graceMs?: number;
  retryMode?: string;
}

/** One worker process and what it reported. */
export interface WorkerProcess extends AsyncDisposable {
  readonly proc: ChildProcess;
  readonly watchdogPid: number;
  /** `jobId attempt` of every run this worker started. */
  readonly runs: { jobId: string; attempt: number }[];
  /** Resolves when this worker starts a run of `jobId`. */
  started(jobId: string): Promise<void>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  stderr(): string;
}

/** Starts a worker process; resolves once it takes jobs. */
export async function startWorker(config: WorkerConfig): Promise<WorkerProcess> {
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", FIXTURE, JSON.stringify({ cliPath: FAKE_CLAUDE, ...config })],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  proc.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  const runs: { jobId: string; attempt: number }[] = [];
  const waiters = new Map<string, () => void>();
  let watchdogPid = 0;
  const ready = new Promise<void>((resolve, reject) => {
    exited.then(() => reject(new Error(`worker exited before it was ready:\n${stderr}`)));
    createInterface({ input: proc.stdout! }).on("line", (line) => {
      const [what, a, b] = line.split(" ");
      if (what === "ready") {
        watchdogPid = Number(a);
        resolve();
      } else if (what === "run" && a) {
        runs.push({ jobId: a, attempt: Number(b) });
        waiters.get(a)?.();
      }
    });
  });
  await ready;
  return {
    proc,
    get watchdogPid() {
      return watchdogPid;
    },
    runs,
    started: (jobId) =>
      runs.some((r) => r.jobId === jobId)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.set(jobId, resolve)),
    exited,
    stderr: () => stderr,
    async [Symbol.asyncDispose]() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill("SIGKILL");
        await exited;
      }
    },
  };
}

/**
 * Resolves once `condition()` holds, checking every 20 ms: for things no event announces (a process
 * of another parent exiting). Rejects after `timeoutMs` with `what`.
 */
export async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The C stand-in for claude (~1 ms to start instead of ~40 ms for a node script), compiled into
 * `dir`, with the result text it answers; the node fake claude when no C compiler is on PATH.
 */
export function fastClaude(dir: string): { cliPath: string; resultText: string } {
  const source = fileURLToPath(new URL("../../fixtures/fake-cli/fast-claude.c", import.meta.url));
  for (const cc of ["cc", "gcc", "clang"]) {
    try {
      const binary = join(dir, "fast-claude");
      execFileSync(cc, ["-O2", "-o", binary, source], { stdio: "pipe" });
      return { cliPath: binary, resultText: "fast" };
    } catch {
      // not this compiler (or none): try the next, then fall back to the node fake
    }
  }
  return { cliPath: FAKE_CLAUDE, resultText: "ok" };
}
