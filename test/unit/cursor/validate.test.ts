import { describe, expect, it } from "vitest";
import { CURSOR_SUPPORTED_OPTIONS, validateCursorOptions } from "../../../src/backends/cursor/validate.js";
import { InvalidOptionsError, UnsupportedOptionsError } from "../../../src/errors.js";
import type { ResolvedOptions } from "../../../src/options/resolved.js";
import type { AgentOptions } from "../../../src/options.js";
import { agentOptionsSchema } from "../../../src/options-schema.js";
import { NEWER_CLAUDE_ONLY_OPTIONS } from "../support/claude-only-options.js";
import { ScriptedTransport } from "../support/scripted-transport.js";

/** One value for every option Cursor refuses, each of which would otherwise be a silent no-op. */
const REFUSED: Omit<ResolvedOptions, "backend"> = {
  codex: { sandboxMode: "read-only" },
  user: "nobody",
  autoInstallCli: true,
  onCliInstallProgress: () => undefined,
  controlTimeoutMs: 1000,
  callbackTimeoutMs: 1000,
  transport: new ScriptedTransport(() => undefined),
  record: "/tmp/never-written.jsonl",
  fallbackModel: "other",
  maxBudgetUsd: 1,
  effort: "high",
  thinking: { type: "adaptive" },
  maxThinkingTokens: 1000,
  betas: ["b"],
  tools: ["Read"],
  allowedTools: ["Read"],
  disallowedTools: ["Bash"],
  permissionMode: "acceptEdits",
  allowDangerouslySkipPermissions: true,
  permissionPromptToolName: "approve",
  canUseTool: async () => ({ behavior: "allow" }),
  mcpServers: { fs: { command: "mcp-fs" } },
  plugins: [{ type: "local", path: "/p" }],
  addDirs: ["/d"],
  agents: { a: { description: "d", prompt: "p" } },
  continueConversation: true,
  resumeSessionAt: "uuid",
  forkSession: true,
  settingSources: ["user"],
  settings: { a: 1 },
  sandbox: { enabled: true },
  enableFileCheckpointing: true,
  systemPrompt: "be brief",
  hooks: { PreToolUse: [{ hooks: [async () => ({})] }] },
  outputFormat: { type: "json_schema", schema: {} },
  ...NEWER_CLAUDE_ONLY_OPTIONS,
  persistSession: true,
  acp: { agent: "gemini" },
};

describe("validateCursorOptions", () => {
  it("accepts the options Cursor honours", () => {
    expect(() =>
      validateCursorOptions({
        backend: "cursor",
        cliPath: "/x",
        cwd: "/tmp",
        env: { A: "1" },
        inheritEnv: false,
        extraArgs: { "approve-mcps": null },
        signal: new AbortController().signal,
        stderr: () => undefined,
        maxBufferSize: 4096,
        closeGraceMs: 100,
        exitTimeoutMs: 100,
        model: "gpt-5",
        resume: "chat",
        includePartialMessages: true,
        cursor: {
          forceApprove: true,
          mode: "ask",
          trustWorkspace: true,
          sandbox: "disabled",
          apiKey: "k",
          partialOutput: true,
        },
      } satisfies AgentOptions),
    ).not.toThrow();
  });

  it("refuses every unsupported option at once, listing each of them", () => {
    let error: unknown;
    try {
      validateCursorOptions({ backend: "cursor", model: "m", ...REFUSED });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnsupportedOptionsError);
    const refused = error as UnsupportedOptionsError;
    expect(refused.backend).toBe("cursor");
    expect([...refused.options]).toEqual(Object.keys(REFUSED));
    expect(refused.message).toContain("Options not supported by the cursor backend: codex, user,");
  });

  it("the allow-list plus the refused list covers every AgentOptions key", () => {
    const known = Object.keys(agentOptionsSchema().shape).sort();
    const covered = [...CURSOR_SUPPORTED_OPTIONS, ...Object.keys(REFUSED)].sort();
    expect(covered).toEqual(known);
  });

  it("undefined and false count as unset", () => {
    expect(() =>
      validateCursorOptions({ systemPrompt: undefined, forkSession: false, continueConversation: false }),
    ).not.toThrow();
  });

  it("schema problems come first, as InvalidOptionsError with every issue", () => {
    let error: unknown;
    try {
      validateCursorOptions({ cursor: { mode: "yolo", apiKey: 3 }, maxTurn: 2, hooks: {} } as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidOptionsError);
    const issues = (error as InvalidOptionsError).issues.join("\n");
    expect(issues).toMatch(/cursor\.mode/);
    expect(issues).toMatch(/cursor\.apiKey/);
    expect(issues).toMatch(/unknown option 'maxTurn' \(did you mean 'maxTurns'\?\)/);
  });
});
