import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { claudeOptionIssues, validateClaudeOptions } from "../../../src/backends/claude/validate.js";
import { InvalidOptionsError, UnsupportedOptionsError } from "../../../src/errors.js";
import type { AgentOptions } from "../../../src/options.js";
import { agentOptionsIssues, agentOptionsSchema, validateAgentOptions } from "../../../src/options-schema.js";
import { inertTransport } from "../support/scripted-transport.js";

/** The issues `validateAgentOptions` throws for `options` (fails the test if it does not throw). */
function issuesOf(validate: (o: unknown) => void, options: unknown): readonly string[] {
  try {
    validate(options);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionsError);
    return (error as InvalidOptionsError).issues;
  }
  throw new Error(`expected ${JSON.stringify(options)} to be rejected`);
}

const everyOption: AgentOptions = {
  backend: "claude",
  cliPath: "/usr/bin/claude",
  cwd: "/tmp",
  env: { A: "1", B: undefined },
  user: "root",
  extraArgs: { "debug-to-stderr": null, "session-id": "x" },
  signal: new AbortController().signal,
  stderr: () => {},
  maxBufferSize: 1024,
  controlTimeoutMs: 1,
  closeGraceMs: 1,
  transport: inertTransport,
  model: "sonnet",
  fallbackModel: "haiku",
  maxTurns: 1,
  maxBudgetUsd: 0.01,
  effort: "max",
  thinking: { type: "enabled", budgetTokens: 1 },
  maxThinkingTokens: 0,
  betas: ["context-1m-2025-08-07"],
  tools: { type: "preset", preset: "claude_code" },
  allowedTools: ["Read"],
  disallowedTools: ["Write"],
  permissionMode: "bypassPermissions",
  allowDangerouslySkipPermissions: true,
  permissionPromptToolName: "mcp__p__ask",
  mcpServers: {
    a: { command: "node", args: ["x"], env: { K: "v" } },
    b: { type: "stdio", command: "node" },
    c: { type: "sse", url: "http://x", headers: { h: "1" } },
    d: { type: "http", url: "http://x" },
    e: { type: "sdk", name: "e", instance: {} as never },
  },
  plugins: [{ type: "local", path: "/p" }],
  addDirs: ["/d"],
  agents: { r: { description: "d", prompt: "p", tools: ["Read"], model: "inherit" } },
  continueConversation: false,
  resume: "8755d035-1a79-4e28-8225-2d0348cf8fea",
  resumeSessionAt: "440a0b6b-3a8f-4fa3-93bd-33952589258a",
  forkSession: true,
  settingSources: ["user", "project", "local"],
  settings: { a: 1 },
  sandbox: {
    enabled: true,
    autoAllowBashIfSandboxed: true,
    excludedCommands: ["git"],
    allowUnsandboxedCommands: false,
    network: {
      allowLocalBinding: true,
      allowUnixSockets: ["/s"],
      allowAllUnixSockets: false,
      httpProxyPort: 8080,
    },
    ignoreViolations: { file: ["/f"], network: ["n"] },
    enableWeakerNestedSandbox: false,
  },
  enableFileCheckpointing: true,
  systemPrompt: { type: "preset", preset: "claude_code", append: "x" },
  hooks: { PreToolUse: [{ matcher: "Bash", hooks: [() => ({})], timeout: 5 }], FutureEvent: [{ hooks: [] }] },
  includePartialMessages: true,
  outputFormat: { type: "json_schema", schema: { type: "object" } },
};

describe("validateAgentOptions", () => {
  it("accepts no options, empty options, and every option at a valid value", () => {
    expect(() => validateAgentOptions(undefined)).not.toThrow();
    expect(() => validateAgentOptions({})).not.toThrow();
    expect(agentOptionsIssues(everyOption)).toEqual([]);
    expect(() =>
      validateAgentOptions({
        backend: "codex",
        codex: {
          approvalPolicy: "never",
          sandboxMode: "read-only",
          reasoningEffort: "minimal",
          config: { a: 1 },
        },
        cursor: { forceApprove: true, mode: "plan", sandbox: "enabled", apiKey: "k", partialOutput: true },
        mcpServers: "/etc/mcp.json",
        settings: "/etc/settings.json",
        user: 1000,
        systemPrompt: "hi",
        tools: [],
        thinking: { type: "adaptive" },
      }),
    ).not.toThrow();
  });

  it("lists every problem, not just the first", () => {
    const issues = issuesOf(validateAgentOptions, {
      maxTurns: 0,
      maxBudgetUsd: 0,
      maxBufferSize: 1000,
      controlTimeoutMs: -5,
      closeGraceMs: 0,
      maxThinkingTokens: -1,
      thinking: { type: "enabled", budgetTokens: 1.5 },
      permissionMode: "yolo",
      effort: "extreme",
      backend: "gemini",
      settingSources: ["user", "global"],
    });
    expect(issues).toHaveLength(11);
    expect(issues).toEqual(
      expect.arrayContaining([
        "maxTurns: must be greater than 0",
        "maxBudgetUsd: must be greater than 0",
        "maxBufferSize: must be at least 1024 bytes",
        "controlTimeoutMs: must be greater than 0",
        "closeGraceMs: must be greater than 0",
        "maxThinkingTokens: must be 0 or more",
        "thinking.budgetTokens: must be a whole number",
        expect.stringMatching(/^permissionMode: .*"default"/),
        expect.stringMatching(/^effort: .*"xhigh"/),
        expect.stringMatching(/^backend: .*"cursor"/),
        expect.stringMatching(/^settingSources\[1\]: /),
      ]),
    );
  });

  it("bounds every duration by Node's longest timer (2^31−1 ms) and takes Infinity as no limit where that can end", () => {
    const tooLong = 2 ** 31;
    const issues = issuesOf(validateAgentOptions, {
      controlTimeoutMs: tooLong,
      closeGraceMs: tooLong,
      exitTimeoutMs: tooLong,
      callbackTimeoutMs: tooLong,
      hooks: { Stop: [{ hooks: [async () => ({})], timeout: 2_147_484 }] },
    });
    expect(issues).toEqual([
      expect.stringMatching(/^controlTimeoutMs: must be at most 2147483647 ms .*use Infinity for no limit$/),
      expect.stringMatching(/^closeGraceMs: must be at most 2147483647 ms/),
      expect.stringMatching(/^exitTimeoutMs: must be at most 2147483647 ms .*use Infinity for no limit$/),
      expect.stringMatching(/^callbackTimeoutMs: must be at most 2147483647 ms .*use Infinity for no limit$/),
      expect.stringMatching(/^hooks\.Stop\[0\]\.timeout: must be at most 2147483 seconds/),
    ]);
    expect(issuesOf(validateAgentOptions, { closeGraceMs: Number.POSITIVE_INFINITY })).toEqual([
      expect.stringMatching(/^closeGraceMs: must be finite/),
    ]);
    expect(issuesOf(validateAgentOptions, { controlTimeoutMs: Number.NaN })).toEqual([
      "controlTimeoutMs: expected a number of milliseconds",
    ]);
    expect(() =>
      validateAgentOptions({
        controlTimeoutMs: Number.POSITIVE_INFINITY,
        exitTimeoutMs: Number.POSITIVE_INFINITY,
        callbackTimeoutMs: Number.POSITIVE_INFINITY,
        closeGraceMs: 2 ** 31 - 1,
        hooks: { Stop: [{ hooks: [async () => ({})], timeout: 2_147_483 }] },
      }),
    ).not.toThrow();
  });

  it("requires whole numbers where counts are meant", () => {
    const issues = issuesOf(validateAgentOptions, {
      maxTurns: 2.5,
      maxBufferSize: 2048.5,
      maxThinkingTokens: 0.5,
    });
    expect(issues).toEqual([
      "maxBufferSize: must be a whole number of bytes",
      "maxTurns: must be a whole number",
      "maxThinkingTokens: must be a whole number",
    ]);
  });

  it("names an unknown key and suggests the option that was probably meant", () => {
    expect(issuesOf(validateAgentOptions, { maxTurn: 3 })).toEqual([
      "maxTurn: unknown option 'maxTurn' (did you mean 'maxTurns'?)",
    ]);
    expect(issuesOf(validateAgentOptions, { allowedtools: ["Read"], zzz: 1 })).toEqual([
      "allowedtools: unknown option 'allowedtools' (did you mean 'allowedTools'?)",
      "zzz: unknown option 'zzz'",
    ]);
    expect(issuesOf(validateAgentOptions, { additionalDirectories: ["/a"] })).toEqual([
      "additionalDirectories: unknown option 'additionalDirectories' (the official SDK's name; here it is 'addDirs')",
    ]);
  });

  it("bypassPermissions needs allowDangerouslySkipPermissions, and says why", () => {
    const [issue, ...rest] = issuesOf(validateAgentOptions, { permissionMode: "bypassPermissions" });
    expect(rest).toEqual([]);
    expect(issue).toMatch(/^permissionMode: /);
    expect(issue).toContain("allowDangerouslySkipPermissions: true");
    expect(
      issuesOf(validateAgentOptions, {
        permissionMode: "bypassPermissions",
        allowDangerouslySkipPermissions: false,
      }),
    ).toHaveLength(1);
  });

  it("reports the bypass rule together with unrelated problems", () => {
    const issues = issuesOf(validateAgentOptions, {
      permissionMode: "bypassPermissions",
      maxTurns: -1,
      typo: 1,
    });
    expect(issues).toHaveLength(3);
  });

  it("checks callbacks, the abort signal and a custom transport by shape", () => {
    const issues = issuesOf(validateAgentOptions, {
      canUseTool: "allow",
      stderr: {},
      signal: { aborted: false },
      transport: { connect: () => {} },
      hooks: { PreToolUse: [{ hooks: ["not a function"] }] },
    });
    expect(issues).toEqual(
      expect.arrayContaining([
        "canUseTool: canUseTool must be a function",
        "stderr: stderr must be a function",
        "signal: signal must be an AbortSignal",
        expect.stringMatching(/^transport: transport must implement connect, write, readMessages/),
        "hooks.PreToolUse[0].hooks[0]: each hook must be a function",
      ]),
    );
  });

  it("points into the MCP server variant that was meant", () => {
    const issues = issuesOf(validateAgentOptions, {
      mcpServers: {
        local: { command: 42 },
        remote: { type: "http" },
        inproc: { type: "sdk", name: "inproc", instance: "nope" },
        odd: { type: "websocket", url: "ws://x" },
      },
    });
    expect(issues).toEqual([
      expect.stringMatching(/^mcpServers\.local\.command: /),
      expect.stringMatching(/^mcpServers\.remote\.url: /),
      expect.stringMatching(/^mcpServers\.inproc\.instance: instance must be an McpServer object/),
      expect.stringMatching(/^mcpServers\.odd\.type: .*'stdio'.*'sdk'/),
    ]);
    expect(issuesOf(validateAgentOptions, { mcpServers: 42 })).toEqual([
      "mcpServers: expected a path to an MCP config file or an object of MCP servers by name",
    ]);
  });

  it("explains union-typed options in words", () => {
    expect(issuesOf(validateAgentOptions, { systemPrompt: 1, tools: "Bash" })).toEqual([
      "tools: expected a list of tool names or { type: 'preset', preset: 'claude_code' }",
      "systemPrompt: expected a string, a list of strings, { type: 'custom', prompt } or { type: 'preset', preset: 'claude_code' }",
    ]);
    expect(issuesOf(validateAgentOptions, { systemPrompt: { type: "preset", preset: "other" } })).toEqual([
      expect.stringMatching(/^systemPrompt\.preset: .*claude_code/),
    ]);
    expect(issuesOf(validateAgentOptions, { thinking: { type: "on" } })).toEqual([
      expect.stringMatching(/^thinking\.type: .*adaptive/),
    ]);
  });

  it("extraArgs keys are flag names without dashes", () => {
    expect(issuesOf(validateAgentOptions, { extraArgs: { "--verbose": null } })).toEqual([
      "extraArgs.--verbose: flag names are written without leading dashes",
    ]);
  });

  it("rejects something that is not an options object", () => {
    expect(issuesOf(validateAgentOptions, null)).toEqual([expect.stringMatching(/^\(options\): /)]);
    expect(issuesOf(validateAgentOptions, "model")).toHaveLength(1);
  });

  it("the error message lists every issue", () => {
    const run = () => validateAgentOptions({ maxTurns: 0, modle: "x" });
    expect(run).toThrow("maxTurns: must be greater than 0");
    expect(run).toThrow("modle: unknown option 'modle'");
  });

  it("keeps English messages when the application configured another zod locale, and leaves it set", () => {
    const french = z.locales.fr();
    z.config(french);
    try {
      expect(issuesOf(validateAgentOptions, { model: 1 })).toEqual([
        "model: Invalid input: expected string, received number",
      ]);
      expect(z.string().safeParse(1).error?.issues[0]?.message).toMatch(/attendu/);
    } finally {
      z.config(z.locales.en());
    }
  });

  it("exports the schema itself", () => {
    expect(agentOptionsSchema().safeParse({ maxTurns: 1 }).success).toBe(true);
    expect(agentOptionsSchema().safeParse({ maxTurns: 0 }).success).toBe(false);
  });

  // agentOptionsIssues checks key by key first (only the present options' schemas are built) and
  // falls back to the full parse; the two must agree on every input.
  it("the key-by-key check and the full parse agree", () => {
    class OptionsClass {
      model = "sonnet";
    }
    const inherited = Object.create({ maxTurns: 0 }) as Record<string, unknown>;
    inherited.model = "sonnet";
    const cases: unknown[] = [
      {},
      everyOption,
      { cliPath: "/bin/claude" },
      { cliPath: "" },
      { maxTurns: undefined },
      { maxTurns: 0 },
      { maxTurn: 1 },
      { permissionMode: "bypassPermissions" },
      { permissionMode: "bypassPermissions", allowDangerouslySkipPermissions: true },
      { lowWaterMark: 70_000 },
      { lowWaterMark: 70_000, highWaterMark: 65_536 },
      { sandbox: { enabled: true, network: { httpProxyPort: 0 } } },
      { sandbox: { enabled: true, futureField: 1 } },
      { mcpServers: { a: { type: "stdio", command: "x" } } },
      { mcpServers: { a: { type: "ftp", url: "x" } } },
      { codex: { approvalPolicy: "never" } },
      { codex: { approvalPolicy: "sometimes" } },
      new OptionsClass(),
      inherited,
      Object.assign(Object.create(null), { model: "sonnet" }),
      [],
      "model",
      null,
    ];
    for (const options of cases) {
      const valid = agentOptionsSchema().safeParse(options).success;
      expect({ options, valid: agentOptionsIssues(options).length === 0 }).toEqual({ options, valid });
    }
  });
});

describe("validateClaudeOptions", () => {
  const tmp = mkdtempSync(join(tmpdir(), "validate-test-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("accepts good options", () => {
    expect(() => validateClaudeOptions({})).not.toThrow();
    expect(() =>
      validateClaudeOptions({ model: "sonnet", canUseTool: () => ({ behavior: "allow" }) }),
    ).not.toThrow();
  });

  it("adds Claude's own rules to the schema's, all in one error", () => {
    const issues = issuesOf(validateClaudeOptions, {
      maxTurns: 0,
      canUseTool: () => ({ behavior: "allow" }),
      permissionPromptToolName: "mcp__x__y",
      resumeSessionAt: "440a0b6b-3a8f-4fa3-93bd-33952589258a",
      settings: join(tmp, "missing.json"),
      user: "no-such-user-anywhere",
    });
    expect(issues).toEqual([
      "maxTurns: must be greater than 0",
      expect.stringMatching(/^permissionPromptToolName: cannot be combined with canUseTool/),
      expect.stringMatching(/^resumeSessionAt: needs resume/),
      expect.stringMatching(/^settings: cannot read settings file/),
      expect.stringMatching(/^user: no Unix user named 'no-such-user-anywhere'/),
    ]);
  });

  it("a settings file with bad JSON is caught before spawning", () => {
    const bad = join(tmp, "bad.json");
    writeFileSync(bad, "{");
    expect(claudeOptionIssues({ settings: bad })).toEqual([expect.stringMatching(/is not valid JSON/)]);
  });

  it("other backends' sections are unsupported, after the options are otherwise valid", () => {
    expect(() => validateClaudeOptions({ codex: { approvalPolicy: "never" }, cursor: {} })).toThrow(
      UnsupportedOptionsError,
    );
    expect(() => validateClaudeOptions({ codex: {} })).toThrow(
      expect.objectContaining({ options: ["codex"], backend: "claude" }),
    );
    expect(() => validateClaudeOptions({ codex: {}, maxTurns: 0 })).toThrow(InvalidOptionsError);
  });
});

describe("options.record", () => {
  it("takes a path or { path, redact }, and refuses anything else before a spawn", () => {
    expect(() => validateClaudeOptions({ record: "/tmp/session.jsonl" })).not.toThrow();
    expect(() =>
      validateClaudeOptions({ record: { path: "/tmp/s.jsonl", redact: ["secret"] } }),
    ).not.toThrow();
    expect(() => validateClaudeOptions({ record: "" })).toThrow(InvalidOptionsError);
    expect(() => validateClaudeOptions({ record: { redact: [] } as never })).toThrow(/record/);
    expect(() => validateClaudeOptions({ record: { path: "/tmp/s.jsonl", mode: "x" } as never })).toThrow(
      InvalidOptionsError,
    );
  });
});
