/**
 * The published executable: package.json `bin` points at the compiled `dist/cli/main.js`, which
 * must start with a shebang and run under plain Node (no tsx). Built here, by the same script as
 * `npm run build` (tsc declarations + an esbuild bundle), into a scratch directory so the test does
 * not depend on (or disturb) the working tree's dist/.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEnv, plain, ROOT } from "./support/harness.js";

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
  execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs"), outDir], { cwd: ROOT, stdio: "pipe" });
}, 180_000);

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe("the code-agent executable", () => {
  it("is declared in package.json and built by `prepack`, so `npx code-agent` works from an installed tarball", () => {
    expect(pkg.bin).toEqual({ "code-agent": "./dist/cli/main.js" });
    expect(pkg.files).toContain("dist");
    // Built when packed (npm pack / publish / a git install), never by an install script.
    expect(pkg.scripts.prepack).toBe("npm run build");
    expect(pkg.scripts.prepare).toBeUndefined();
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

  it("import() of the package loads one chunk besides its entry, a backend its own and one shared with the others (Node pays per module)", () => {
    const staticImports = (file: string): string[] =>
      [
        ...readFileSync(file, "utf8").matchAll(
          /^(?:import|export)\s[^;]*?from\s*"(\.[^"]+)"|^import\s*"(\.[^"]+)"/gm,
        ),
      ].map((m) => join(dirname(file), (m[1] ?? m[2])!));
    const closure = (file: string, seen = new Set<string>()): Set<string> => {
      if (seen.has(file)) return seen;
      seen.add(file);
      for (const next of staticImports(file)) closure(next, seen);
      return seen;
    };
    const root = closure(join(outDir, "index.js"));
    expect(root.size).toBe(2);
    const backends = readdirSync(join(outDir, "chunks")).filter((f) => /^backend-.*\.js$/.test(f));
    expect(backends.length).toBeGreaterThanOrEqual(4);
    const shared = new Set<string>();
    for (const backend of backends) {
      const extra = [...closure(join(outDir, "chunks", backend))]
        .filter((f) => !root.has(f))
        .map((f) => basename(f));
      expect(extra[0]).toBe(backend);
      expect(extra.length).toBeLessThanOrEqual(2);
      for (const chunk of extra.slice(1)) shared.add(chunk);
    }
    expect(shared.size).toBeLessThanOrEqual(1);
  });

  it("the bundle exports exactly what the sources export, with error classes keeping their names", async () => {
    const source = await import("../../src/index.js");
    const built = (await import(pathToFileURL(join(outDir, "index.js")).href)) as Record<string, unknown>;
    expect(Object.keys(built).sort()).toEqual(Object.keys(source).sort());
    for (const [name, value] of Object.entries(built)) {
      if (typeof value === "function" && /Error$/.test(name)) {
        expect((value as { name: string }).name).toBe(name);
      }
    }
    const { InvalidOptionsError, query } = built as unknown as typeof source;
    // Options are checked in a lazily loaded chunk (the bundled zod/mini validator).
    const run = query({ prompt: "x", options: { maxTurns: 0, modle: "x" } as never });
    const failure = await run.next().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(InvalidOptionsError);
    expect((failure as InstanceType<typeof InvalidOptionsError>).name).toBe("InvalidOptionsError");
    expect(String((failure as Error).message)).toContain("maxTurns: must be greater than 0");
  });

  it("the bundled command runs the offline demo: lazy backend chunk, bundled validator, MCP SDK and testing kit from dist", async () => {
    const main = join(outDir, "cli", "main.js");
    const child = spawn(process.execPath, [main, "--demo", "--allow", "Bash", "--cwd", outDir], {
      env: cliEnv({ NO_COLOR: "1" }),
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(plain(stdout)).toMatch(/↳ get_weather\("Paris"\) handled in-process/);
    expect(plain(stdout)).toContain("Created hello.txt.");
  }, 150_000);
});
