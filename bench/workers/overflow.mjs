/**
 * One line over `maxBufferSize` (FAKE_S is set above the SDK's default limit of 64 MiB): does the
 * implementation report a catchable, typed error, and does the process survive with its child
 * gone? The anchors have no such limit: whatever they do (read it, throw, run out of memory) is
 * the finding. A crash never reaches report(); the orchestrator records the exit status instead.
 */
import { pathToFileURL } from "node:url";
import { guard, loadRunner, params, report } from "./common.mjs";
import { childPids, countFds, settle, warmUp } from "./proc.mjs";

await guard(async () => {
  const p = params();
  const run = await loadRunner(p.impl, p.backend);
  const sdk = p.impl === "ours" ? (await import("./adapters/ours.mjs")).sdk : undefined;
  // The typed errors of the byte layer are exported from the package's transport entry.
  const transportEntry =
    sdk === undefined
      ? undefined
      : await import(new URL("transport/index.js", pathToFileURL(process.env.BENCH_DIST)).href);
  // Baseline after one ordinary session: resources created on first use (libuv's SIGCHLD pipe,
  // lazily loaded modules) are not leaks.
  await warmUp(run, p.cli);
  const base = { fds: countFds(), children: childPids().length };
  const rssBefore = process.memoryUsage.rss();
  const t0 = performance.now();
  let outcome;
  try {
    const count = await run({ cli: p.cli, prompt: "bench" });
    outcome = { outcome: count.assistant === 1 ? "read it" : `read ${count.assistant} messages` };
  } catch (error) {
    outcome = {
      outcome: "threw",
      errorName: error?.name ?? typeof error,
      typed: sdk
        ? error instanceof transportEntry.BufferOverflowError && error instanceof sdk.AgentSdkError
        : undefined,
      message: String(error?.message ?? error).slice(0, 160),
    };
  }
  const ms = performance.now() - t0;
  const after = await settle(base);
  report({
    ...outcome,
    ms,
    peakRssGrowthMB: (process.resourceUsage().maxRSS * 1024 - rssBefore) / 2 ** 20,
    childrenLeft: after.children - base.children,
    fdsLeft: after.fds - base.fds,
  });
});
