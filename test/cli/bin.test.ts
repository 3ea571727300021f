/**
 * The published executable: package.json `bin` points at the compiled `dist/cli/main.js`, which
 * must start with a shebang and run under plain Node (no tsx). Built here into a scratch directory
 * so the test does not depend on (or disturb) the working tree's dist/.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./support/harness.js";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
  files: string[];
};

let outDir: string;

beforeAll(() => {
  // Inside the project, so the compiled files resolve the project's node_modules.
  mkdirSync(join(ROOT, ".tmp"), { recursive: true });
  outDir = mkdtempSync(join(ROOT, ".tmp", "bin-dist-"));
  execFileSync(
    process.execPath,
    [
      join(ROOT, "node_modules", "typescript", "bin", "tsc"),
      "-p",
      join(ROOT, "tsconfig.build.json"),
      "--outDir",
      outDir,
    ],
    { cwd: ROOT, stdio: "pipe" },
  );
}, 180_000);

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe("the code-agent executable", () => {
  it("is declared in package.json and built by `prepare`, so `npx code-agent` works after `npm install`", () => {
    expect(pkg.bin).toEqual({ "code-agent": "./dist/cli/main.js" });
    expect(pkg.files).toContain("dist");
    expect(pkg.scripts.prepare).toBe("npm run build");
  });

  it("the compiled entry starts with a node shebang and runs without tsx", () => {
    const main = join(outDir, "cli", "main.js");
    expect(readFileSync(main, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(execFileSync(process.execPath, [main, "--version"], { encoding: "utf8" })).toMatch(
      /^code-agent \d+\.\d+\.\d+\n$/,
    );
    expect(execFileSync(process.execPath, [main, "--help"], { encoding: "utf8" })).toContain(
      "Usage: code-agent",
    );
  });
});
