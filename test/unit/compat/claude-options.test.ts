/** The official Claude SDK's `Options` mapped onto `AgentOptions` (no process involved). */
import { describe, expect, it } from "vitest";
import { toAgentOptions } from "../../../src/compat/claude-agent-sdk/options.js";
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

  it("without env the CLI inherits process.env; without settingSources it loads every source", () => {
    const out = toAgentOptions({});
    expect(out.inheritEnv).toBeUndefined();
    // Layered over process.env: only the two variables the official SDK strips.
    expect(out.env).toEqual({ NODE_OPTIONS: undefined, DEBUG: undefined });
    expect(toAgentOptions({ env: { DEBUG_CLAUDE_AGENT_SDK: "1" } }).env).toMatchObject({ DEBUG: "1" });
    expect(out.settingSources).toEqual(["user", "project", "local"]);
    expect(toAgentOptions({ settingSources: [] }).settingSources).toEqual([]);
  });

  it("maps flags the core has no option for onto extraArgs; caller extraArgs win", () => {
    const out = toAgentOptions({
      agent: "rev",
      sessionId: "s",
      persistSession: false,
      includeHookEvents: true,
      strictMcpConfig: true,
      debug: true,
      extraArgs: { agent: "other" },
    });
    expect(out.extraArgs).toEqual({
      agent: "other",
      "session-id": "s",
      "no-session-persistence": null,
      "include-hook-events": null,
      "strict-mcp-config": null,
      debug: null,
    });
    expect(toAgentOptions({ debug: true, debugFile: "/tmp/d" }).extraArgs).toEqual({
      "debug-file": "/tmp/d",
    });
  });

  it("maps thinking and system prompt forms as the official SDK sends them", () => {
    expect(toAgentOptions({ thinking: { type: "enabled" } }).thinking).toEqual({ type: "adaptive" });
    expect(toAgentOptions({ thinking: { type: "enabled", budgetTokens: 10 } }).thinking).toEqual({
      type: "enabled",
      budgetTokens: 10,
    });
    expect(toAgentOptions({ maxTurns: 0 }).maxTurns).toBeUndefined();
    expect(toAgentOptions({ systemPrompt: { type: "preset", preset: "claude_code" } }).systemPrompt).toEqual({
      type: "preset",
      preset: "claude_code",
    });
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
    expect(issues({ executableArgs: ["--smol"] })[0]).toMatch(/^executableArgs: /);
    expect(issues({ systemPrompt: ["a", "b"] })[0]).toMatch(/^systemPrompt: the string\[\] form/);
    expect(issues({ systemPrompt: { type: "custom", prompt: "x" } })[0]).toMatch(/"custom" form/);
    expect(issues({ thinking: { type: "adaptive", display: "omitted" } })[0]).toMatch(/^thinking.display/);
    expect(issues({ model: "m", fallbackModel: "m" })[0]).toMatch(/^fallbackModel: /);
    expect(issues({ hooks: { Stop: [{ hooks: [], onFailure: "block" }] } })[0]).toBe(
      "hooks.Stop: onFailure not implemented",
    );
    expect(issues({ plugins: [{ type: "local", path: "p", skipMcpDiscovery: true }] })[0]).toBe(
      "plugins: skipMcpDiscovery not implemented",
    );
    expect(issues({ typo: 1 })[0]).toBe("typo: not an option of @anthropic-ai/claude-agent-sdk 0.3.330");
    expect(issues({ executable: undefined })).toEqual([]);
  });
});
