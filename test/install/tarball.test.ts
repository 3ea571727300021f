/**
 * The README's install path, followed to the letter: `npm pack` the package (its `prepack` builds
 * it), install the tarball into an empty project, and run the README's offline example from there
 * with plain `node` — the published `exports`, types, bin and source maps, not the sources of this
 * repository. The agent CLI is the one this machine has (found as a user's would be); the model is
 * the testing kit's scripted one, so no network is needed except the npm registry (or its cache) for
 * the package's two dependencies.
 */
import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findClaudeCli } from "../../src/backends/claude/discovery.js";
import { ROOT } from "../cli/support/harness.js";

const work = mkdtempSync(join(tmpdir(), "cas-tarball-"));
const project = join(work, "my-project");
let tarball: string;
let packOutput: string;
let installOutput: string;

function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun) => {
    execFile(
      command,
      args,
      { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 600_000 },
      (error, stdout, stderr) => {
        resolveRun({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** The README's offline example: the `ts` fence right after the `offline-example` marker. */
function readmeOfflineExample(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const match = /<!-- offline-example[^>]*-->\s*```ts\n([\s\S]*?)```/.exec(readme);
  if (!match?.[1]) throw new Error("README.md has no offline-example block");
  return match[1];
}

beforeAll(async () => {
  // Pack a copy of the package sources, so the build does not touch this checkout's dist/.
  const source = join(work, "code-agent-sdk");
  mkdirSync(source);
  for (const entry of [
    "package.json",
    "README.md",
    "src",
    "scripts",
    "tsconfig.json",
    "tsconfig.build.json",
  ]) {
    cpSync(join(ROOT, entry), join(source, entry), { recursive: true });
  }
  symlinkSync(join(ROOT, "node_modules"), join(source, "node_modules"), "dir");
  const pack = await run("npm", ["pack", "--json", "--pack-destination", work], source);
  packOutput = pack.stdout + pack.stderr;
  if (pack.code !== 0) throw new Error(`npm pack failed:\n${packOutput}`);
  const [info] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf("["))) as { filename: string }[];
  tarball = join(work, info!.filename);

  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "my-project", private: true, type: "module" }),
  );
  const install = await run("npm", ["install", "--no-audit", "--no-fund", tarball], project);
  installOutput = install.stdout + install.stderr;
  if (install.code !== 0) throw new Error(`npm install of the tarball failed:\n${installOutput}`);
}, 900_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("installing the packed tarball into an empty project (the README's install path)", () => {
  const installed = () => join(project, "node_modules", "code-agent-sdk");

  it("ships dist, the sources the source maps name, and no install-time script", () => {
    const pkg = JSON.parse(readFileSync(join(installed(), "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.prepare).toBeUndefined();
    expect(pkg.scripts.install ?? pkg.scripts.postinstall ?? pkg.scripts.preinstall).toBeUndefined();
    expect(installOutput).not.toMatch(/install script|prepare/i);

    const maps = readdirSync(join(installed(), "dist"), { recursive: true, encoding: "utf8" }).filter((f) =>
      f.endsWith(".js.map"),
    );
    expect(maps.length).toBeGreaterThan(2);
    for (const map of maps) {
      const { sources, sourcesContent } = JSON.parse(
        readFileSync(join(installed(), "dist", map), "utf8"),
      ) as {
        sources: string[];
        sourcesContent?: unknown[];
      };
      expect(sourcesContent?.length).toBe(sources.length);
      for (const source of sources.filter((s) => !s.includes("node_modules"))) {
        expect(
          existsSync(resolve(dirname(join(installed(), "dist", map)), source)),
          `${map} → ${source}`,
        ).toBe(true);
      }
    }
  });

  it("runs the README's offline example with node, against the real claude CLI and the scripted model", async () => {
    const program = join(project, "offline.mjs");
    writeFileSync(program, readmeOfflineExample());
    // The CLI the way a user's machine has it: on PATH (here: the one this repository installed).
    const cli = findClaudeCli();
    const env = { ...process.env, PATH: `${dirname(cli)}:${process.env.PATH ?? ""}` };
    const result = await run(process.execPath, [program], project, env);
    expect(result.stderr).not.toMatch(/Error/);
    expect(result.stdout).toBe("2 + 2 = 4\n");
    expect(result.code).toBe(0);
  });

  it("type-checks the example against the installed package's types", async () => {
    writeFileSync(join(project, "offline.ts"), readmeOfflineExample());
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ["offline.ts"],
      }),
    );
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    const result = await run(process.execPath, [tsc, "-p", "tsconfig.json"], project);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  it("`require()` fails with the error the README quotes (the package is ESM only)", async () => {
    const result = await run(process.execPath, ["-e", 'require("code-agent-sdk")'], project);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('[ERR_PACKAGE_PATH_NOT_EXPORTED]: No "exports" main defined in');
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme).toContain('Error [ERR_PACKAGE_PATH_NOT_EXPORTED]: No "exports" main defined in');
  });

  it("installs the code-agent command", async () => {
    const result = await run(join(project, "node_modules", ".bin", "code-agent"), ["--version"], project);
    expect(result.stdout).toMatch(/^code-agent \d+\.\d+\.\d+\n$/);
  });
});
