import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Files that run on one Node line only: CI runs them on the machine's Node 20 and skips them on the
 * other lines it tests (22 and 24: `.ci/run` sets `SINGLE_VERSION_FILES=skip` there). What they
 * check does not depend on the Node runtime, and they are an eighth of the suite's CPU (~450 of
 * ~3 500 file-seconds), which is what keeps three lines well inside CI's limit:
 * - the TypeScript checks (tsc compiles programs against our types; no runtime runs them);
 * - the testing kit's cross-backend conformance: the same transcripts compared across backends
 *   (each backend's own e2e suite, which drives the same CLIs, runs on every line).
 * The ACP agent matrices are not here: the JS agents run on the Node of the program that starts
 * them, and Kimi Code runs only on 22 and 24. Locally, `npm test` and `npm run test:node22` run
 * everything.
 */
export const SINGLE_VERSION_FILES = [
  "test/compat/types.test.ts",
  "test/compat/type-shapes.test.ts",
  "test/unit/options/type-tests.test.ts",
  "test/e2e/conformance.test.ts",
];

const skipSingleVersion = process.env.SINGLE_VERSION_FILES === "skip";
if (skipSingleVersion) {
  console.warn(
    `[vitest] single-version files not run on Node ${process.version}: ${SINGLE_VERSION_FILES.join(", ")}`,
  );
}

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...(skipSingleVersion ? SINGLE_VERSION_FILES : [])],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Most files wait on child processes (the real CLIs, redis-server, Chromium) far more than they
    // compute: vitest's default (one worker per core, minus one) ran one file at a time on CI's two
    // cores, at a load average of ~1.2. Two files at a time there is what lets the suite run on
    // three Node lines inside CI's limit; every timing bound in the suite holds at far higher load.
    maxWorkers: Math.max(2, availableParallelism()),
    // The e2e suites each start real CLI processes; concurrent tests of one file stay few.
    maxConcurrency: 4,
    pool: "forks",
  },
});
