/**
 * Time to first message: from calling the SDK to the first assistant message in the consumer's
 * hands, with the native fake (N = 1) so the CLI's own start costs ~1 ms and the SDK's share
 * shows. The first session of the process is reported separately ("cold": one-time work such as
 * a CLI version check lands there); the rest, after warm-up sessions, give the steady state.
 *
 * With `preload`, ours calls `await loadBackend(backend)` before the clock starts, as an
 * application does at start-up to take the lazily loaded backend out of its first query (the
 * anchors load all their code at import, which is outside the clock for every implementation).
 * With `idleMs`, every implementation waits that long on a timer before the clock starts: the host
 * is idle after the import, and ours loads its default backend in the background meanwhile.
 */
import { guard, loadRunner, params, report } from "./common.mjs";

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

await guard(async () => {
  const p = params();
  const run = await loadRunner(p.impl, p.backend);
  if (p.preload && p.impl === "ours") {
    const { sdk } = await import("./adapters/ours.mjs");
    await sdk.loadBackend(p.backend);
  }
  if (p.idleMs > 0) await new Promise((resolve) => setTimeout(resolve, p.idleMs));
  const first = [];
  const whole = [];
  for (let i = 0; i < 1 + p.warmup + p.sessions; i++) {
    const t0 = performance.now();
    const count = await run({ cli: p.cli, prompt: "bench" });
    const end = performance.now();
    if (count.assistant !== 1) throw new Error(`got ${count.assistant} of 1 messages`);
    first.push(count.firstAt - t0);
    whole.push(end - t0);
  }
  const steady = first.slice(1 + p.warmup);
  report({
    coldMs: first[0],
    ms: median(steady),
    sessionMs: median(whole.slice(1 + p.warmup)),
  });
});
