/** The official Claude SDK's `Options` mapped onto `AgentOptions` (no process involved). */
import { describe, expect, it } from "vitest";
import { CLAUDE_REJECTED_OPTIONS } from "../../../src/backends/claude/official-options.js";
import { REJECTED_OPTIONS, toAgentOptions } from "../../../src/compat/claude-agent-sdk/options.js";
import { UnsupportedOptionsError } from "../../../src/errors.js";

describe("compat/claude-agent-sdk options", () => {
  it("renames the official options and keeps their meaning", () => {
    const abortController = new AbortController();
    const out = toAgentOptions({
      abortController,
      continue: true,
      additionalDirectories: ["/a"],
      pathToClaudeCodeExecutable: "/bin/claude",
      env: { PATH: "/bin" },
      maxTurns: 2,
    });
    expect(out).toMatchObject({
      backend: "claude",
      signal: abortController.signal,
      continueConversation: true,
      addDirs: ["/a"],
      cliPath: "/bin/claude",
      env: { PATH: "/bin", NODE_OPTIONS: undefined, DEBUG: undefined },
      inheritEnv: false,
      maxTurns: 2,
    });
  });

  it("without env the CLI inherits process.env; without settingSources none is passed", () => {
    const out = toAgentOptions({});
    expect(out.inheritEnv).toBeUndefined();
    // Layered over process.env: only the two variables the official SDK strips.
    expect(out.env).toEqual({ NODE_OPTIONS: undefined, DEBUG: undefined });
    expect(toAgentOptions({ env: { DEBUG_CLAUDE_AGENT_SDK: "1" } }).env).toMatchObject({ DEBUG: "1" });
    // The core passes no --setting-sources then, as the official SDK does.
    expect(out.settingSources).toBeUndefined();
    expect(toAgentOptions({ settingSources: [] }).settingSources).toEqual([]);
  });

  it("passes the options the core shares with the official SDK straight through", () => {
    const spawn = () => {
      throw new Error("not called");
    };
    const same = {
      agent: "rev",
      sessionId: "s",
      persistSession: false,
      includeHookEvents: true,
      strictMcpConfig: true,
      debug: true,
      debugFile: "/tmp/d",
      extraArgs: { foo: "bar" },
      thinking: { type: "adaptive", display: "omitted" },
      systemPrompt: { type: "custom", prompt: ["a", "b"], snapshot: true },
      supportedDialogKinds: ["k"],
      toolConfig: { askUserQuestion: { previewFormat: "html" } },
      toolAliases: { Bash: "mcp__w__bash" },
      planModeInstructions: "plan",
      promptSuggestions: true,
      agentProgressSummaries: true,
      forwardSubagentText: true,
      perTaskStopAffordance: true,
      title: "t",
      skills: "all",
      managedSettings: { permissions: { deny: ["Bash"] } },
      mcpServersDelivery: "initialize",
      pluginDelivery: "initialize",
      plugins: [{ type: "local", path: "p", skipMcpDiscovery: true }],
      verbatimPrompts: true,
      taskBudget: { total: 1000 },
      resumeDropsTurn: "u",
      permissionPrompts: "none",
      projectConfigRoot: "/repo",
      spawnClaudeCodeProcess: spawn,
    } as const;
    expect(toAgentOptions(same as never)).toMatchObject(same);
    expect(toAgentOptions({ systemPrompt: ["a", "b"] }).systemPrompt).toEqual(["a", "b"]);
    expect(toAgentOptions({ maxTurns: 0 }).maxTurns).toBeUndefined();
  });

  it("hands the official callbacks their own shapes (hooks' onFailure, elicitations, dialogs)", async () => {
    const hook = async () => ({});
    const out = toAgentOptions({ hooks: { Stop: [{ hooks: [hook], onFailure: "block", timeout: 5 }] } });
    expect(out.hooks?.Stop).toEqual([{ hooks: [hook], onFailure: "block", timeout: 5 }]);

    const seen: unknown[] = [];
    const context = { signal: new AbortController().signal, requestId: "r" };
    const mapped = toAgentOptions({
      onElicitation: async (request) => {
        seen.push(request);
        return { action: "decline" };
      },
      onUserDialog: async (request) => {
        seen.push(request);
        return { behavior: "cancelled" };
      },
    });
    await expect(
      mapped.onElicitation?.({ serverName: "s", message: "m", mode: "form", raw: { x: 1 } }, context),
    ).resolves.toEqual({ action: "decline" });
    await expect(
      mapped.onUserDialog?.({ dialogKind: "k", payload: { a: 1 }, toolUseId: "t", raw: {} }, context),
    ).resolves.toEqual({ behavior: "cancelled" });
    expect(seen).toEqual([
      { serverName: "s", message: "m", mode: "form" },
      { dialogKind: "k", payload: { a: 1 }, toolUseID: "t" },
    ]);
  });

  it("delivers stderr as the official callback's text (one line, with its newline)", () => {
    const seen: string[] = [];
    toAgentOptions({ stderr: (d) => seen.push(d) }).stderr?.("boom");
    expect(seen).toEqual(["boom\n"]);
  });

  it("rejects, by name and with a reason, what it cannot honour", () => {
    const issues = (options: object) => {
      try {
        toAgentOptions(options as never);
      } catch (error) {
        expect(error).toBeInstanceOf(UnsupportedOptionsError);
        return (error as UnsupportedOptionsError).options;
      }
      return [];
    };
    // Exactly what the core refuses, with the core's reasons.
    expect(Object.keys(REJECTED_OPTIONS).sort()).toEqual(Object.keys(CLAUDE_REJECTED_OPTIONS).sort());
    expect(issues({ executableArgs: ["--smol"] })[0]).toBe(
      `executableArgs: ${CLAUDE_REJECTED_OPTIONS.executableArgs}`,
    );
    expect(issues({ executable: "bun" })[0]).toMatch(/^executable: /);
    expect(issues({ model: "m", fallbackModel: "m" })[0]).toMatch(/^fallbackModel: /);
    expect(issues({ hooks: { Stop: [{ hooks: [], whenUnanswered: "x" }] } })[0]).toBe(
      "hooks.Stop: whenUnanswered not an option of 0.3.330",
    );
    expect(issues({ plugins: [{ type: "local", path: "p", marketplace: "m" }] })[0]).toBe(
      "plugins: marketplace not an option of 0.3.330",
    );
    expect(issues({ typo: 1 })[0]).toBe("typo: not an option of @anthropic-ai/claude-agent-sdk 0.3.330");
    expect(issues({ executable: undefined })).toEqual([]);
  });
});
