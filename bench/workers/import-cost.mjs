/**
 * Import cost in a fresh process: how long `import()` of one package takes and what RSS the
 * process has afterwards. The "raw" implementation imports nothing: bare node, the baseline for
 * the RSS delta. "ours" is the built package (dist/index.js, what `import("code-agent-sdk")`
 * loads); "anchor" is the backend's official SDK.
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
  report({ ms, rssMB: process.memoryUsage.rss() / 2 ** 20 });
});
