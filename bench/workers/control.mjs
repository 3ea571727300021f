/**
 * Control round trip: the fake sends FAKE_K can_use_tool requests one after another and times
 * each from writing the request to reading the answer (one clock, outside the process under
 * test). The SDKs answer through a canUseTool callback that allows; the raw floor answers inline.
 */
import { readFileSync } from "node:fs";
import { guard, loadRunner, params, report } from "./common.mjs";

function percentile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

await guard(async () => {
  const p = params();
  const run = await loadRunner(p.impl, p.backend);
  let calls = 0;
  const canUseTool = async (_toolName, input) => {
    calls += 1;
    return { behavior: "allow", updatedInput: input };
  };
  const t0 = performance.now();
  await run({ cli: p.cli, prompt: "bench", canUseTool });
  const ms = performance.now() - t0;
  const fake = JSON.parse(readFileSync(process.env.FAKE_REPORT, "utf8"));
  if (fake.notAllowed > 0) throw new Error(`${fake.notAllowed} of ${fake.k} requests were not allowed`);
  if (p.impl !== "raw" && calls !== fake.k) throw new Error(`canUseTool ran ${calls} times for ${fake.k}`);
  const sorted = fake.samplesNs.map((ns) => ns / 1e6).sort((a, b) => a - b);
  report({ ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), totalMs: ms });
});
