import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  BASE_CLAUDE_ARGS,
  buildClaudeArgs,
  maxThinkingTokens,
  resolveClaudeSettings,
} from "../../../src/backends/claude/command.js";
import { InvalidOptionsError } from "../../../src/errors.js";
import type { McpServerConfig } from "../../../src/mcp/config.js";
import type { AgentOptions } from "../../../src/options.js";

const noSdk = { sdkMcpServerNames: [] };
const build = (options: AgentOptions) => buildClaudeArgs(options, noSdk);

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

  it("uses an empty system prompt and loads no settings files when nothing is said", () => {
    const args = build({});
    expect(flagValue(args, "--system-prompt")).toBe("");
    expect(flagValue(args, "--setting-sources")).toBe("");
    expect(args).toEqual([...BASE_CLAUDE_ARGS, "--system-prompt", "", "--setting-sources", ""]);
  });
});

describe("buildClaudeArgs: one option, one flag", () => {
  it("systemPrompt string replaces the prompt", () => {
    expect(flagValue(build({ systemPrompt: "Be terse." }), "--system-prompt")).toBe("Be terse.");
  });

  it("systemPrompt preset with append appends, without append passes nothing", () => {
    const withAppend = build({ systemPrompt: { type: "preset", preset: "claude_code", append: "Also X." } });
    expect(flagValue(withAppend, "--append-system-prompt")).toBe("Also X.");
    expect(withAppend).not.toContain("--system-prompt");
    const plain = build({ systemPrompt: { type: "preset", preset: "claude_code" } });
    expect(plain).not.toContain("--system-prompt");
    expect(plain).not.toContain("--append-system-prompt");
  });

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

  it("canUseTool routes permission prompts over stdio", () => {
    const args = build({ canUseTool: () => ({ behavior: "allow" }) });
    expect(flagValue(args, "--permission-prompt-tool")).toBe("stdio");
  });

  it("agents are passed as --agents JSON", () => {
    const agents = {
      reviewer: { description: "Reviews code", prompt: "You review.", tools: ["Read"], model: "sonnet" },
    };
    expect(JSON.parse(flagValue(build({ agents }), "--agents")!)).toEqual(agents);
    expect(build({ agents: {} })).not.toContain("--agents");
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

describe("buildClaudeArgs: thinking (seed §5.5)", () => {
  it.each<[AgentOptions, string | undefined]>([
    [{}, undefined],
    [{ thinking: { type: "adaptive" } }, undefined],
    [{ thinking: { type: "adaptive" }, maxThinkingTokens: 8000 }, "8000"],
    [{ thinking: { type: "enabled", budgetTokens: 5000 } }, "5000"],
    [{ thinking: { type: "enabled", budgetTokens: 5000 }, maxThinkingTokens: 9 }, "5000"],
    [{ thinking: { type: "disabled" } }, "0"],
    [{ thinking: { type: "disabled" }, maxThinkingTokens: 9 }, "0"],
    [{ maxThinkingTokens: 1234 }, "1234"],
    [{ maxThinkingTokens: 0 }, "0"],
  ])("%j → --max-thinking-tokens %s", (options, expected) => {
    const args = build(options);
    if (expected === undefined) expect(args).not.toContain("--max-thinking-tokens");
    else expect(flagValue(args, "--max-thinking-tokens")).toBe(expected);
    expect(maxThinkingTokens(options)).toBe(expected === undefined ? undefined : Number(expected));
  });
});

describe("buildClaudeArgs: MCP servers", () => {
  const fakeInstance = { connect: () => {} } as unknown as Extract<
    McpServerConfig,
    { type: "sdk" }
  >["instance"];

  it("inline servers become one --mcp-config JSON; SDK servers lose their instance", () => {
    const args = buildClaudeArgs(
      {
        mcpServers: {
          files: { command: "node", args: ["server.js"], env: { X: "1" } },
          web: { type: "http", url: "http://localhost:1/mcp", headers: { A: "b" } },
          calc: { type: "sdk", name: "calc", instance: fakeInstance },
        },
      },
      { sdkMcpServerNames: ["calc"] },
    );
    const config = JSON.parse(flagValue(args, "--mcp-config")!);
    expect(config).toEqual({
      mcpServers: {
        files: { command: "node", args: ["server.js"], env: { X: "1" } },
        web: { type: "http", url: "http://localhost:1/mcp", headers: { A: "b" } },
        calc: { type: "sdk", name: "calc" },
      },
    });
    expect(flagValue(args, "--mcp-config")).not.toContain("instance");
  });

  it("an SDK server is declared under its key, the name the CLI routes mcp_message by", () => {
    const args = buildClaudeArgs(
      { mcpServers: { tools: { type: "sdk", name: "my-tools", instance: fakeInstance } } },
      { sdkMcpServerNames: ["tools"] },
    );
    expect(JSON.parse(flagValue(args, "--mcp-config")!)).toEqual({
      mcpServers: { tools: { type: "sdk", name: "tools" } },
    });
  });

  it("a config file path is passed through, with SDK servers from the context declared alongside", () => {
    expect(flagValue(build({ mcpServers: "/etc/mcp.json" }), "--mcp-config")).toBe("/etc/mcp.json");
    const args = buildClaudeArgs({ mcpServers: "/etc/mcp.json" }, { sdkMcpServerNames: ["calc"] });
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
  const settingsOf = (options: AgentOptions) => JSON.parse(flagValue(build(options), "--settings")!);

  it("settings object, JSON string and file path all become inline JSON", () => {
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
      sandbox: { enabled: true, excludedCommands: ["git"], autoAllowBashIfSandboxed: true },
    });
    expect(settingsOf({ sandbox: { enabled: true } })).toEqual({ sandbox: { enabled: true } });
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
