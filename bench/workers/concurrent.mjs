/**
 * Many sessions at once in one process: all must finish, and afterwards every child must be
 * reaped and every pipe closed (fd and child counts back to the baseline taken before).
 */
import { guard, loadRunner, params, report } from "./common.mjs";
import { childPids, countFds, settle, warmUp } from "./proc.mjs";

await guard(async () => {
  const p = params();
  const run = await loadRunner(p.impl, p.backend);
  const expected = Number(process.env.FAKE_N);
  // Baseline after one ordinary session: resources created on first use (libuv's SIGCHLD pipe,
  // lazily loaded modules) are not leaks.
  await warmUp(run, p.cli);
  const base = { fds: countFds(), children: childPids().length };
  let peak = { ...base };
  // Sampled, not exact: enough to show the sessions really overlapped.
  const sampler = setInterval(() => {
    peak = { fds: Math.max(peak.fds, countFds()), children: Math.max(peak.children, childPids().length) };
  }, 20);
  const t0 = performance.now();
  const results = await Promise.allSettled(
    Array.from({ length: p.sessions }, () => run({ cli: p.cli, prompt: "bench" })),
  );
  const ms = performance.now() - t0;
  clearInterval(sampler);
  const complete = results.filter((r) => r.status === "fulfilled" && r.value.assistant === expected).length;
  const failure = results.find((r) => r.status === "rejected");
  const after = await settle(base);
  report({
    ms,
    complete,
    sessions: p.sessions,
    firstError: failure ? String(failure.reason?.message ?? failure.reason).slice(0, 160) : undefined,
    fdsBase: base.fds,
    fdsPeak: peak.fds,
    fdsLeft: after.fds - base.fds,
    childrenPeak: peak.children,
    childrenLeft: after.children - base.children,
    settleMs: after.settleMs,
  });
});
