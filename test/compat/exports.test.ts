/**
 * The compat entry points export every runtime and type export of the official packages they
 * replace: the runtime list is read from the official modules, the type-level list from their
 * `.d.ts` with the TypeScript compiler API (and ours from our sources), so a name the official
 * package adds in an update fails here. The exports with behaviour are checked against the
 * official implementations side by side.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as ours from "../../src/compat/claude-agent-sdk/index.js";
import * as oursCodex from "../../src/compat/codex-sdk/index.js";

const root = join(import.meta.dirname, "..", "..");
const officialClaudeDts = join(root, "node_modules/@anthropic-ai/claude-agent-sdk/sdk.d.ts");
const officialCodexDts = join(root, "node_modules/@openai/codex-sdk/dist/index.d.ts");

type Exported = { name: string; value: boolean; type: boolean };

/** Every name a module exports, with whether it is a value and/or a type (compiler API). */
function exportsOf(file: string): Map<string, Exported> {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`not compiled: ${file}`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`no module symbol: ${file}`);
  const out = new Map<string, Exported>();
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    out.set(symbol.name, {
      name: symbol.name,
      value: (target.flags & ts.SymbolFlags.Value) !== 0,
      type: (target.flags & ts.SymbolFlags.Type) !== 0,
    });
  }
  return out;
}

function missing(official: Map<string, Exported>, mine: Map<string, Exported>): string[] {
  const gaps: string[] = [];
  for (const entry of official.values()) {
    const have = mine.get(entry.name);
    if (!have) gaps.push(entry.name);
    else if (entry.value && !have.value) gaps.push(`${entry.name} (not a value)`);
    else if (entry.type && !have.type) gaps.push(`${entry.name} (not a type)`);
  }
  return gaps.sort();
}

describe("export lists", () => {
  it("compat/claude-agent-sdk has every runtime export of @anthropic-ai/claude-agent-sdk", async () => {
    const official = await import("@anthropic-ai/claude-agent-sdk");
    const names = Object.keys(official);
    expect(names.length).toBeGreaterThan(30);
    expect(names.filter((n) => !(n in ours))).toEqual([]);
    for (const name of names) {
      expect(typeof (ours as Record<string, unknown>)[name], name).toBe(
        typeof (official as Record<string, unknown>)[name],
      );
    }
  });

  it("compat/codex-sdk has every runtime export of @openai/codex-sdk", async () => {
    const official = await import("@openai/codex-sdk");
    const names = Object.keys(official);
    expect(names).toContain("Codex");
    expect(names.filter((n) => !(n in oursCodex))).toEqual([]);
  });

  it("compat/claude-agent-sdk declares every type and value name of the official sdk.d.ts", () => {
    const official = exportsOf(officialClaudeDts);
    expect(official.size).toBeGreaterThan(200);
    expect(missing(official, exportsOf(join(root, "src/compat/claude-agent-sdk/index.ts")))).toEqual([]);
  });

  it("compat/codex-sdk declares every type and value name of the official index.d.ts", () => {
    const official = exportsOf(officialCodexDts);
    expect(official.size).toBeGreaterThan(20);
    expect(missing(official, exportsOf(join(root, "src/compat/codex-sdk/index.ts")))).toEqual([]);
  });
});

describe("data exports are the official values", () => {
  it.each([
    "BUILTIN_TOOL_NAMES",
    "EXIT_REASONS",
    "LEGACY_TOOL_NAME_ALIASES",
    "ORG_POLICY_LIMIT_PREFIXES",
    "SYSTEM_PROMPT_DYNAMIC_BOUNDARY",
    "USAGE_LIMIT_ERROR_PREFIXES",
    "USAGE_TRANSITION_PREFIXES",
    "USAGE_WARNING_PREFIXES",
    "HOOK_EVENTS",
  ])("%s", async (name) => {
    const official = (await import("@anthropic-ai/claude-agent-sdk")) as Record<string, unknown>;
    expect((ours as Record<string, unknown>)[name]).toEqual(official[name]);
  });
});

describe("resolveSettings / filterEscalatingDefaultMode / matchDeniedModels against the official ones", () => {
  let dir: string;
  const saved = { HOME: process.env.HOME, CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR };
  const write = (path: string, value: unknown) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "compat-settings-"));
    write(join(dir, "home/.claude/settings.json"), {
      model: "user-model",
      permissions: { allow: ["Bash(ls)"], defaultMode: "acceptEdits" },
      env: { A: "1", B: "u" },
      cleanupPeriodDays: 5,
    });
    write(join(dir, "config/settings.json"), {
      model: "config-dir-model",
      permissions: { deny: ["WebFetch"] },
    });
    write(join(dir, "proj/.claude/settings.json"), {
      permissions: { allow: ["Read"], deny: ["Bash(rm:*)"], defaultMode: "bypassPermissions" },
      env: { B: "p" },
      hooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] },
    });
    write(join(dir, "proj/.claude/settings.local.json"), {
      permissions: { allow: ["Read", "Edit"] },
      model: "local-model",
      includeCoAuthoredBy: false,
    });
    write(join(dir, "auto/.claude/settings.local.json"), { permissions: { defaultMode: "auto" } });
    write(join(dir, "edits/.claude/settings.local.json"), { permissions: { defaultMode: "acceptEdits" } });
    write(join(dir, "bad/.claude/settings.json"), "{not json");
    write(join(dir, "bad/.claude/settings.local.json"), { model: 5, env: { X: "1" } });
    process.env.HOME = join(dir, "home");
    delete process.env.CLAUDE_CONFIG_DIR;
  });
  afterAll(() => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const cases: [string, () => Parameters<typeof ours.resolveSettings>[0]][] = [
    ["all file sources", () => ({ cwd: join(dir, "proj") })],
    ["user only", () => ({ cwd: join(dir, "proj"), settingSources: ["user"] })],
    ["project and local", () => ({ cwd: join(dir, "proj"), settingSources: ["project", "local"] })],
    ["no file sources", () => ({ cwd: join(dir, "proj"), settingSources: [] })],
    ["a directory without settings", () => ({ cwd: join(dir, "nothing") })],
    [
      "malformed and ill-typed files",
      () => ({ cwd: join(dir, "bad"), settingSources: ["project", "local"] }),
    ],
    ["local auto mode", () => ({ cwd: join(dir, "auto"), settingSources: ["local"] })],
    ["local acceptEdits mode", () => ({ cwd: join(dir, "edits"), settingSources: ["local"] })],
    [
      "managedSettings keeps only restrictive keys",
      () => ({
        cwd: join(dir, "proj"),
        settingSources: ["user"],
        managedSettings: {
          model: "x",
          env: { A: "2" },
          allowManagedHooksOnly: true,
          deniedModels: ["opus"],
          permissions: { allow: ["Read"], deny: ["WebFetch"], ask: ["Bash"], defaultMode: "plan" },
          sandbox: { enabled: true, excludedCommands: ["git"], network: { allowedDomains: ["a.example"] } },
          hooks: { Stop: [] },
        },
      }),
    ],
    [
      "serverManagedSettings taken as they are",
      () => ({ cwd: join(dir, "proj"), settingSources: [], serverManagedSettings: { model: "y" } }),
    ],
  ];

  it.each(cases)("%s", async (_name, options) => {
    const official = await import("@anthropic-ai/claude-agent-sdk");
    const theirs = await official.resolveSettings(options() as never);
    const mine = await ours.resolveSettings(options());
    expect(mine).toEqual(theirs);
    expect(ours.filterEscalatingDefaultMode(mine)).toEqual(
      official.filterEscalatingDefaultMode(theirs as never),
    );
  });

  it("CLAUDE_CONFIG_DIR names the user tier's directory", async () => {
    const official = await import("@anthropic-ai/claude-agent-sdk");
    process.env.CLAUDE_CONFIG_DIR = join(dir, "config");
    try {
      const options = { cwd: join(dir, "proj"), settingSources: ["user" as const] };
      const mine = await ours.resolveSettings(options);
      expect(mine.effective.model).toBe("config-dir-model");
      expect(mine).toEqual(await official.resolveSettings(options));
    } finally {
      delete process.env.CLAUDE_CONFIG_DIR;
    }
  });

  const modelCases: [unknown, unknown][] = [
    [
      [
        "opus",
        "claude-opus-4-1-20250805",
        "claude-3-opus-20240229",
        "claude-opus-4",
        "Claude-Opus-4-1",
        "anthropic.claude-opus-4-1-v1:0",
        "claude-opus-4-1@20250805",
      ],
      ["claude-opus-4-1"],
    ],
    [
      ["claude-opus-4-1", "claude-haiku-4-5", "claude-3-5-haiku-20241022", "claude-sonnet-4-5"],
      ["haiku", "", "  OPUS "],
    ],
    [
      ["foo", "claude-opus-4-1"],
      ["foo*", "claude-*", "my-model"],
    ],
    [["x"], undefined],
    [["claude-sonnet-4-5", "claude-sonnet-4"], ["claude-sonnet-4"]],
    [["claude-sonnet-4"], ["claude-sonnet-4-5"]],
    [["claude-sonnet-4-5-20250929"], ["sonnet-4-5"]],
    [
      [1, "claude-opus-4-1"],
      ["opus", 3],
    ],
    ["nope", ["claude-opus-4"]],
  ];
  it.each(modelCases)("matchDeniedModels(%j, %j)", async (models, denied) => {
    const official = await import("@anthropic-ai/claude-agent-sdk");
    const mine = await ours.matchDeniedModels(models as string[], denied as string[]);
    expect(mine).toEqual(await official.matchDeniedModels(models as string[], denied as string[]));
  });
});

describe("direct connect and the pickers", () => {
  it.each([
    "cc://127.0.0.1:9000/tok",
    "cc://host:1",
    "https://h.example:8443/x?y",
    "h.example:80",
    "http://h",
  ])("parseDirectConnectUrl(%s) as the official", async (url) => {
    const official = (await import("@anthropic-ai/claude-agent-sdk")) as unknown as {
      parseDirectConnectUrl(url: string): unknown;
    };
    expect(ours.parseDirectConnectUrl(url)).toEqual(official.parseDirectConnectUrl(url));
  });

  it("cc+unix:// is refused with DirectConnectError; the transport refuses to be built", () => {
    expect(() => ours.parseDirectConnectUrl("cc+unix:///tmp/s")).toThrow(ours.DirectConnectError);
    let caught: unknown;
    try {
      new ours.DirectConnectTransport({ serverUrl: "http://127.0.0.1:1" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ours.DirectConnectError);
    expect((caught as ours.DirectConnectError).code).toBe("unsupported");
    expect((caught as Error).name).toBe("DirectConnectError");
  });

  it("CommandMatcher ranks an exact name, then prefixes, then fuzzy and description hits", () => {
    const matcher = new ours.CommandMatcher([
      { name: "compact", description: "Compact the conversation" },
      { name: "commit", description: "Create a git commit" },
      { name: "review", description: "Review a pull request", aliases: ["pr"] },
      { name: "config", description: "Open settings" },
    ]);
    expect(matcher.search("commit").map((c) => c.name)[0]).toBe("commit");
    expect(matcher.search("com").map((c) => c.name)).toEqual(["compact", "commit"]);
    expect(matcher.search("pr").map((c) => c.name)[0]).toBe("review");
    expect(matcher.search("settings").map((c) => c.name)).toEqual(["config"]);
    expect(matcher.search("", { filter: (c) => c.name !== "config" })).toHaveLength(3);
  });

  it("FileIndex finds paths by subsequence with positions, lists top-level entries for an empty query", async () => {
    const index = new ours.FileIndex();
    index.loadFromFileList(["src/index.ts", "src/compat/query.ts", "README.md", "src/index.ts", ""]);
    const found = index.search("cq", 5);
    expect(found.map((f) => f.path)).toEqual(["src/compat/query.ts"]);
    expect(found[0]?.positions.map((p) => "src/compat/query.ts"[p])).toEqual(["c", "q"]);
    expect(index.search("", 10).map((f) => f.path)).toEqual(["src", "README.md"]);
    const { queryable, done } = index.loadFromFileListAsync(["a/b.ts", "c.ts"]);
    await queryable;
    expect(await done).toBe(true);
    expect(index.search("b", 5).map((f) => f.path)).toEqual(["a/b.ts"]);
  });
});
