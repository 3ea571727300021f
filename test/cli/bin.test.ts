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

  it("import() of the package loads one chunk besides its entry; a Codex or Claude query loads its backend and the groups of shared code it runs, not ACP's, the installer's or the CLI's (Node pays per module and per byte)", () => {
    const staticImports = (file: string): string[] =>
      [
        ...readFileSync(file, "utf8").matchAll(
          /^(?:import|export)\s[^;]*?from\s*"([^"]+)"|^import\s*"([^"]+)"/gm,
        ),
      ].map((m) => (m[1] ?? m[2])!);
    const relative = (file: string): string[] =>
      staticImports(file)
        .filter((spec) => spec.startsWith("."))
        .map((spec) => join(dirname(file), spec));
    const closure = (file: string, seen = new Set<string>()): Set<string> => {
      if (seen.has(file)) return seen;
      seen.add(file);
      for (const next of relative(file)) closure(next, seen);
      return seen;
    };
    /** The source files bundled into a chunk, from its source map. */
    const sourcesOf = (file: string): string[] =>
      (JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] }).sources.map((source) =>
        source.replace(/^(\.\.\/)+/, ""),
      );
    const root = closure(join(outDir, "index.js"));
    expect(root.size).toBe(2);
    // Telemetry's code (spans, metrics, the CLI's trace environment) is loaded by runs that have
    // telemetry, on first use: not by `import()`, nor by a plain query (checked below).
    const telemetryCode = ["src/telemetry/start.ts", "src/telemetry/run.ts", "src/telemetry/cli-env.ts"];
    const rootSources = [...root].flatMap(sourcesOf);
    expect(rootSources.filter((source) => telemetryCode.includes(source))).toEqual([]);
    const backends = readdirSync(join(outDir, "chunks")).filter((f) => /^backend-.*\.js$/.test(f));
    expect(backends.length).toBeGreaterThanOrEqual(4);
    const backendOf = (name: string): string => {
      const found = backends.find((b) =>
        sourcesOf(join(outDir, "chunks", b)).includes(`src/backends/${name}/backend.ts`),
      );
      expect(found, `the ${name} backend's chunk`).toBeDefined();
      return join(outDir, "chunks", found!);
    };
    for (const name of ["codex", "claude"]) {
      const loads = [...closure(backendOf(name))].filter((f) => !root.has(f));
      expect(basename(loads[0]!)).toMatch(/^backend-/);
      // Its own chunk and at most 3 groups of shared code (~0.5 ms of CPU per module).
      expect(loads.length, `${name}: ${loads.map((f) => basename(f)).join(", ")}`).toBeLessThanOrEqual(4);
      const sources = loads.flatMap(sourcesOf);
      expect(sources).toContain(`src/backends/${name}/backend.ts`);
      // Loaded on first use only: ACP (and its SDK, which builds its zod schemas at import),
      // the installer, the command line's argument parser, the other CLI backend, and the options
      // schema with zod and Claude's settings schema (plain options are checked without them).
      const other = name === "codex" ? "claude" : "codex";
      const unneeded = sources.filter((source) =>
        [
          "src/backends/acp/",
          "src/install/installer.ts",
          "src/cli/",
          `src/backends/${other}/backend.ts`,
          "src/backends/cursor/",
          "src/options-schema.ts",
          "src/backends/claude/settings.generated.ts",
          "node_modules/zod/",
          // Recording (and its redactor): by the sessions that record only.
          "src/transport/recording",
          ...telemetryCode,
        ].some((prefix) => source.startsWith(prefix)),
      );
      expect(unneeded, name).toEqual([]);
      const packages = loads.flatMap(staticImports).filter((spec) => !spec.startsWith("."));
      expect(
        packages.filter((spec) => spec.startsWith("@agentclientprotocol/")),
        name,
      ).toEqual([]);
    }
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
