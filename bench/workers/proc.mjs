/**
 * What this process holds open: file descriptors and child processes. The lifecycle scenarios
 * compare these before and after, because a leaked pipe or an unreaped child is exactly the kind of
 * bug a benchmark loop of many sessions exposes and a single test run does not.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Open file descriptors of this process. */
export function countFds() {
  return readdirSync("/proc/self/fd").length;
}

/** Pids of this process's live children (from every thread: a child belongs to the forking thread). */
export function childPids() {
  const pids = [];
  for (const task of readdirSync("/proc/self/task")) {
    try {
      for (const pid of readFileSync(`/proc/self/task/${task}/children`, "utf8").split(" ")) {
        if (pid) pids.push(Number(pid));
      }
    } catch {
      // The thread ended while we listed it.
    }
  }
  return pids;
}

/**
 * Polls until fds and children are back to `base` or `timeoutMs` passes; returns what it saw last
 * and how long it took. Exited children and closed pipes are released asynchronously, so "right
 * after the last message" is too early to call anything a leak.
 */
export async function settle(base, timeoutMs = 5000) {
  const t0 = performance.now();
  for (;;) {
    const now = { fds: countFds(), children: childPids().length };
    const waited = performance.now() - t0;
    if ((now.fds <= base.fds && now.children <= base.children) || waited >= timeoutMs) {
      return { ...now, settleMs: waited };
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** One small session (1 message), so that later counts compare like with like. */
export async function warmUp(run, cli) {
  const saved = { n: process.env.FAKE_N, s: process.env.FAKE_S };
  process.env.FAKE_N = "1";
  process.env.FAKE_S = "200";
  try {
    await run({ cli, prompt: "warm-up" });
  } finally {
    process.env.FAKE_N = saved.n;
    process.env.FAKE_S = saved.s;
  }
}
