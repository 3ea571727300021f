/**
 * Import cost in a fresh process: how long `import()` of one package takes and what RSS the
 * process has afterwards. The "raw" implementation imports nothing: bare node, the baseline for
 * the RSS delta. "ours" is the built package (dist/index.js, what `import("code-agent-sdk")`
 * loads); "anchor" is the backend's official SDK.
 *
 * For ours it also reports `readyMs`/`readyRssMB`: `import()` plus `await loadBackend(backend)`,
 * i.e. everything a first query of that backend loads (its code, which `import()` leaves out on
 * purpose) and the backend's warm-up (one in-memory turn, so the first query runs compiled code).
 * The anchors load everything at `import()`, so for them (and for bare node) ready = import.
 */
import { pathToFileURL } from "node:url";
import { guard, params, report } from "./common.mjs";

const SPECIFIERS = {
  raw: () => undefined,
  ours: () => pathToFileURL(process.env.BENCH_DIST).href,
  anchor: (backend) => (backend === "claude" ? "@anthropic-ai/claude-agent-sdk" : "@openai/codex-sdk"),
};

await guard(async () => {
  const { impl, backend } = params();
  const specifier = SPECIFIERS[impl](backend);
  const t0 = performance.now();
  if (specifier) await import(specifier);
  const ms = performance.now() - t0;
  const rssMB = process.memoryUsage.rss() / 2 ** 20;
  if (impl === "ours") {
    const sdk = await import(specifier);
    const t1 = performance.now();
    await sdk.loadBackend(backend);
    const readyMs = ms + (performance.now() - t1);
    report({ ms, rssMB, readyMs, readyRssMB: process.memoryUsage.rss() / 2 ** 20 });
    return;
  }
  report({ ms, rssMB, readyMs: ms, readyRssMB: rssMB });
});
