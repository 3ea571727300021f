/**
 * Cold start as a serverless function or a short script meets it: in a fresh process, `import()`
 * of the implementation and, in the same tick, one query (N = 1, the native fake answers at once)
 * up to its first message in the consumer's hands. Reports the whole (`ms`), its two parts
 * (`importMs`: the adapter's import, i.e. the package's; `firstMs`: query() → first message), and
 * the process's CPU time over the whole (`cpuMs`, all threads, so V8's background compilation
 * counts): steadier than wall time on a busy machine.
 *
 * raw: the floor's adapter (a spawn-and-parse loop, nothing to load); ours: the built package;
 * anchor: the backend's official SDK. With `compileCache`, the process calls Node's
 * `module.enableCompileCache()` (Node ≥ 22.1; the application's switch) on a directory of its own:
 * this process only starts two others on it, the first fills the cache, the second (measured, its
 * result reported as this one's) reuses the code V8 compiled then; the directory is removed
 * afterwards. On older Node both are plain cold runs.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { guard, params, RESULT_MARK, report } from "./common.mjs";

async function measure(p, cacheDir) {
  let cache = "off";
  if (cacheDir) {
    const mod = await import("node:module");
    cache = typeof mod.enableCompileCache === "function" ? "on" : "unsupported";
    if (cache === "on") mod.enableCompileCache(cacheDir);
  }
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const adapter = await import(`./adapters/${p.impl}.mjs`);
  const run = await adapter.load(p.backend);
  const t1 = performance.now();
  const count = await run({ cli: p.cli, prompt: "bench" });
  const cpu = process.cpuUsage(c0);
  if (count.assistant !== 1) throw new Error(`got ${count.assistant} of 1 messages`);
  return {
    ms: count.firstAt - t0,
    importMs: t1 - t0,
    firstMs: count.firstAt - t1,
    cpuMs: (cpu.user + cpu.system) / 1000,
    cache,
  };
}

await guard(async () => {
  const p = params();
  if (p.cacheDir) {
    report(await measure(p, p.cacheDir));
    return;
  }
  if (!p.compileCache) {
    report(await measure(p));
    return;
  }
  // This process only coordinates: one process fills the cache, a second, measured, uses it.
  const dir = mkdtempSync(join(tmpdir(), "bench-compile-cache-"));
  try {
    const self = fileURLToPath(import.meta.url);
    let last;
    for (let i = 0; i < 2; i++) {
      last = spawnSync(process.execPath, [self, JSON.stringify({ ...p, cacheDir: dir })], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
      });
      if (last.status !== 0) throw new Error(`a cold-start process failed (${last.status ?? last.signal})`);
    }
    const line = last.stdout.split("\n").find((l) => l.startsWith(RESULT_MARK));
    if (!line) throw new Error("the measured process reported nothing");
    report(JSON.parse(line.slice(RESULT_MARK.length)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
