/**
 * Finds processes this run started that are still alive. Every worker, and through it every fake
 * CLI, inherits BENCH_RUN_ID=<random> in its environment, so the check is exact: it never
 * matches a process this run did not start, whoever else is using the machine.
 */
import { readdirSync, readFileSync } from "node:fs";

function isMarked(pid: string, marker: string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // A zombie is already dead; its parent (or init) reaps it.
    if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return false;
    return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(marker);
  } catch {
    return false; // gone meanwhile, or not ours to read
  }
}

/** Pids of live processes carrying `BENCH_RUN_ID=runId`, other than this one. */
export function markedProcesses(runId: string): number[] {
  const marker = `BENCH_RUN_ID=${runId}`;
  const self = String(process.pid);
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name) && name !== self && isMarked(name, marker))
    .map(Number);
}

/**
 * Waits up to `graceMs` for this run's processes to go away (a fake that got SIGTERM a moment ago
 * may still be exiting), then SIGKILLs, by pid, whatever is left. Returns how many were left.
 */
export async function reapLeftovers(runId: string, graceMs = 1000): Promise<number> {
  const deadline = performance.now() + graceMs;
  let left = markedProcesses(runId);
  while (left.length > 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    left = markedProcesses(runId);
  }
  for (const pid of left) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // exited between the scan and the kill
    }
  }
  return left.length;
}
