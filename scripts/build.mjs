#!/usr/bin/env node
/**
 * Builds the published package into `dist/` (or the directory given as the first argument):
 *
 * - type declarations from `tsc` (one `.d.ts` per source module, so `exports` types resolve as before);
 * - JavaScript from esbuild: the entry points (`.`, `./claude`, `./acp`, `./install`, `./transport`, `./types`, `./testing`,
 *   `./queue`, `./ai-sdk`, the compat entries, the `code-agent` bin) bundled
 *   with code splitting, so each backend stays a chunk loaded on first use.
 *
 * Why bundle: Node 20 pays for every ES module it loads (resolve, stat, read, compile), and a first
 * query used to load ~60 of ours plus all of `zod`'s. Bundled, the entry is one file and the options
 * validator carries only the parts of `zod/mini` it uses. `zod` (the user's tool schemas) and the MCP
 * SDK stay ordinary dependencies, imported from node_modules; BullMQ and ioredis (optional peers of
 * `./queue`) are never bundled either: the queue entry imports them on first use.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outDir = resolve(process.argv[2] ?? join(root, "dist"));

rmSync(outDir, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const types = spawnSync(
  process.execPath,
  [tsc, "-p", join(root, "tsconfig.build.json"), "--emitDeclarationOnly", "--outDir", outDir],
  { cwd: root, stdio: "inherit" },
);
if (types.status !== 0) process.exit(types.status ?? 1);

/**
 * Packages users share with us at runtime: imported, never copied into the bundle
 * (`@opentelemetry/api` above all: the host's copy holds the registered providers).
 */
const external =
  /^(zod|@modelcontextprotocol\/sdk(\/.*)?|@agentclientprotocol\/sdk(\/.*)?|bullmq|ioredis|@opentelemetry\/api)$/;

const entryPoints = {
  index: "src/index.ts",
  "backends/claude/index": "src/backends/claude/index.ts",
  "backends/acp/index": "src/backends/acp/index.ts",
  "install/index": "src/install/index.ts",
  "transport/index": "src/transport/index.ts",
  types: "src/types.ts",
  "testing/index": "src/testing/index.ts",
  "queue/index": "src/queue/index.ts",
  "cli/main": "src/cli/main.ts",
  "compat/claude-agent-sdk/index": "src/compat/claude-agent-sdk/index.ts",
  "compat/codex-sdk/index": "src/compat/codex-sdk/index.ts",
  "ai-sdk/index": "src/ai-sdk/index.ts",
};
const rootEntry = join(root, entryPoints.index);
/** The namespace of the one module that imports what the lazily loaded backends share. */
const COMMON = "backend-common";

/**
 * One bundle. Node pays ~0.5 ms of CPU per ES module whatever its size (resolve, read, compile,
 * link), and esbuild's code splitting cuts modules into one chunk per set of entry points (the
 * static ones and the lazily imported backends) that reach them: ~30 small chunks for what
 * `import("code-agent-sdk")` loaded, 3–8 more for a backend. So:
 * - `importRoot`: the other entry points and the lazily imported modules get an import of the root
 *   entry appended, so everything the root entry loads is reached by all of them and lands in one
 *   chunk (the root entry is loaded before any of them anyway: only it imports a backend);
 * - `common`: the modules the backends need beyond the root's (what they share with each other and
 *   with the other entries), imported by one module that the same files import too (not the root
 *   entry, nor a lazily imported module the root imports statically, `inRoot`): one chunk.
 * `import()` of the package then loads 2 modules, a backend 2 more (its own and the common one).
 */
function bundle({ importRoot = new Set(), common = [], inRoot = new Set(), write = true } = {}) {
  return build({
    absWorkingDir: root,
    entryPoints,
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    chunkNames: "chunks/[name]-[hash]",
    sourcemap: "linked",
    sourcesContent: true,
    logLevel: "warning",
    metafile: true,
    write,
    plugins: [
      {
        name: "external-dependencies",
        setup(b) {
          b.onResolve({ filter: external }, (args) => ({ path: args.path, external: true }));
        },
      },
      {
        name: "root-entry-first",
        setup(b) {
          b.onResolve({ filter: /^code-agent-sdk-build:common$/ }, () => ({ path: "common", namespace: COMMON }));
          b.onLoad({ filter: /.*/, namespace: COMMON }, () => ({
            contents: common.map((file) => `import ${JSON.stringify(file)};`).join("\n"),
            loader: "js",
            resolveDir: root,
          }));
          b.onLoad({ filter: /\.ts$/ }, async (args) => {
            if (!importRoot.has(args.path)) return undefined;
            const withCommon = common.length > 0 && !inRoot.has(args.path);
            const extra = [rootEntry, ...(withCommon ? ["code-agent-sdk-build:common"] : [])];
            // Appended: the first line may be a shebang. Imports are hoisted either way.
            const imports = extra.map((file) => `import ${JSON.stringify(file)};`).join("\n");
            return { contents: `${await readFile(args.path, "utf8")}\n${imports}\n`, loader: "ts" };
          });
        },
      },
    ],
  });
}

/** First pass (not written): which modules are loaded lazily, and what the backends share. */
const first = await bundle({ write: false });
const outputs = first.metafile.outputs;
const staticEntries = new Set(Object.values(entryPoints).map((file) => join(root, file)));
const lazyOutputs = Object.keys(outputs).filter((out) => {
  const entry = outputs[out].entryPoint;
  return entry !== undefined && !staticEntries.has(join(root, entry));
});
const staticClosure = (out, seen = new Set()) => {
  if (seen.has(out)) return seen;
  seen.add(out);
  for (const i of outputs[out].imports) if (i.kind === "import-statement" && !i.external) staticClosure(i.path, seen);
  return seen;
};
const rootOutput = Object.keys(outputs).find((out) => outputs[out].entryPoint === entryPoints.index);
const rootLoads = staticClosure(rootOutput);
const shared = new Set();
for (const out of lazyOutputs) {
  for (const chunk of staticClosure(out)) {
    if (chunk === out || rootLoads.has(chunk) || outputs[chunk].entryPoint !== undefined) continue;
    for (const input of Object.keys(outputs[chunk].inputs)) if (input.startsWith("src/")) shared.add(join(root, input));
  }
}
const importRoot = new Set([...staticEntries, ...lazyOutputs.map((out) => join(root, outputs[out].entryPoint))]);
importRoot.delete(rootEntry);
// A lazily imported module the root entry also imports statically (the registry, for the command's
// demo) is part of what the root loads: it imports the root entry only.
const inRoot = new Set();
for (const out of rootLoads) for (const input of Object.keys(outputs[out].inputs)) inRoot.add(join(root, input));
await bundle({ importRoot, common: [...shared].sort(), inRoot });
