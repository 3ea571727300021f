/**
 * What telemetry costs end to end: one Claude session of FAKE_N messages through code-agent-sdk,
 * timed like throughput.mjs, in the mode `impl` names (the bench's three columns reused):
 *
 * - `raw`: telemetry off in the options (`telemetry: { enabled: false }`);
 * - `ours`: nothing registered and nothing passed (the default: a symbol lookup per run, and
 *   `@opentelemetry/api` is never loaded);
 * - `anchor`: a TracerProvider with an in-memory exporter and a MeterProvider passed in options
 *   (every span and metric recorded).
 *
 * A warm-up session runs first (as throughput.mjs with `warmup`), so what is timed is the per-run
 * and per-message cost, not module loading.
 */

import { sdk } from "./adapters/ours.mjs";
import { guard, params, report } from "./common.mjs";

async function consume(options) {
  let assistant = 0;
  for await (const message of sdk.query({ prompt: "bench", options }))
    if (message.type === "assistant") assistant++;
  return assistant;
}

await guard(async () => {
  const p = params();
  let telemetry;
  let shutdown = async () => {};
  if (p.impl === "raw") telemetry = { enabled: false };
  else if (p.impl === "anchor") {
    const { MeterProvider } = await import("@opentelemetry/sdk-metrics");
    const { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } = await import(
      "@opentelemetry/sdk-trace"
    );
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const meterProvider = new MeterProvider();
    telemetry = { tracerProvider, meterProvider };
    shutdown = async () => {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    };
  }
  const options = { cliPath: p.cli, ...(telemetry ? { telemetry } : {}) };
  const expected = Number(process.env.FAKE_N);
  process.env.FAKE_N = "1";
  if ((await consume(options)) !== 1) throw new Error("warm-up got no message");
  process.env.FAKE_N = String(expected);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const count = await consume(options);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  if (count !== expected) throw new Error(`got ${count} of ${expected} messages`);
  await shutdown();
  report({ ms, cpuMs: (cpu.user + cpu.system) / 1000, usPerMessage: (ms * 1000) / expected });
});
