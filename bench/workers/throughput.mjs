/**
 * One session of FAKE_N messages of FAKE_S bytes in a fresh process: end-to-end wall time, the
 * consuming process's CPU time, and peak RSS growth. Used for the throughput scenarios and for the
 * big-line ones (3 × 20 MB, one 64 MiB line), which differ only in N and S.
 *
 * With `warmup` the timed session is the process's second: one N = 1 session runs first, so the
 * one-time costs of a first query (modules an implementation loads on first use, its cold code
 * paths) fall outside the window and what remains is the per-message cost.
 */
import { guard, loadRunner, params, report } from "./common.mjs";

await guard(async () => {
  const p = params();
  const run = await loadRunner(p.impl, p.backend, p.floor);
  const expected = Number(process.env.FAKE_N);
  if (p.warmup) {
    // The fake CLI reads FAKE_N from the environment every implementation passes on to it.
    process.env.FAKE_N = "1";
    const warm = await run({ cli: p.cli, prompt: "bench" });
    process.env.FAKE_N = String(expected);
    if (warm.assistant !== 1) throw new Error(`warm-up got ${warm.assistant} of 1 messages`);
  }
  const rssBefore = process.memoryUsage.rss();
  const cpu0 = process.cpuUsage();
  const windowStartUs = Number(process.hrtime.bigint() / 1000n);
  const t0 = performance.now();
  const count = await run({ cli: p.cli, prompt: "bench" });
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const windowEndUs = Number(process.hrtime.bigint() / 1000n);
  if (count.assistant !== expected) throw new Error(`got ${count.assistant} of ${expected} messages`);
  report({
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    peakRssGrowthMB: (process.resourceUsage().maxRSS * 1024 - rssBefore) / 2 ** 20,
    textChars: count.textChars,
    // The timed window on V8's profiler clock (both CLOCK_MONOTONIC, µs): lets
    // tools/profile-summary.mjs leave module loading out of a --cpu-prof profile.
    profileWindowUs: [windowStartUs, windowEndUs],
  });
});
