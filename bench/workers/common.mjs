/**
 * Shared by every worker: parameters in (argv[2], JSON), one result out (a marked stdout line the
 * orchestrator looks for, so stray output from an SDK cannot be mistaken for a result).
 */
export const RESULT_MARK = "@@bench-result ";

/** The worker's parameters, as the orchestrator passed them. */
export function params() {
  return JSON.parse(process.argv[2] ?? "{}");
}

/** Reports the result; call once. */
export function report(result) {
  process.stdout.write(`${RESULT_MARK}${JSON.stringify(result)}\n`);
}

/**
 * Imports the implementation `impl` ("raw" | "ours" | "anchor") and returns its runner for
 * `backend`. With `floor: "lines"` the raw floor is the iterated one (adapters/raw-lines.mjs).
 */
export async function loadRunner(impl, backend, floor) {
  const file = impl === "raw" && floor === "lines" ? "raw-lines" : impl;
  const adapter = await import(`./adapters/${file}.mjs`);
  return adapter.load(backend);
}

/** Runs `main`, reporting a thrown error as the result instead of a crash with a stack trace. */
export async function guard(main) {
  try {
    await main();
  } catch (error) {
    report({ error: `${error?.name ?? "Error"}: ${String(error?.message ?? error).slice(0, 300)}` });
    process.exitCode = 1;
  }
}
