import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  BASE_CLAUDE_ARGS,
  buildClaudeArgs,
  claudeJsonSchema,
  resolveClaudeSettings,
  thinkingArgs,
} from "../../../src/backends/claude/command.js";
import { buildClaudeInitialize } from "../../../src/backends/claude/initialize.js";
import { InvalidOptionsError } from "../../../src/errors.js";
import type { McpServerConfig } from "../../../src/mcp/config.js";
import type { AgentOptions } from "../../../src/options.js";

/** The private files the builder wrote, by path (a stand-in for `PrivateFiles`). */
const written = new Map<string, string>();
let fileCount = 0;
const memoryFiles = {
  write(name: string, content: string): string {
    const path = `/private/${++fileCount}/${name}`;
    written.set(path, content);
    return path;
  },
};
const noSdk = { sdkMcpServerNames: [], files: memoryFiles };
const build = (options: AgentOptions) => buildClaudeArgs(options, noSdk);
const withSdk = (names: string[]) => ({ sdkMcpServerNames: names, files: memoryFiles });

/** The JSON an argument carries: inline, or in the private file it names. */
function jsonOf(value: string | undefined): unknown {
  expect(value).toBeDefined();
  return JSON.parse(written.get(value!) ?? value!);
}

/** The value following `flag`, asserting the flag appears exactly once. */
function flagValue(args: string[], flag: string): string | undefined {
  const at = args.flatMap((a, i) => (a === flag ? [i] : []));
  expect(at, `${flag} occurrences in ${JSON.stringify(args)}`).toHaveLength(1);
  return args[at[0]! + 1];
}

/** Every value given to a repeatable flag, in order. */
function valuesOf(args: string[], flag: string): string[] {
  return args.flatMap((a, i) => (a === flag ? [args[i + 1]!] : []));
}

const tmp = mkdtempSync(join(tmpdir(), "cmd-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("buildClaudeArgs: defaults", () => {
  it("always runs stream-json both ways with verbose output and never puts a prompt in argv", () => {
    const args = build({});
    expect(args.slice(0, BASE_CLAUDE_ARGS.length)).toEqual([
      "--output-format",
      "stream-json",
      "--verbose",
      "--input-format",
      "stream-json",
    ]);
    expect(args).not.toContain("-p");
    expect(args).not.toContain("--print");
  });

  it("passes no flag for settings sources (the CLI loads all, as with the official SDK) or the prompt", () => {
    expect(build({})).toEqual([...BASE_CLAUDE_ARGS]);
  });
});

describe("buildClaudeInitialize: the fields the official SDK sends in initialize", () => {
  const init = (options: AgentOptions) => JSON.parse(JSON.stringify(buildClaudeInitialize(options)));

  it("no systemPrompt is an empty prompt; a string is a one-element list; a list stays a list", () => {
    expect(init({})).toEqual({ systemPrompt: [""] });
    expect(init({ systemPrompt: "Be terse." }).systemPrompt).toEqual(["Be terse."]);
    expect(init({ systemPrompt: ["a", "b"] }).systemPrompt).toEqual(["a", "b"]);
    expect(init({ systemPrompt: { type: "custom", prompt: "c", snapshot: true } })).toEqual({
      systemPrompt: ["c"],
      systemPromptSnapshot: true,
    });
  });

  it("the preset keeps Claude Code's prompt, with appended text and excluded dynamic sections", () => {
    expect(
      init({
        systemPrompt: {
          type: "preset",
          preset: "claude_code",
          append: "Also X.",
          excludeDynamicSections: true,
        },
      }),
    ).toEqual({ appendSystemPrompt: "Also X.", excludeDynamicSections: true });
  });

  it("agents, aliases, title, skills, dialogs and the rest are initialize fields", () => {
    const agents = { reviewer: { description: "Reviews", prompt: "You review.", background: true } };
    expect(
      init({
        agents,
        toolAliases: { Bash: "mcp__w__bash" },
        title: "T",
        skills: ["pdf"],
        planModeInstructions: "plan it",
        promptSuggestions: true,
        agentProgressSummaries: true,
        forwardSubagentText: true,
        supportedDialogKinds: ["refusal_fallback_prompt"],
        perTaskStopAffordance: true,
      }),
    ).toEqual({
      systemPrompt: [""],
      agents,
      toolAliases: { Bash: "mcp__w__bash" },
      title: "T",
      skills: ["pdf"],
      planModeInstructions: "plan it",
      promptSuggestions: true,
      agentProgressSummaries: true,
      forwardSubagentText: true,
      supportedDialogKinds: ["refusal_fallback_prompt"],
      perTaskStopAffordance: true,
    });
    expect(init({ skills: "all" }).skills).toBeUndefined();
  });

  it("MCP servers and plugins travel in initialize only when asked for", () => {
    const mcpServers = { files: { command: "node" } };
    const plugins = [{ type: "local" as const, path: "/p" }];
    expect(init({ mcpServers, plugins })).toEqual({ systemPrompt: [""] });
    expect(
      init({ mcpServers, mcpServersDelivery: "initialize", plugins, pluginDelivery: "initialize" }),
    ).toEqual({
      systemPrompt: [""],
      mcpServers,
      plugins,
    });
    const args = build({
      mcpServers,
      mcpServersDelivery: "initialize",
      plugins,
      pluginDelivery: "initialize",
    });
    expect(args).toContain("--await-initialize");
    expect(args).not.toContain("--mcp-config");
    expect(args).not.toContain("--plugin-dir");
  });

  it("the output schema goes in both places, as the official SDK sends it", () => {
    const schema = { type: "object" };
    expect(init({ outputFormat: { type: "json_schema", schema } }).jsonSchema).toEqual(schema);
  });
});

describe("buildClaudeArgs: the official SDK's newer options", () => {
  it.each<[AgentOptions, string, string]>([
    [{ agent: "reviewer" }, "--agent", "reviewer"],
    [{ taskBudget: { total: 5000 } }, "--task-budget", "5000"],
    [{ debugFile: "/tmp/d.log", debug: true }, "--debug-file", "/tmp/d.log"],
    [{ permissionPrompts: "none" }, "--permission-prompts", "none"],
    [{ projectConfigRoot: "/repo" }, "--project-config-root", "/repo"],
    [{ resume: "s", resumeSessionAt: "u", resumeDropsTurn: "p" }, "--resume-drops-turn", "p"],
    [
      { sessionId: "00000000-0000-4000-8000-000000000000" },
      "--session-id",
      "00000000-0000-4000-8000-000000000000",
    ],
  ])("%j → %s %s", (options, flag, value) => {
    expect(flagValue(build(options), flag)).toBe(value);
  });

  it("managedSettings travel in initialize (--managed-settings-in-initialize), never as JSON on argv", () => {
    const managedSettings = { model: "m", env: { TOKEN: "t" } };
    const args = build({ managedSettings });
    expect(args).toContain("--managed-settings-in-initialize");
    expect(args).toContain("--await-initialize");
    expect(args).not.toContain("--managed-settings");
    expect(args.join(" ")).not.toContain("TOKEN");
    expect(buildClaudeInitialize({ managedSettings }).managedSettings).toEqual(managedSettings);
    expect(buildClaudeInitialize({})).not.toHaveProperty("managedSettings", expect.anything());
  });

  it.each<[AgentOptions, string]>([
    [{ debug: true }, "--debug"],
    [{ strictMcpConfig: true }, "--strict-mcp-config"],
    [{ includeHookEvents: true }, "--include-hook-events"],
    [{ persistSession: false }, "--no-session-persistence"],
  ])("%j → %s", (options, flag) => {
    expect(build(options)).toContain(flag);
    expect(build({})).not.toContain(flag);
  });

  it("persistSession: true passes nothing", () => {
    expect(build({ persistSession: true })).toEqual(build({}));
  });

  it("skills add Skill rules to allowedTools, once each", () => {
    expect(flagValue(build({ skills: "all" }), "--allowedTools")).toBe("Skill");
    expect(
      flagValue(build({ skills: ["pdf", "docx"], allowedTools: ["Read", "Skill(pdf)"] }), "--allowedTools"),
    ).toBe("Read,Skill(pdf),Skill(docx)");
  });

  it("a plugin with skipMcpDiscovery gets --plugin-dir-no-mcp", () => {
    const args = build({ plugins: [{ type: "local", path: "/p", skipMcpDiscovery: true }] });
    expect(valuesOf(args, "--plugin-dir-no-mcp")).toEqual(["/p"]);
  });
});

describe("buildClaudeArgs: values JSON cannot carry", () => {
  it("circular or BigInt settings and sandbox, and a circular, deep or BigInt output schema: InvalidOptionsError naming the option", () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 20_000; i++) deep = { type: "object", properties: { x: deep } };
    const cases: [AgentOptions, RegExp][] = [
      [{ settings: circular }, /^settings: it contains a circular reference/],
      [{ settings: { n: 1n } as never }, /^settings: it contains a BigInt/],
      [
        { sandbox: { enabled: true, network: circular } as never },
        /^settings: it contains a circular reference/,
      ],
      [
        { outputFormat: { type: "json_schema", schema: { type: "object", properties: { a: circular } } } },
        /^outputFormat\.schema: it is circular or nested too deeply/,
      ],
      [
        { outputFormat: { type: "json_schema", schema: deep } },
        /^outputFormat\.schema: it is circular or nested too deeply/,
      ],
      [
        { outputFormat: { type: "json_schema", schema: { type: "integer", maximum: 1n } as never } },
        /^outputFormat\.schema: it contains a BigInt/,
      ],
    ];
    for (const [options, issue] of cases) {
      let thrown: unknown;
      try {
        build(options);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(Object.keys(options))).toBeInstanceOf(InvalidOptionsError);
      expect((thrown as InvalidOptionsError).issues[0]).toMatch(issue);
    }
  });
});

describe("buildClaudeArgs: one option, one flag", () => {
  it("tools: list, empty list and preset", () => {
    expect(flagValue(build({ tools: ["Bash", "Read"] }), "--tools")).toBe("Bash,Read");
    expect(flagValue(build({ tools: [] }), "--tools")).toBe("");
    expect(flagValue(build({ tools: { type: "preset", preset: "claude_code" } }), "--tools")).toBe("default");
    expect(build({})).not.toContain("--tools");
  });

  it("allowed and disallowed tools are comma-joined; empty lists are omitted", () => {
    const args = build({ allowedTools: ["Bash(git *)", "Read"], disallowedTools: ["Write"] });
    expect(flagValue(args, "--allowedTools")).toBe("Bash(git *),Read");
    expect(flagValue(args, "--disallowedTools")).toBe("Write");
    expect(build({ allowedTools: [], disallowedTools: [] })).not.toContain("--allowedTools");
  });

  it.each<[AgentOptions, string, string]>([
    [{ maxTurns: 3 }, "--max-turns", "3"],
    [{ maxBudgetUsd: 0.25 }, "--max-budget-usd", "0.25"],
    [{ model: "sonnet" }, "--model", "sonnet"],
    [{ fallbackModel: "haiku" }, "--fallback-model", "haiku"],
    [{ permissionMode: "acceptEdits" }, "--permission-mode", "acceptEdits"],
    [{ resume: "sess-1" }, "--resume", "sess-1"],
    [{ resume: "sess-1", resumeSessionAt: "uuid-9" }, "--resume-session-at", "uuid-9"],
    [{ effort: "xhigh" }, "--effort", "xhigh"],
    [{ permissionPromptToolName: "mcp__perm__ask" }, "--permission-prompt-tool", "mcp__perm__ask"],
  ])("%j → %s %s", (options, flag, value) => {
    expect(flagValue(build(options), flag)).toBe(value);
  });

  it.each<[AgentOptions, string]>([
    [{ continueConversation: true }, "--continue"],
    [{ forkSession: true }, "--fork-session"],
    [{ includePartialMessages: true }, "--include-partial-messages"],
    [
      { permissionMode: "bypassPermissions", allowDangerouslySkipPermissions: true },
      "--allow-dangerously-skip-permissions",
    ],
  ])("%j → %s", (options, flag) => {
    expect(build(options)).toContain(flag);
    expect(build({})).not.toContain(flag);
  });

  it("false booleans add nothing", () => {
    const args = build({ continueConversation: false, forkSession: false, includePartialMessages: false });
    expect(args).toEqual(build({}));
  });

  it("bypassPermissions passes both the mode and the opt-in flag", () => {
    const args = build({ permissionMode: "bypassPermissions", allowDangerouslySkipPermissions: true });
    expect(flagValue(args, "--permission-mode")).toBe("bypassPermissions");
    expect(args).toContain("--allow-dangerously-skip-permissions");
  });

  it("each beta, extra directory and plugin gets its own flag", () => {
    const args = build({
      betas: ["context-1m-2025-08-07", "other-beta"],
      addDirs: ["/a", "/b"],
      plugins: [
        { type: "local", path: "/p1" },
        { type: "local", path: "/p2" },
      ],
    });
    expect(valuesOf(args, "--betas")).toEqual(["context-1m-2025-08-07", "other-beta"]);
    expect(valuesOf(args, "--add-dir")).toEqual(["/a", "/b"]);
    expect(valuesOf(args, "--plugin-dir")).toEqual(["/p1", "/p2"]);
  });

  it("settingSources are comma-joined", () => {
    expect(flagValue(build({ settingSources: ["user", "project"] }), "--setting-sources")).toBe(
      "user,project",
    );
    expect(flagValue(build({ settingSources: [] }), "--setting-sources")).toBe("");
  });

  it("outputFormat json_schema passes the schema as JSON", () => {
    const schema = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
    const args = build({ outputFormat: { type: "json_schema", schema } });
    expect(JSON.parse(flagValue(args, "--json-schema")!)).toEqual(schema);
  });

  it("a $schema other than draft-07 is dropped (the CLI's validator knows only draft-07)", () => {
    const body = { type: "object", properties: { n: { type: "number" } } };
    const of = (schema: Record<string, unknown>) =>
      claudeJsonSchema({ outputFormat: { type: "json_schema", schema } });
    expect(of({ $schema: "https://json-schema.org/draft/2020-12/schema", ...body })).toEqual(body);
    const draft7 = { $schema: "http://json-schema.org/draft-07/schema#", ...body };
    expect(of(draft7)).toEqual(draft7);
    expect(of(body)).toEqual(body);
  });

  it("canUseTool routes permission prompts over stdio", () => {
    const args = build({ canUseTool: () => ({ behavior: "allow" }) });
    expect(flagValue(args, "--permission-prompt-tool")).toBe("stdio");
  });

  it("agents are not on the command line (they go in initialize)", () => {
    const agents = { reviewer: { description: "Reviews code", prompt: "You review." } };
    expect(build({ agents })).toEqual(build({}));
  });

  it("extraArgs come last: a value flag and a bare flag", () => {
    const args = build({ model: "opus", extraArgs: { "debug-to-stderr": null, "session-id": "abc" } });
    expect(args.slice(-3)).toEqual(["--debug-to-stderr", "--session-id", "abc"]);
  });

  it("options handled outside argv add no flags", () => {
    const args = build({
      cwd: "/tmp",
      env: { A: "1" },
      stderr: () => {},
      maxBufferSize: 4096,
      controlTimeoutMs: 10,
      closeGraceMs: 10,
      hooks: { Stop: [{ hooks: [() => ({})] }] },
      enableFileCheckpointing: true,
      signal: new AbortController().signal,
    });
    expect(args).toEqual(build({}));
  });
});

describe("buildClaudeArgs: thinking, as the official SDK maps it", () => {
  it.each<[AgentOptions, string[]]>([
    [{}, []],
    [{ thinking: { type: "adaptive" } }, ["--thinking=adaptive"]],
    [
      { thinking: { type: "adaptive", display: "omitted" } },
      ["--thinking=adaptive", "--thinking-display", "omitted"],
    ],
    [{ thinking: { type: "adaptive" }, maxThinkingTokens: 8000 }, ["--thinking=adaptive"]],
    [{ thinking: { type: "enabled", budgetTokens: 5000 } }, ["--max-thinking-tokens", "5000"]],
    [{ thinking: { type: "enabled" } }, ["--thinking=adaptive"]],
    [
      { thinking: { type: "enabled", budgetTokens: 5000 }, maxThinkingTokens: 9 },
      ["--max-thinking-tokens", "5000"],
    ],
    [{ thinking: { type: "disabled" } }, ["--thinking=disabled"]],
    [{ thinking: { type: "disabled" }, maxThinkingTokens: 9 }, ["--thinking=disabled"]],
    [{ maxThinkingTokens: 1234 }, ["--max-thinking-tokens", "1234"]],
    [{ maxThinkingTokens: 0 }, ["--thinking=disabled"]],
  ])("%j → %j", (options, expected) => {
    expect(thinkingArgs(options)).toEqual(expected);
    expect(build(options)).toEqual([...BASE_CLAUDE_ARGS, ...expected]);
  });
});

describe("buildClaudeArgs: MCP servers", () => {
  const fakeInstance = { connect: () => {} } as unknown as Extract<
    McpServerConfig,
    { type: "sdk" }
  >["instance"];

  it("inline servers become one --mcp-config file (their env and headers off argv); SDK servers lose their instance", () => {
    const args = buildClaudeArgs(
      {
        mcpServers: {
          files: { command: "node", args: ["server.js"], env: { X: "1" } },
          web: { type: "http", url: "http://localhost:1/mcp", headers: { A: "b" } },
          calc: { type: "sdk", name: "calc", instance: fakeInstance },
        },
      },
      withSdk(["calc"]),
    );
    const path = flagValue(args, "--mcp-config")!;
    expect(path).toMatch(/^\/private\/\d+\/mcp-config\.json$/);
    expect(args.join(" ")).not.toContain('"X"');
    expect(args.join(" ")).not.toContain('"A"');
    const config = jsonOf(path);
    expect(config).toEqual({
      mcpServers: {
        files: { command: "node", args: ["server.js"], env: { X: "1" } },
        web: { type: "http", url: "http://localhost:1/mcp", headers: { A: "b" } },
        calc: { type: "sdk", name: "calc" },
      },
    });
    expect(written.get(path)).not.toContain("instance");
  });

  it("the compat createSdkMcpServer({ timeout }) (milliseconds, as real programs pass it) reaches the CLI's declaration", async () => {
    const { createSdkMcpServer } = await import("../../../src/compat/claude-agent-sdk/index.js");
    const { toAgentOptions } = await import("../../../src/compat/claude-agent-sdk/options.js");
    const research = createSdkMcpServer({ name: "research", version: "1.0.0", tools: [], timeout: 60_000 });
    expect(research).toMatchObject({ type: "sdk", name: "research", timeout: 60_000 });
    const options = toAgentOptions({ mcpServers: { research } });
    const args = buildClaudeArgs(options as AgentOptions, withSdk(["research"]));
    expect(JSON.parse(flagValue(args, "--mcp-config")!)).toEqual({
      mcpServers: { research: { type: "sdk", name: "research", timeout: 60_000 } },
    });
    expect(() => createSdkMcpServer({ name: "x", timeout: -1 })).toThrow(
      /timeout: must be a number of milliseconds/,
    );
  });

  it("an SDK server is declared under its key, the name the CLI routes mcp_message by", () => {
    const args = buildClaudeArgs(
      { mcpServers: { tools: { type: "sdk", name: "my-tools", instance: fakeInstance } } },
      withSdk(["tools"]),
    );
    // In-process servers alone carry nothing secret: inline, no file written.
    expect(JSON.parse(flagValue(args, "--mcp-config")!)).toEqual({
      mcpServers: { tools: { type: "sdk", name: "tools" } },
    });
  });

  it("a config file path is passed through, with SDK servers from the context declared alongside", () => {
    expect(flagValue(build({ mcpServers: "/etc/mcp.json" }), "--mcp-config")).toBe("/etc/mcp.json");
    const args = buildClaudeArgs({ mcpServers: "/etc/mcp.json" }, withSdk(["calc"]));
    expect(valuesOf(args, "--mcp-config")).toEqual([
      "/etc/mcp.json",
      JSON.stringify({ mcpServers: { calc: { type: "sdk", name: "calc" } } }),
    ]);
  });

  it("no servers, no flag", () => {
    expect(build({ mcpServers: {} })).not.toContain("--mcp-config");
  });
});

describe("buildClaudeArgs: settings and sandbox", () => {
  const settingsOf = (options: AgentOptions) => {
    const path = flagValue(build(options), "--settings")!;
    expect(path).toMatch(/^\/private\/\d+\/settings\.json$/);
    return jsonOf(path) as Record<string, unknown>;
  };

  it("settings object, JSON string and file path all become one private settings file", () => {
    const file = join(tmp, "settings.json");
    writeFileSync(file, JSON.stringify({ model: "from-file" }));
    expect(settingsOf({ settings: { model: "obj" } })).toEqual({ model: "obj" });
    expect(settingsOf({ settings: ' {"model":"json"}' })).toEqual({ model: "json" });
    expect(settingsOf({ settings: file })).toEqual({ model: "from-file" });
  });

  it("a relative settings path is resolved against cwd", () => {
    writeFileSync(join(tmp, "rel.json"), JSON.stringify({ a: 1 }));
    expect(settingsOf({ settings: "rel.json", cwd: tmp })).toEqual({ a: 1 });
  });

  it("sandbox is merged into the one --settings flag, overriding keys of a settings sandbox", () => {
    const merged = settingsOf({
      settings: { env: { A: "1" }, sandbox: { enabled: false, excludedCommands: ["git"] } },
      sandbox: { enabled: true, autoAllowBashIfSandboxed: true },
    });
    expect(merged).toEqual({
      env: { A: "1" },
      sandbox: {
        enabled: true,
        excludedCommands: ["git"],
        autoAllowBashIfSandboxed: true,
        failIfUnavailable: true,
      },
    });
    expect(settingsOf({ sandbox: { enabled: true, failIfUnavailable: false } })).toEqual({
      sandbox: { enabled: true, failIfUnavailable: false },
    });
  });

  it("merges like the official SDK: nested objects by key, restriction lists combined, proxies dropped", () => {
    const merged = settingsOf({
      settings: {
        sandbox: {
          network: { httpProxyPort: 8080, deniedDomains: ["a.example"], allowLocalBinding: true },
          filesystem: { denyRead: ["/secret"], disabled: true },
          ripgrep: { command: "rg", args: ["--x"] },
        },
      },
      sandbox: {
        network: { deniedDomains: ["b.example"] },
        filesystem: { denyRead: ["/other"] },
        ripgrep: { command: "/bin/rg" },
      },
    });
    expect(merged.sandbox).toEqual({
      network: { deniedDomains: ["a.example", "b.example"], allowLocalBinding: true },
      filesystem: { denyRead: ["/secret", "/other"] },
      ripgrep: { command: "/bin/rg" },
    });
  });

  it("does not mutate the caller's settings object", () => {
    const settings = { sandbox: { enabled: false } };
    resolveClaudeSettings({ settings, sandbox: { enabled: true } });
    expect(settings).toEqual({ sandbox: { enabled: false } });
  });

  it("a missing file, bad JSON or a non-object is an InvalidOptionsError naming the problem", () => {
    const missing = join(tmp, "nope.json");
    expect(() => build({ settings: missing })).toThrow(InvalidOptionsError);
    expect(() => build({ settings: missing })).toThrow(/settings: cannot read settings file .*nope\.json/);
    writeFileSync(join(tmp, "bad.json"), "{not json");
    expect(() => build({ settings: join(tmp, "bad.json") })).toThrow(/settings: .* is not valid JSON/);
    expect(() => build({ settings: "{oops" })).toThrow(/settings: settings JSON is not valid JSON/);
    writeFileSync(join(tmp, "array.json"), "[1]");
    expect(() => build({ settings: join(tmp, "array.json") })).toThrow(/must hold a JSON object/);
  });
});

describe("buildClaudeArgs: conflicts", () => {
  it("canUseTool together with permissionPromptToolName is rejected", () => {
    const options: AgentOptions = {
      canUseTool: () => ({ behavior: "allow" }),
      permissionPromptToolName: "mcp__x__y",
    };
    expect(() => build(options)).toThrow(InvalidOptionsError);
    try {
      build(options);
    } catch (error) {
      expect((error as InvalidOptionsError).issues).toEqual([
        expect.stringMatching(/^permissionPromptToolName: /),
      ]);
    }
  });

  it("resumeSessionAt without resume is rejected (the CLI refuses it)", () => {
    expect(() => build({ resumeSessionAt: "uuid" })).toThrow(/resumeSessionAt: needs resume/);
  });
});
