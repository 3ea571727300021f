/**
 * One tool policy on Claude: `canUseTool` decides every tool call, not only those Claude Code would
 * ask about. Claude Code runs what it considers safe (a `Read` in the workspace, `ls`, `cat`, calls an
 * allow rule matches) without sending `can_use_tool`; an internal `PreToolUse` hook answers `"ask"`
 * for each call, so the CLI puts it to `canUseTool` through the usual `can_use_tool` request (one
 * question per call, the callback's allow, deny, `updatedInput` and `interrupt` as for any prompt).
 */

import type { ResolvedOptions } from "../../options/resolved.js";
import type { HookCallback, HookJSONOutput, HookMap } from "./hooks.js";

/**
 * Claude Code's bookkeeping tools: they change nothing outside the session (the structured answer,
 * the todo list, the lookup of deferred tools), so they never reach the policy — a deny-by-default
 * `canUseTool` would otherwise throw away the `outputFormat` answer (`StructuredOutput`).
 */
export const CLAUDE_BOOKKEEPING_TOOLS: ReadonlySet<string> = new Set([
  "StructuredOutput",
  "TodoWrite",
  "ToolSearch",
]);

/** The reason the CLI records for the hook's ask (`context.raw.decision_reason`). */
export const TOOL_POLICY_ASK_REASON = "code-agent-sdk: canUseTool decides every tool call";

/** Whether `options` ask for the every-call bridge: a `canUseTool`, and not the official scope. */
export function wantsEveryCallPolicy(options: ResolvedOptions): boolean {
  return options.canUseTool !== undefined && options.canUseToolScope !== "asked-calls";
}

/**
 * A hook that asks for every call but bookkeeping tools and calls one of `userRules` plainly allows
 * (the user's own policy, given in code); in `bypassPermissions` nobody is asked.
 */
export function toolPolicyHook(userRules: readonly string[] = []): HookCallback {
  return (input): HookJSONOutput => {
    if (input.hook_event_name !== "PreToolUse") return {};
    const record = input as unknown as Record<string, unknown>;
    const toolName = typeof record.tool_name === "string" ? record.tool_name : "";
    if (CLAUDE_BOOKKEEPING_TOOLS.has(toolName)) return {};
    if (record.permission_mode === "bypassPermissions") return {};
    const toolInput =
      typeof record.tool_input === "object" && record.tool_input !== null ? record.tool_input : {};
    if (userRules.some((rule) => ruleAllows(rule, toolName, toolInput as Record<string, unknown>))) return {};
    return {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "ask",
        permissionDecisionReason: TOOL_POLICY_ASK_REASON,
      },
    };
  };
}

/**
 * The allow rules the user gave in code: `allowedTools` and `settings.permissions.allow` when
 * `settings` is an object. Rules from settings files (a repository's among them) are not the
 * user's: calls they allow still reach the policy.
 */
export function userAllowRules(options: ResolvedOptions): string[] {
  const fromSettings = typeof options.settings === "object" ? options.settings.permissions?.allow : undefined;
  return [...(options.allowedTools ?? []), ...(Array.isArray(fromSettings) ? fromSettings : [])].filter(
    (rule): rule is string => typeof rule === "string",
  );
}

/** A plain command: words of ordinary characters, nothing a shell would read as more than one command. */
const PLAIN_COMMAND = /^[A-Za-z0-9_./=:@%+,-]+(?: [A-Za-z0-9_./=:@%+,-]+)*$/;

/**
 * Whether `rule` plainly allows this call, read conservatively: a bare tool name (`"Bash"`,
 * `"mcp__server__tool"`), an MCP server (`"mcp__server"`, `"mcp__server__*"`), or a Bash rule
 * `"Bash(cmd)"` / `"Bash(prefix:*)"` matching a plain command (no shell operators, quotes or
 * substitutions). Any other rule is not read here: the call goes to the policy (never the other way).
 */
export function ruleAllows(rule: string, toolName: string, input: Record<string, unknown>): boolean {
  if (toolName === "") return false;
  const open = rule.indexOf("(");
  if (open === -1) {
    if (rule === toolName) return true;
    const server = rule.endsWith("__*") ? rule.slice(0, -3) : rule;
    return /^mcp__[^_]/.test(server) && server.split("__").length === 2 && toolName.startsWith(`${server}__`);
  }
  if (rule.slice(0, open) !== "Bash" || toolName !== "Bash" || !rule.endsWith(")")) return false;
  const content = rule.slice(open + 1, -1);
  const command = typeof input.command === "string" ? input.command : "";
  if (!PLAIN_COMMAND.test(command)) return false;
  if (!content.endsWith(":*")) return command === content;
  const prefix = content.slice(0, -2);
  return prefix !== "" && (command === prefix || command.startsWith(`${prefix} `));
}

/**
 * The hooks to register: the user's, plus the policy hook last under `PreToolUse` when `options`
 * want it (a user's hook that denies still denies; one that allows does not skip the policy).
 */
export function hooksWithToolPolicy(options: ResolvedOptions): HookMap | undefined {
  if (!wantsEveryCallPolicy(options)) return options.hooks;
  const hooks: HookMap = { ...options.hooks };
  hooks.PreToolUse = [
    ...(options.hooks?.PreToolUse ?? []),
    { hooks: [toolPolicyHook(userAllowRules(options))] },
  ];
  return hooks;
}
