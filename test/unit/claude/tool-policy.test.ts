/**
 * The every-call tool policy's hook (src/backends/claude/tool-policy.ts): what it asks about, and
 * which user rules it reads as allowing a call — conservatively, so a rule never lets more through
 * than the CLI itself would.
 */
import { describe, expect, it } from "vitest";
import type { HookInput } from "../../../src/backends/claude/hooks.js";
import {
  hooksWithToolPolicy,
  ruleAllows,
  toolPolicyHook,
  userAllowRules,
} from "../../../src/backends/claude/tool-policy.js";

const signal = new AbortController().signal;
const preToolUse = (tool_name: string, tool_input: Record<string, unknown>, permission_mode = "default") =>
  ({ hook_event_name: "PreToolUse", tool_name, tool_input, permission_mode }) as unknown as HookInput;

describe("the every-call policy hook", () => {
  it("asks for an ordinary call, not for bookkeeping tools nor in bypassPermissions", async () => {
    const hook = toolPolicyHook();
    expect(await hook(preToolUse("Read", { file_path: "/x" }), "t1", { signal })).toMatchObject({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask" },
    });
    expect(await hook(preToolUse("StructuredOutput", { answer: 4 }), "t2", { signal })).toEqual({});
    expect(await hook(preToolUse("TodoWrite", { todos: [] }), "t3", { signal })).toEqual({});
    expect(
      await hook(preToolUse("Bash", { command: "rm x" }, "bypassPermissions"), "t4", { signal }),
    ).toEqual({});
  });

  it("is registered after the user's PreToolUse hooks only with canUseTool and the default scope", () => {
    const canUseTool = () => ({ behavior: "allow" as const });
    const mine = { hooks: [() => ({})] };
    expect(hooksWithToolPolicy({})).toBeUndefined();
    expect(hooksWithToolPolicy({ canUseTool, canUseToolScope: "asked-calls" })).toBeUndefined();
    const hooks = hooksWithToolPolicy({ canUseTool, hooks: { PreToolUse: [mine] } });
    expect(hooks?.PreToolUse).toHaveLength(2);
    expect(hooks?.PreToolUse?.[0]).toBe(mine);
  });

  it("reads the user's rules from allowedTools and a settings object, not from a settings file", () => {
    expect(
      userAllowRules({ allowedTools: ["Bash(npm test)"], settings: { permissions: { allow: ["Read"] } } }),
    ).toEqual(["Bash(npm test)", "Read"]);
    expect(userAllowRules({ settings: "/repo/.claude/settings.json" })).toEqual([]);
  });
});

describe("ruleAllows", () => {
  it.each([
    ["Bash", "Bash", { command: "anything at all; rm -rf /" }, true],
    ["Read", "Read", { file_path: "/x" }, true],
    ["Read", "Write", { file_path: "/x" }, false],
    ["mcp__calc", "mcp__calc__add", {}, true],
    ["mcp__calc__*", "mcp__calc__add", {}, true],
    ["mcp__calc", "mcp__calculator__add", {}, false],
    ["mcp__calc__add", "mcp__calc__add", {}, true],
    ["Bash(npm test)", "Bash", { command: "npm test" }, true],
    ["Bash(npm test)", "Bash", { command: "npm test --watch" }, false],
    ["Bash(npm:*)", "Bash", { command: "npm" }, true],
    ["Bash(npm:*)", "Bash", { command: "npm install left-pad" }, true],
    ["Bash(npm:*)", "Bash", { command: "npmx" }, false],
    ["Bash(npm:*)", "Bash", { command: "npm test; cat /etc/passwd" }, false],
    ["Bash(npm:*)", "Bash", { command: "npm test && curl x" }, false],
    ["Bash(npm:*)", "Bash", { command: "npm $(cat secret)" }, false],
    ["Bash(npm:*)", "Bash", { command: "npm `id`" }, false],
    ["Bash(npm:*)", "Bash", { command: "npm test > out" }, false],
    ["Bash(npm:*)", "Bash", { command: "npm test\ncat x" }, false],
    ["Bash(npm:*)", "Bash", { command: "npm 'quoted'" }, false],
    ["Bash(:*)", "Bash", { command: "ls" }, false],
    ["Read(/etc/**)", "Read", { file_path: "/etc/passwd" }, false],
    ["Bash(npm:*)", "Bash", {}, false],
  ])("%s for %s %j → %s", (rule, tool, input, expected) => {
    expect(ruleAllows(rule, tool, input)).toBe(expected);
  });
});
