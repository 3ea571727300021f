/**
 * Runs the type-level cases of `test/types/` (files of `// @ts-expect-error` cases, never run) through
 * the TypeScript checker with the repository's compiler options (`test/types/tsconfig.json`, which
 * extends the main one; the main tsconfig leaves the folder out so each file is checked once).
 * Any error fails the test, and an unused `@ts-expect-error` is an error: that is what proves a
 * case is rejected. A sentinel file with one deliberately unused directive checks that the check
 * itself still notices.
 */

import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

const HOST = join(dirname(fileURLToPath(import.meta.url)), "host", "type-diagnostics.mts");
const SENTINEL = join(dirname(fileURLToPath(import.meta.url)), "../../types", "__sentinel__.ts");
const TYPES_DIR = join(dirname(fileURLToPath(import.meta.url)), "../../types");

/** Every diagnostic of the type-test files (and the sentinel), from a process of its own. */
async function diagnostics(): Promise<string[]> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", HOST], {
    cwd: join(dirname(fileURLToPath(import.meta.url)), "../../.."),
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as string[];
}

describe("type-level tests (test/types)", () => {
  it("the folder holds the cases of options typed per backend", () => {
    expect(readdirSync(TYPES_DIR)).toContain("options.ts");
  });

  it("every case compiles as written: each @ts-expect-error is an error, and nothing else is", async () => {
    const found = await diagnostics();
    // The sentinel's unused directive is reported: the check sees an accepted "rejection".
    expect(found.filter((d) => d.startsWith(SENTINEL))).toEqual([
      expect.stringMatching(/^\S+\(2\): TS2578 Unused '@ts-expect-error' directive\.$/),
    ]);
    expect(found.filter((d) => !d.startsWith(SENTINEL))).toEqual([]);
  }, 300_000);
});
