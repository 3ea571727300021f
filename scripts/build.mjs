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
/** The namespace of the modules that each import one group of what the lazily loaded modules share. */
const GROUP = "backend-group";
const GROUP_PREFIX = "code-agent-sdk-build:group:";

/**
 * One bundle, few modules, and a query loads only what its backend runs. Node pays ~0.5 ms of CPU
 * per ES module whatever its size (resolve, read, compile, link) and ~0.04 ms per KB it compiles,
 * and esbuild's code splitting cuts modules into one chunk per set of entry points (the static ones
 * and the lazily imported backends) that reach them: ~30 small chunks for what
 * `import("code-agent-sdk")` loaded, 3–8 more for a backend. So:
 * - `importRoot`: the other entry points and the lazily imported modules get an import of the root
 *   entry appended, so everything the root entry loads is reached by all of them and lands in one
 *   chunk (the root entry is loaded before any of them anyway: only it imports a backend);
 * - `groups`: the modules the lazily imported modules need beyond the root's and their own chunk
 *   (what they share with each other and with the other entries), grouped by which of them need
 *   each (see `planGroups`); every group is one module that imports its members, imported in turn
 *   by the lazily imported modules of its key and by every other entry that reaches a member (not
 *   the root entry, nor a lazily imported module the root imports statically, `inRoot`): one chunk
 *   per group, which only the backends that run its code load; a group of a few hundred bytes is
 *   imported by the root entry instead (`ROOT_GROUP_KB`).
 * `import()` of the package then loads 2 modules; a Codex or Claude query 4 more (its backend's and
 * the 3 groups it needs: what every CLI backend runs, what Claude and Codex share, what it shares
 * with its compat entry), and none of the ACP backend's modules, its SDK, the installer, the
 * command line's, or the options schema (zod) when its options are plain (`src/options/plain.ts`).
 */
function bundle({ importRoot = new Set(), groups = [], groupImporters = new Map(), write = true } = {}) {
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
          b.onResolve({ filter: /^code-agent-sdk-build:group:\d+$/ }, (args) => ({
            path: args.path.slice(GROUP_PREFIX.length),
            namespace: GROUP,
          }));
          b.onLoad({ filter: /.*/, namespace: GROUP }, (args) => ({
            contents: groups[Number(args.path)].map((file) => `import ${JSON.stringify(file)};`).join("\n"),
            loader: "js",
            resolveDir: root,
          }));
          b.onLoad({ filter: /\.ts$/ }, async (args) => {
            if (!importRoot.has(args.path)) return undefined;
            const groupImports = (groupImporters.get(args.path) ?? []).map((i) => `${GROUP_PREFIX}${i}`);
            const extra = args.path === rootEntry ? groupImports : [rootEntry, ...groupImports];
            // Appended: the first line may be a shebang. Imports are hoisted either way.
            const imports = extra.map((file) => `import ${JSON.stringify(file)};`).join("\n");
            return { contents: `${await readFile(args.path, "utf8")}\n${imports}\n`, loader: "ts" };
          });
        },
      },
    ],
  });
}

/** What a module costs Node to load besides its bytes, in KB of output compiled (~0.5 ms / 0.04 ms per KB). */
const MODULE_COST_KB = 12;

/**
 * How much a lazily imported module's load time matters: the Claude and Codex backends are the
 * cold path (a same-tick first query), and so is the options schema for a query with more than the
 * plain options; the other backends less; the installer and the CLI's demo not at all.
 */
function weightOf(entry) {
  if (/^src\/backends\/(claude|codex)\//.test(entry) || entry === "src/options-schema.ts") return 1;
  if (entry.startsWith("src/backends/")) return 0.5;
  return 0;
}

/**
 * Groups the shared modules: first by the exact set of lazily imported modules that need each (its
 * key), so none loads a module it does not run; then, smallest first, a group is merged into the
 * one where that costs least when the bytes it makes others load cost less than the module it saves
 * (`MODULE_COST_KB` for each importer that needs both, weighted by {@link weightOf}).
 * @param {Map<string, Set<string>>} keys module → the lazily imported entries that need it
 * @param {Map<string, number>} sizes module → bytes in the output
 * @returns {{ files: string[], kb: number }[]} the groups: their modules and output size
 */
function planGroups(keys, sizes) {
  const byKey = new Map();
  for (const [file, key] of keys) {
    const id = [...key].sort().join("\n");
    if (!byKey.has(id)) byKey.set(id, { key: new Set(key), files: [], kb: 0 });
    const group = byKey.get(id);
    group.files.push(file);
    group.kb += (sizes.get(file) ?? 0) / 1024;
  }
  const groups = [...byKey.values()];
  const weight = (set) => [...set].reduce((sum, entry) => sum + weightOf(entry), 0);
  const without = (a, b) => new Set([...a].filter((x) => !b.has(x)));
  for (;;) {
    groups.sort((a, b) => a.kb - b.kb);
    let best;
    for (const g of groups) {
      for (const h of groups) {
        if (h === g) continue;
        // The importers that need both load one module less; the others load bytes they do not run.
        const saved = MODULE_COST_KB * weight(new Set([...g.key].filter((x) => h.key.has(x))));
        const cost = g.kb * weight(without(h.key, g.key)) + h.kb * weight(without(g.key, h.key));
        if (cost < saved && (best === undefined || saved - cost > best.gain)) best = { g, h, gain: saved - cost };
      }
    }
    if (!best) break;
    best.h.files.push(...best.g.files);
    best.h.kb += best.g.kb;
    best.h.key = new Set([...best.h.key, ...best.g.key]);
    groups.splice(groups.indexOf(best.g), 1);
  }
  return groups.map((g) => ({ files: g.files.sort(), kb: g.kb }));
}

/** First pass (not written): which modules are loaded lazily, and what they share. */
const first = await bundle({ write: false });
const { inputs, outputs } = first.metafile;
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
/** Shared module (absolute path) → the lazily imported entries (relative) that need it. */
const keys = new Map();
const sizes = new Map();
for (const out of lazyOutputs) {
  for (const chunk of staticClosure(out)) {
    if (chunk === out || rootLoads.has(chunk) || outputs[chunk].entryPoint !== undefined) continue;
    for (const [input, { bytesInOutput }] of Object.entries(outputs[chunk].inputs)) {
      if (!input.startsWith("src/")) continue;
      const file = join(root, input);
      if (!keys.has(file)) keys.set(file, new Set());
      keys.get(file).add(outputs[out].entryPoint);
      sizes.set(file, bytesInOutput);
    }
  }
}
const planned = planGroups(keys, sizes);
const groups = planned.map((g) => g.files);
const groupOf = new Map(groups.flatMap((files, i) => files.map((file) => [file, i])));
/**
 * Groups too small to be worth a module of their own (a few hundred bytes that several backends
 * need, e.g. the argv guard): the root entry imports them, so they join the root's chunk.
 */
const ROOT_GROUP_KB = 2;
const rootGroups = planned.flatMap((g, i) => (g.kb < ROOT_GROUP_KB ? [i] : []));
const importRoot = new Set([...staticEntries, ...lazyOutputs.map((out) => join(root, outputs[out].entryPoint))]);
importRoot.delete(rootEntry);
// A lazily imported module the root entry also imports statically (the registry, for the command's
// demo) is part of what the root loads: it imports the root entry only.
const inRoot = new Set();
for (const out of rootLoads) for (const input of Object.keys(outputs[out].inputs)) inRoot.add(join(root, input));
/** Source modules an input reaches through static imports (the first pass's graph). */
const reach = (starts) => {
  const seen = new Set();
  const todo = [...starts];
  while (todo.length > 0) {
    const file = todo.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const rel = file.startsWith(`${root}/`) ? file.slice(root.length + 1) : file;
    for (const i of inputs[rel]?.imports ?? []) {
      if (i.kind === "import-statement" && !i.external) todo.push(join(root, i.path));
    }
  }
  return seen;
};
// Each importer gets the groups it reaches, then the groups those reach, until nothing is added:
// every member of a group is then reached by the same entries, so the group is one chunk.
const groupImporters = new Map();
for (const file of importRoot) {
  if (inRoot.has(file)) continue;
  const mine = new Set();
  let frontier = [file];
  while (frontier.length > 0) {
    const added = [];
    for (const reached of reach(frontier)) {
      const group = groupOf.get(reached);
      if (group !== undefined && !mine.has(group)) {
        mine.add(group);
        added.push(...groups[group]);
      }
    }
    frontier = added;
  }
  for (const group of rootGroups) mine.delete(group);
  if (mine.size > 0) groupImporters.set(file, [...mine].sort((a, b) => a - b));
}
if (rootGroups.length > 0) groupImporters.set(rootEntry, rootGroups);
importRoot.add(rootEntry);
await bundle({ importRoot, groups, groupImporters });
