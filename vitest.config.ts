import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
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
