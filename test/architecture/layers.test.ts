/**
 * The layout shows the data path: bytes and processes at the bottom, then sessions, then the
 * backends, then the public API, then what is built on it. This test reads the import graph of
 * `src/` with the TypeScript compiler API (type-only imports count like any other) and fails on an
 * import cycle, on an import that climbs to a higher layer, and on a backend folder importing
 * another backend's folder.
 */
import { describe, expect, it } from "vitest";
import { type ImportEdge, importCycles, importGraph } from "./import-graph.js";

/**
 * The layers, bottom → top. A file may import files of its own layer and of the layers below.
 * A member ending in `/` is a folder (everything under it), any other is one file; the most
 * specific member wins (a file listed here is in its layer whatever its folder's layer is).
 */
export const LAYERS: readonly { name: string; members: readonly string[] }[] = [
  {
    // The data every layer may name: errors, the message model, prompts, permissions, the
    // per-backend option table, the MCP server configs, the telemetry option types, and Claude's
    // wire data model (types and tables only, importing nothing above this layer).
    name: "model",
    members: [
      "wire/",
      "errors.ts",
      "version.ts",
      "messages.ts",
      "tools.ts",
      "prompt.ts",
      "permissions.ts",
      "options/support.ts",
      "mcp/config.ts",
      "telemetry/types.ts",
      "backends/claude/events.ts",
      "backends/claude/control-types.ts",
      "backends/claude/control-results.ts",
      "backends/claude/hooks.ts",
      "backends/claude/hook-events.ts",
      "backends/claude/settings.generated.ts",
      "backends/claude/sessions/store-types.ts",
    ],
  },
  { name: "signals", members: ["signals/"] },
  { name: "process", members: ["process/"] },
  { name: "transport", members: ["transport/"] },
  { name: "session", members: ["session/"] },
  { name: "services", members: ["install/", "startup/", "mcp/"] },
  { name: "options", members: ["options.ts", "options-schema.ts", "options/"] },
  { name: "backends", members: ["backends/"] },
  { name: "api", members: ["api/", "query.ts", "client.ts", "turn.ts", "telemetry/"] },
  {
    name: "top",
    members: ["index.ts", "types.ts", "warm/", "queue/", "ai-sdk/", "cli/", "compat/", "testing/"],
  },
];

/** The layer of `file` (its index in {@link LAYERS}), or undefined for a file no layer holds. */
export function layerOf(file: string): number | undefined {
  let best: { layer: number; length: number } | undefined;
  LAYERS.forEach((layer, index) => {
    for (const member of layer.members) {
      const matches = member.endsWith("/") ? file.startsWith(member) : file === member;
      // An exact file beats any folder; a longer folder beats a shorter one.
      const length = member.endsWith("/") ? member.length : Number.MAX_SAFE_INTEGER;
      if (matches && (!best || length > best.length)) best = { layer: index, length };
    }
  });
  return best?.layer;
}

/** `backends/<name>/…` → `<name>`; anything else → undefined. */
function backendFolderOf(file: string): string | undefined {
  const match = /^backends\/([^/]+)\//.exec(file);
  return match?.[1];
}

const describeEdge = (edge: ImportEdge): string =>
  `${edge.from} → ${edge.to}${edge.typeOnly ? " (type-only)" : ""}`;

/** The imports that climb a layer, as `from → to (layer → layer)`. */
export function layerClimbs(graph: Map<string, ImportEdge[]>): string[] {
  const climbs: string[] = [];
  for (const edges of graph.values()) {
    for (const edge of edges) {
      const from = layerOf(edge.from);
      const to = layerOf(edge.to);
      if (from === undefined || to === undefined) continue;
      if (to > from) climbs.push(`${describeEdge(edge)} (${LAYERS[from]?.name} → ${LAYERS[to]?.name})`);
    }
  }
  return climbs.sort();
}

/** The imports from one backend's folder into another's. */
export function crossBackendImports(graph: Map<string, ImportEdge[]>): string[] {
  const found: string[] = [];
  for (const edges of graph.values()) {
    for (const edge of edges) {
      const from = backendFolderOf(edge.from);
      const to = backendFolderOf(edge.to);
      if (from !== undefined && to !== undefined && from !== to) found.push(describeEdge(edge));
    }
  }
  return found.sort();
}

describe("the layers of src/", () => {
  const graph = importGraph();

  it("puts every source file in a layer", () => {
    expect([...graph.keys()].filter((file) => layerOf(file) === undefined)).toEqual([]);
  });

  it("has no import cycle (type-only imports included)", () => {
    expect(importCycles(graph).map((cycle) => cycle.join(" ↔ "))).toEqual([]);
  });

  it("has no import that climbs a layer", () => {
    expect(layerClimbs(graph)).toEqual([]);
  });

  it("has no backend folder importing another backend's folder", () => {
    expect(crossBackendImports(graph)).toEqual([]);
  });

  it("sees type-only, re-exported and dynamic imports (the checks above are not vacuous)", () => {
    const edges = [...graph.values()].flat();
    expect(edges.length).toBeGreaterThan(500);
    expect(edges.some((edge) => edge.typeOnly)).toBe(true);
    expect(graph.get("backends/registry.ts")?.map((edge) => edge.to)).toContain("backends/claude/backend.ts");
    // A climb and a cycle made up here are found.
    const made = new Map<string, ImportEdge[]>([
      ["process/a.ts", [{ from: "process/a.ts", to: "session/b.ts", typeOnly: true }]],
      ["session/b.ts", [{ from: "session/b.ts", to: "process/a.ts", typeOnly: false }]],
      ["backends/codex/c.ts", [{ from: "backends/codex/c.ts", to: "backends/claude/d.ts", typeOnly: false }]],
    ]);
    expect(layerClimbs(made)).toEqual(["process/a.ts → session/b.ts (type-only) (process → session)"]);
    expect(importCycles(made)).toEqual([["process/a.ts", "session/b.ts"]]);
    expect(crossBackendImports(made)).toEqual(["backends/codex/c.ts → backends/claude/d.ts"]);
  });
});
