import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The e2e suites each start real CLI processes; two cores are the CI budget.
    maxConcurrency: 4,
    pool: "forks",
  },
});
