/**
 * Options the Codex backend cannot honour are rejected up front, all of them in one error.
 */
import { describe, expect, it } from "vitest";
// The validators answer options beyond the plain ones from the options schema, loaded on every
// public path (backendFor, loadBackend); here, by importing it.
import "../../../src/options-schema.js";
import { CODEX_UNSUPPORTED_OPTIONS, validateCodexOptions } from "../../../src/backends/codex/validate.js";
import {
  createSdkMcpServer,
  getBackend,
  InvalidOptionsError,
  loadBackend,
  UnsupportedOptionsError,
} from "../../../src/index.js";
import type { ResolvedOptions } from "../../../src/options/resolved.js";
import { NEWER_CLAUDE_ONLY_OPTIONS } from "../support/claude-only-options.js";

/** One valid value for every option Codex rejects. */
const claudeOnly = {
  cursor: { mode: "ask" },
  acp: { agent: "gemini" },
  user: 1000,
  fallbackModel: "m",
  maxBudgetUsd: 1,
  thinking: { type: "adaptive" },
  maxThinkingTokens: 100,
  betas: ["b"],
  tools: ["Bash"],
  allowedTools: ["Bash"],
  disallowedTools: ["Write"],
  permissionMode: "acceptEdits",
  allowDangerouslySkipPermissions: false,
  permissionPromptToolName: "mcp__p__ask",
  plugins: [{ type: "local", path: "/p" }],
  agents: { a: { description: "d", prompt: "p" } },
  continueConversation: true,
  resumeSessionAt: "uuid",
  forkSession: true,
  settingSources: ["user"],
  settings: "{}",
  sandbox: { enabled: true },
  enableFileCheckpointing: true,
  systemPrompt: "be brief",
  hooks: { PreToolUse: [{ hooks: [async () => ({})] }] },
  ...NEWER_CLAUDE_ONLY_OPTIONS,
} satisfies Partial<ResolvedOptions> & { executable?: unknown; executableArgs?: unknown };

function rejection(options: unknown): UnsupportedOptionsError {
  try {
    validateCodexOptions(options);
  } catch (error) {
    if (error instanceof UnsupportedOptionsError) return error;
    throw error;
  }
  throw new Error("expected UnsupportedOptionsError");
}

describe("validateCodexOptions", () => {
  it("accepts every option Codex supports", () => {
    expect(() =>
      validateCodexOptions({
        backend: "codex",
        codex: {
          approvalPolicy: "untrusted",
          sandboxMode: "workspace-write",
          reasoningEffort: "high",
          networkAccess: true,
          config: { "a.b": [1, { c: "d" }] },
          skipGitRepoCheck: false,
        },
        cliPath: "/bin/codex",
        cwd: "/",
        env: { A: "1" },
        extraArgs: { "strict-config": null },
        signal: new AbortController().signal,
        stderr: () => {},
        maxBufferSize: 4096,
        controlTimeoutMs: 1000,
        closeGraceMs: 100,
        model: "gpt-5.5",
        effort: "high",
        canUseTool: () => ({ behavior: "allow" }),
        mcpServers: { s: { command: "node" }, h: { type: "http", url: "http://x" } },
        addDirs: ["/tmp"],
        resume: "01a2006c-d3d2-7562-819c-e668dc7cb903",
        includePartialMessages: true,
        outputFormat: { type: "json_schema", schema: { type: "object" } },
      }),
    ).not.toThrow();
  });

  it("rejects every Claude-only option in one error that names each of them", () => {
    const error = rejection({ backend: "codex", ...claudeOnly });
    expect(error.backend).toBe("codex");
    expect([...error.options].sort()).toEqual([...CODEX_UNSUPPORTED_OPTIONS].sort());
    for (const key of CODEX_UNSUPPORTED_OPTIONS) expect(error.message).toContain(key);
  });

  it("rejects an option even at a harmless value, so nothing is silently ignored", () => {
    expect(rejection({ continueConversation: false }).options).toEqual(["continueConversation"]);
    expect(rejection({ allowedTools: [] }).options).toEqual(["allowedTools"]);
  });

  it("rejects MCP servers Codex cannot run, by name, and an MCP config file path", () => {
    const sdk = createSdkMcpServer({ name: "calc", tools: [] });
    expect(
      rejection({
        mcpServers: {
          ok: { command: "node" },
          remote: { type: "sse", url: "http://x/sse" },
          calc: sdk,
        },
        hooks: {},
      }).options,
    ).toEqual(["hooks", "mcpServers.remote", "mcpServers.calc"]);
    expect(rejection({ mcpServers: "/etc/mcp.json" }).options).toEqual(["mcpServers"]);
  });

  it("reports invalid values (schema first) as InvalidOptionsError, before unsupported options", () => {
    expect(() =>
      validateCodexOptions({ codex: { approvalPolicy: "on-failure" as never }, hooks: {} }),
    ).toThrow(InvalidOptionsError);
    expect(() => validateCodexOptions({ effort: "max" })).toThrow(/no 'max' reasoning effort/);
    expect(() => validateCodexOptions({ effort: "low", codex: { reasoningEffort: "high" } })).toThrow(
      /conflicts with codex.reasoningEffort/,
    );
    expect(() => validateCodexOptions({ codex: { config: { "a=b": 1 } } })).toThrow(InvalidOptionsError);
    expect(() => validateCodexOptions({ codex: { config: { a: null as never } } })).toThrow(/TOML value/);
  });

  it("is what the registered codex backend runs, once it is loaded", async () => {
    const backend = await loadBackend("codex");
    expect(backend.name).toBe("codex");
    expect(() => backend.validateOptions({ systemPrompt: "x", maxBudgetUsd: 1 })).toThrow(
      UnsupportedOptionsError,
    );
    expect(() => getBackend("codex").validateOptions({ systemPrompt: "x" })).toThrow(UnsupportedOptionsError);
  });
});
