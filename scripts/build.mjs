#!/usr/bin/env node
/**
 * Builds the published package into `dist/` (or the directory given as the first argument):
 *
 * - type declarations from `tsc` (one `.d.ts` per source module, so `exports` types resolve as before);
 * - JavaScript from esbuild: the entry points (`.`, `./testing`, `./queue`, `./ai-sdk`, the `code-agent` bin) bundled
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

await build({
  absWorkingDir: root,
  entryPoints: {
    index: "src/index.ts",
    "testing/index": "src/testing/index.ts",
    "queue/index": "src/queue/index.ts",
    "cli/main": "src/cli/main.ts",
    "compat/claude-agent-sdk/index": "src/compat/claude-agent-sdk/index.ts",
    "compat/codex-sdk/index": "src/compat/codex-sdk/index.ts",
    "ai-sdk/index": "src/ai-sdk/index.ts",
  },
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
  plugins: [
    {
      name: "external-dependencies",
      setup(b) {
        b.onResolve({ filter: external }, (args) => ({ path: args.path, external: true }));
      },
    },
  ],
});
