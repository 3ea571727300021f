/**
 * Where things are. The orchestrator runs from the repository root (`npm run bench`) or anywhere
 * else; every path is derived from this file's location so both work.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const ROOT_DIR = resolve(BENCH_DIR, "..");
/**
 * The built SDK, as users import it. BENCH_DIST=<path to an index.js> measures another build
 * instead (e.g. a candidate optimisation) without touching dist/.
 */
export const DIST_ENTRY = process.env.BENCH_DIST
  ? resolve(process.env.BENCH_DIST)
  : join(ROOT_DIR, "dist", "index.js");
/** Compiled fake CLIs and per-trial scratch files; regenerated every run. */
export const BUILD_DIR = join(BENCH_DIR, ".build");
export const WORKERS_DIR = join(BENCH_DIR, "workers");
export const RESULTS_FILE = join(BENCH_DIR, "results", "latest.json");

/** The native fake, installed under the two names that select its mode. */
export const FAKE_CLI = {
  claude: join(BUILD_DIR, "claude"),
  codex: join(BUILD_DIR, "codex"),
} as const;
