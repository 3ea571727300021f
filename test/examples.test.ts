/**
 * Every `ts` code block of README.md and of the guides under docs/ is type-checked and executed,
 * against the real CLIs (Claude Code 2.1.330, Codex 0.169.0, the ACP agents) talking to the scripted
 * models, so the docs can never drift from the API.
 *
 * A fence's info string says what is done with it: `ts` is type-checked and run; `ts no-run` is
 * type-checked only (it needs something this machine has not); `ts fragment` is neither (a piece of
 * a larger program); `ts queue-worker` / `ts queue-producer` are type-checked, then run together
 * against a real Redis (below).
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeAnthropicServer,
  type FakeOpenAIServer,
  startFakeAnthropic,
  startFakeOpenAI,
} from "../src/testing/index.js";
import { REDIS_SERVER, startRedis } from "./queue/support/redis.js";

const FAKE_CURSOR = join(
  dirname(fileURLToPath(import.meta.url)),
  "fixtures",
  "cursor",
  "fake-cursor-agent.mjs",
);

/**
 * The environment an example runs in: every backend's CLI is pointed at a scripted stand-in
 * (Claude and Codex: the real CLIs with scripted model servers; Cursor: the stand-in CLI).
 */
function offlineEnv(model: FakeAnthropicServer, api: FakeOpenAIServer): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...api.codexHome().env,
    ...model.env(),
    CURSOR_AGENT_CLI_PATH: FAKE_CURSOR,
    CURSOR_API_KEY: "fake-cursor-key",
  };
}

const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const workdir = join(root, ".tmp", "readme-examples");

/** README.md, then every guide under docs/ (not the generated API site in docs/api/). */
const documents = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];

interface Example {
  /** "README.md example 2", "docs/queue.md example 1". */
  name: string;
  code: string;
  run: boolean;
  file: string;
}

/** The `ts` fences of every document, in order; `ts fragment` ones left out. */
function docExamples(): Example[] {
  return documents.flatMap((doc) => {
    const text = readFileSync(join(root, doc), "utf8");
    const fences = [...text.matchAll(/```ts([^\n]*)\n([\s\S]*?)```/g)].map((m) => ({
      info: (m[1] ?? "").trim(),
      code: m[2] ?? "",
    }));
    const unknown = fences.filter(
      (f) => !["", "no-run", "fragment", "queue-worker", "queue-producer"].includes(f.info),
    );
    if (unknown.length > 0)
      throw new Error(`${doc}: unknown ts fence info ${unknown.map((f) => f.info).join(", ")}`);
    const base = doc.replace(/\.md$/, "").replaceAll("/", "-").toLowerCase();
    return fences
      .filter((f) => f.info === "" || f.info === "no-run")
      .map((f, i) => ({
        name: `${doc} example ${i + 1}`,
        code: f.code,
        run: f.info === "",
        file: join(workdir, `${base}-${i + 1}.ts`),
      }));
  });
}

/**
 * The queue examples of docs/queue.md (fenced as `ts queue-worker` / `ts queue-producer`):
 * type-checked with the others, but run together against a real Redis (below), since a worker runs
 * until it is stopped.
 */
function queueExamplesOf(): { worker: string; producer: string } {
  const guide = readFileSync(join(root, "docs", "queue.md"), "utf8");
  const block = (role: string) =>
    guide.match(new RegExp(`\`\`\`ts queue-${role}\n([\\s\\S]*?)\`\`\``))?.[1] ?? "";
  return { worker: block("worker"), producer: block("producer") };
}

/** Points the package's own specifiers at the sources. */
function localize(code: string, file: string): string {
  const rel = (target: string) => {
    const path = relative(dirname(file), join(root, target)).replaceAll("\\", "/");
    return path.startsWith(".") ? path : `./${path}`;
  };
  // "code-agent-sdk/<entry>" is what package.json exports as "./<entry>": dist/<path>.js, built from
  // src/<path>.ts.
  return code
    .replace(/"code-agent-sdk\/([a-z/-]+)"/g, (_, entry: string) => `"${rel(sourceOf(`./${entry}`))}"`)
    .replaceAll('"code-agent-sdk"', `"${rel(sourceOf("."))}"`);
}

/** The source file of a package.json export ("." or "./testing"), as a `.js` specifier tsx and tsc resolve. */
function sourceOf(subpath: string): string {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    exports: Record<string, { import?: string } | string>;
  };
  const target = pkg.exports[subpath];
  const built = typeof target === "string" ? target : target?.import;
  if (!built?.startsWith("./dist/")) throw new Error(`package.json exports no "${subpath}" built into dist/`);
  return `src/${built.slice("./dist/".length)}`;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd = root) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const examples = docExamples();
const queueExamples = queueExamplesOf();
const queueFiles = { worker: join(workdir, "queue-worker.ts"), producer: join(workdir, "queue-producer.ts") };

describe("the examples of README.md and docs/", () => {
  let model: FakeAnthropicServer;
  let api: FakeOpenAIServer;

  beforeAll(async () => {
    api = await startFakeOpenAI({ defaultTurn: { text: "OK from the scripted model" } });
    rmSync(workdir, { recursive: true, force: true });
    mkdirSync(workdir, { recursive: true });
    for (const example of examples) writeFileSync(example.file, localize(example.code, example.file));
    for (const role of ["worker", "producer"] as const)
      writeFileSync(queueFiles[role], localize(queueExamples[role], queueFiles[role]));
    writeFileSync(
      join(workdir, "tsconfig.json"),
      JSON.stringify({
        extends: "../../tsconfig.json",
        compilerOptions: { noEmit: true },
        include: ["*.ts"],
      }),
    );
    model = await startFakeAnthropic({ defaultTurn: { text: "OK from the scripted model" } });
  });

  afterAll(async () => {
    await model?.close();
    await api?.close();
    rmSync(workdir, { recursive: true, force: true });
  });

  it("has examples", () => {
    expect(examples.filter((e) => e.name.startsWith("README.md")).length).toBeGreaterThanOrEqual(4);
    expect(examples.length).toBeGreaterThanOrEqual(25);
    expect(queueExamples.worker).toContain("AgentWorker.start");
    expect(queueExamples.producer).toContain("queue.enqueue");
  });

  it("type-checks every example", async () => {
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    const result = await run(process.execPath, [tsc, "-p", join(workdir, "tsconfig.json")], process.env);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
    // One tsc over every example and the packages they import: ~20 s idle, a minute on a loaded
    // two-core machine.
  }, 240_000);

  it.each(examples.filter((e) => e.run).map((e) => [e.name, e.file] as const))(
    "runs %s to completion",
    async (_name, file) => {
      const env = offlineEnv(model, api);
      // Run from a scratch directory: the examples touch their working directory.
      const result = await run(process.execPath, ["--import", TSX_LOADER, file], env, model.env().HOME);
      expect(result.stderr).not.toMatch(/Error/);
      expect(result.code).toBe(0);
    },
  );
});

describe.skipIf(!REDIS_SERVER)("docs/queue.md examples (worker and producer, real Redis)", () => {
  it("the producer's run is streamed from the worker, which then closes on SIGTERM", async () => {
    // The suite above removes its directory when it ends: write the two files again.
    mkdirSync(workdir, { recursive: true });
    for (const role of ["worker", "producer"] as const)
      writeFileSync(queueFiles[role], localize(queueExamples[role], queueFiles[role]));
    await using redis = await startRedis();
    await using model = await startFakeAnthropic({ defaultTurn: { text: "OK from the scripted model" } });
    await using api = await startFakeOpenAI({ defaultTurn: { text: "OK from the scripted model" } });
    const env = { ...offlineEnv(model, api), REDIS_URL: redis.url };
    const worker = spawn(process.execPath, ["--import", TSX_LOADER, queueFiles.worker], {
      cwd: model.env().HOME,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => worker.once("exit", (code) => resolve(code)));
    try {
      let stderr = "";
      worker.stderr.on("data", (d) => {
        stderr += d;
      });
      await new Promise<void>((resolve, reject) => {
        worker.stdout.on("data", (d: Buffer) => d.toString().includes("worker ready") && resolve());
        void exited.then(() => reject(new Error(`the worker example exited early:\n${stderr}`)));
      });
      const producer = await run(
        process.execPath,
        ["--import", TSX_LOADER, queueFiles.producer],
        env,
        model.env().HOME,
      );
      expect(producer.stderr).not.toMatch(/Error/);
      expect(producer.stdout).toContain("OK from the scripted model");
      expect(producer.code).toBe(0);
      worker.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(stderr).not.toMatch(/Error/);
    } finally {
      worker.kill("SIGKILL");
      await exited;
      rmSync(workdir, { recursive: true, force: true });
    }
  });
});

const exampleFiles = readdirSync(join(root, "examples"))
  .filter((name) => name.endsWith(".ts") && name !== "demo.ts")
  .sort();

describe("examples/", () => {
  let model: FakeAnthropicServer;
  let api: FakeOpenAIServer;
  beforeAll(async () => {
    model = await startFakeAnthropic({ defaultTurn: { text: "OK from the scripted model" } });
    api = await startFakeOpenAI({ defaultTurn: { text: "OK from the scripted model" } });
  });
  afterAll(async () => {
    await model?.close();
    await api?.close();
  });

  it("has the examples the docs promise", () => {
    expect(exampleFiles).toEqual(
      expect.arrayContaining([
        "quick-start.ts",
        "streaming-mode.ts",
        "mcp-calculator.ts",
        "hooks.ts",
        "system-prompt.ts",
        "tools-option.ts",
        "tool-permission-callback.ts",
        "testing-offline.ts",
        "multi-backend.ts",
      ]),
    );
  });

  it.each(exampleFiles)("%s runs to completion against the real CLI and the scripted model", async (name) => {
    const env = offlineEnv(model, api);
    const result = await run(
      process.execPath,
      ["--import", TSX_LOADER, join(root, "examples", name)],
      env,
      model.env().HOME,
    );
    expect(result.stderr).not.toMatch(/Error/);
    expect(result.code).toBe(0);
  });
});

describe("examples/multi-backend.ts", () => {
  it("runs the same code on all three backends offline", async () => {
    await using model = await startFakeAnthropic({ defaultTurn: { text: "OK from the scripted model" } });
    await using api = await startFakeOpenAI({ defaultTurn: { text: "OK from the scripted model" } });
    const result = await run(
      process.execPath,
      ["--import", TSX_LOADER, join(root, "examples", "multi-backend.ts")],
      offlineEnv(model, api),
      model.env().HOME,
    );
    expect(result.stdout).toContain("claude: OK from the scripted model");
    expect(result.stdout).toContain("codex: OK from the scripted model");
    expect(result.stdout).toMatch(/cursor: (?!skipped)/);
    expect(result.stdout).toContain("cursor refuses: systemPrompt");
    expect(result.code).toBe(0);
  });
});

describe("npm run demo (the main job): code-agent --demo", () => {
  it("is `code-agent --demo`", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      bin: Record<string, string>;
      scripts: Record<string, string>;
    };
    expect(pkg.bin["code-agent"]).toBe("./dist/cli/main.js");
    expect(pkg.scripts.demo).toBe("tsx src/cli/main.ts --demo");
  });

  it("runs a real Claude Code session offline, showing a permission decision and an MCP tool call", async () => {
    // No terminal here: the shell command the scripted model asks for is denied (and stderr says
    // why); the in-process MCP tool is allowed by the demo and runs.
    const result = await run(
      process.execPath,
      ["--import", TSX_LOADER, join(root, "src", "cli", "main.ts"), "--demo"],
      {
        ...process.env,
        NO_COLOR: "1",
      },
    );
    expect(result.stderr).toMatch(/^code-agent: denied Bash \(touch hello\.txt\): not running in a terminal/);
    expect(result.stdout).toMatch(/→ Bash touch hello\.txt\n {2}⊘ Bash denied: no terminal to ask/);
    expect(result.stdout).toMatch(
      /→ demo:get_weather \{"city":"Paris"\}\n {2}↳ get_weather\("Paris"\) handled in-process/,
    );
    expect(result.stdout).toMatch(/ {2}✓ demo:get_weather ok/);
    expect(result.stdout).toContain("In Paris it is 21°C with a clear sky.");
    expect(result.stdout).toMatch(/✓ done · 3 turns/);
    expect(result.code).toBe(0);
  });

  it("examples/demo.ts runs the same command, here with --allow Bash", async () => {
    const result = await run(
      process.execPath,
      ["--import", TSX_LOADER, join(root, "examples", "demo.ts"), "--allow", "Bash"],
      process.env,
    );
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(/→ Bash touch hello\.txt\n {2}✓ Bash ok/);
    expect(result.stdout).toContain("Created hello.txt.");
    expect(result.code).toBe(0);
  });
});
