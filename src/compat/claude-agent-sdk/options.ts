/**
 * The official `Options` mapped onto this SDK's `AgentOptions`. Options the engine cannot honour are
 * rejected by name (never dropped), before any process is spawned.
 */

import type { HookCallback as CoreHookCallback, HookMap } from "../../backends/claude/hooks.js";
import { CLAUDE_REJECTED_OPTIONS, OFFICIAL_CLAUDE_OPTIONS } from "../../backends/claude/official-options.js";
import { UnsupportedOptionsError } from "../../errors.js";
import type { McpServerConfig as CoreMcpServerConfig } from "../../mcp/config.js";
import type {
  ClaudeAgentOptions,
  OnElicitation as CoreOnElicitation,
  OnUserDialog as CoreOnUserDialog,
} from "../../options.js";
import type {
  CanUseTool as CoreCanUseTool,
  PermissionResult as CorePermissionResult,
} from "../../permissions.js";
import type {
  CanUseTool,
  HookCallbackMatcher,
  McpServerConfig,
  OnElicitation,
  OnUserDialog,
  Options,
  PermissionUpdate,
} from "./types.js";

/**
 * Official options this SDK's engine refuses, and why (the core's own list, `CLAUDE_REJECTED_OPTIONS`).
 * An option listed here makes `query()` fail before anything is spawned.
 */
export const REJECTED_OPTIONS: Readonly<Record<string, string>> = CLAUDE_REJECTED_OPTIONS;

/** Official option names (all of 0.3.330's); anything else is rejected as unknown. */
const KNOWN = new Set<string>(Object.keys(OFFICIAL_CLAUDE_OPTIONS));

/** Official options {@link toAgentOptions} maps itself: their meaning or shape differs here. */
const MAPPED = new Set([
  "canUseTool",
  "cwd",
  "env",
  "hooks",
  "maxTurns",
  "mcpServers",
  "onElicitation",
  "onUserDialog",
  "stderr",
]);

/**
 * Official options with the same name and meaning in `AgentOptions` (`ours` is the official name
 * in the core's table), copied unchanged.
 */
const SAME = Object.entries(OFFICIAL_CLAUDE_OPTIONS)
  .filter(([key, entry]) => "ours" in entry && entry.ours === key && !MAPPED.has(key))
  .map(([key]) => key as keyof Options & keyof ClaudeAgentOptions);

/** Official hook-matcher fields (0.3.330's `HookCallbackMatcher`). */
const HOOK_MATCHER_FIELDS = ["matcher", "hooks", "timeout", "onFailure"];
/** Official plugin fields (0.3.330's `SdkPluginConfig`). */
const PLUGIN_FIELDS = ["type", "path", "skipMcpDiscovery"];

/**
 * Maps official options onto `AgentOptions`. Throws `UnsupportedOptionsError` naming every option
 * it cannot honour, with the reason.
 */
export function toAgentOptions(options: Options = {}): ClaudeAgentOptions {
  const issues: string[] = [];
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if (key in REJECTED_OPTIONS) issues.push(`${key}: ${REJECTED_OPTIONS[key]}`);
    else if (!KNOWN.has(key)) issues.push(`${key}: not an option of @anthropic-ai/claude-agent-sdk 0.3.330`);
  }
  for (const [event, matchers] of Object.entries(options.hooks ?? {})) {
    for (const matcher of matchers ?? []) {
      const extra = Object.keys(matcher).filter((k) => !HOOK_MATCHER_FIELDS.includes(k));
      if (extra.length > 0) issues.push(`hooks.${event}: ${extra.join(", ")} not an option of 0.3.330`);
    }
  }
  for (const plugin of options.plugins ?? []) {
    const extra = Object.keys(plugin).filter((k) => !PLUGIN_FIELDS.includes(k));
    if (plugin.type !== "local") issues.push(`plugins: type "${String(plugin.type)}" is not supported`);
    if (extra.length > 0) issues.push(`plugins: ${extra.join(", ")} not an option of 0.3.330`);
  }
  if (options.fallbackModel !== undefined && options.fallbackModel === options.model) {
    issues.push("fallbackModel: cannot be the same as the main model");
  }
  if (issues.length > 0) throw new UnsupportedOptionsError("claude", issues);

  const out: ClaudeAgentOptions = { backend: "claude" };
  const copy = <K extends keyof ClaudeAgentOptions>(key: K, value: ClaudeAgentOptions[K] | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  for (const key of SAME) copy(key, options[key] as ClaudeAgentOptions[typeof key]);
  copy("signal", options.abortController?.signal);
  copy("addDirs", options.additionalDirectories);
  copy("continueConversation", options.continue);
  copy("cwd", options.cwd);
  // Official semantics: `env` is the whole environment of the CLI, not a layer over process.env;
  // either way the CLI never gets the host's NODE_OPTIONS, nor DEBUG unless DEBUG_CLAUDE_AGENT_SDK is set.
  const source = options.env ?? process.env;
  out.env = {
    ...(options.env !== undefined ? options.env : {}),
    NODE_OPTIONS: undefined,
    ...(source.DEBUG_CLAUDE_AGENT_SDK ? { DEBUG: "1" } : { DEBUG: undefined }),
  };
  if (options.env !== undefined) out.inheritEnv = false;
  copy("hooks", options.hooks === undefined ? undefined : mapHooks(options.hooks));
  // The official SDK passes --max-turns only for a non-zero value.
  copy("maxTurns", options.maxTurns ? options.maxTurns : undefined);
  copy("mcpServers", options.mcpServers === undefined ? undefined : mapMcpServers(options.mcpServers));
  copy("cliPath", options.pathToClaudeCodeExecutable);
  copy("canUseTool", options.canUseTool === undefined ? undefined : mapCanUseTool(options.canUseTool));
  // Official semantics: the callback decides only the calls the CLI itself asks about.
  if (options.canUseTool !== undefined) out.canUseToolScope = "asked-calls";
  // The official SDK sends no get_usage before a resumed session's first turn (raw costs are the CLI's).
  if (options.resume !== undefined || options.continue) out.resumedCostBaseline = false;
  copy(
    "onElicitation",
    options.onElicitation === undefined ? undefined : mapOnElicitation(options.onElicitation),
  );
  copy(
    "onUserDialog",
    options.onUserDialog === undefined ? undefined : mapOnUserDialog(options.onUserDialog),
  );
  if (options.stderr) {
    const sink = options.stderr;
    // The official callback receives stderr chunks; this engine delivers whole lines.
    out.stderr = (line) => sink(`${line}\n`);
  }
  return out;
}

/** The code of the process warning {@link warnShadowedCanUseTool} emits (the official SDK's). */
export const CAN_USE_TOOL_SHADOWED_WARNING = "CLAUDE_SDK_CAN_USE_TOOL_SHADOWED";

/**
 * Warns, as the official SDK does each time a process is started, when `canUseTool` is given but
 * will not be asked about some calls: every call under `permissionMode: "bypassPermissions"`, or the
 * tools named bare (no rule in parentheses) in `allowedTools`, which the CLI approves first.
 */
export function warnShadowedCanUseTool(options: Options | undefined): void {
  if (options?.canUseTool === undefined) return;
  const message = shadowedCanUseTool(options.permissionMode ?? "default", options.allowedTools ?? []);
  if (message !== undefined) process.emitWarning(message, { code: CAN_USE_TOOL_SHADOWED_WARNING });
}

function shadowedCanUseTool(mode: string, allowedTools: readonly string[]): string | undefined {
  if (mode === "bypassPermissions") {
    return "canUseTool will not be invoked: permissionMode 'bypassPermissions' auto-approves every tool call (except explicit deny rules) before the callback is consulted. To gate every tool call, use a PreToolUse hook instead.";
  }
  const bare = allowedTools.filter((tool) => tool.length > 0 && !tool.includes("("));
  if (bare.length === 0) return undefined;
  return `canUseTool will not be invoked for: ${bare.join(", ")}. Bare allowedTools entries auto-approve the whole tool before the callback is consulted. To gate every tool call, use a PreToolUse hook; or remove the bare names from allowedTools so they fall through to canUseTool. Allow rules from settings files can also shadow the callback but are not visible here.`;
}

/** The official callback gets the request without this SDK's `raw` field. */
function mapOnElicitation(callback: OnElicitation): CoreOnElicitation {
  return ({ raw: _raw, ...request }, context) => callback(request, context);
}

/** The official callback names the tool use `toolUseID`. */
function mapOnUserDialog(callback: OnUserDialog): CoreOnUserDialog {
  return ({ dialogKind, payload, toolUseId }, context) =>
    callback({ dialogKind, payload, ...(toolUseId !== undefined ? { toolUseID: toolUseId } : {}) }, context);
}

function mapHooks(hooks: NonNullable<Options["hooks"]>): HookMap {
  const out: HookMap = {};
  for (const [event, matchers] of Object.entries(hooks) as [string, HookCallbackMatcher[] | undefined][]) {
    if (!matchers) continue;
    out[event] = matchers.map((m) => ({
      ...(m.matcher !== undefined ? { matcher: m.matcher } : {}),
      ...(m.timeout !== undefined ? { timeout: m.timeout } : {}),
      ...(m.onFailure !== undefined ? { onFailure: m.onFailure } : {}),
      // Same arguments, same return shape: the official hook input is the CLI's object as sent.
      hooks: m.hooks as unknown as CoreHookCallback[],
    }));
  }
  return out;
}

/** Official MCP server configs as this SDK's (in-process servers by their instance). */
export function mapMcpServers(servers: Record<string, McpServerConfig>): Record<string, CoreMcpServerConfig> {
  const out: Record<string, CoreMcpServerConfig> = {};
  for (const [name, config] of Object.entries(servers)) {
    out[name] =
      config.type === "sdk"
        ? {
            type: "sdk",
            name: config.name,
            instance: config.instance,
            ...(config.timeout !== undefined ? { timeout: config.timeout } : {}),
          }
        : (config as CoreMcpServerConfig);
  }
  return out;
}

/** The official callback gets the CLI's request fields under its own names. */
function mapCanUseTool(callback: CanUseTool): CoreCanUseTool {
  return async (toolName, input, context): Promise<CorePermissionResult> => {
    const raw = context.raw;
    const str = (key: string) => (typeof raw[key] === "string" ? (raw[key] as string) : undefined);
    const bool = (key: string) => (typeof raw[key] === "boolean" ? (raw[key] as boolean) : undefined);
    const folder = raw.computer_folder as { path?: unknown; computer_name?: unknown } | undefined;
    const askRule = raw.matched_ask_rule as
      | { source: string; tool_name: string; rule_content?: string }
      | undefined;
    // The fields the official SDK hands over, under its names; conditional ones only when present.
    const result = await callback(toolName, input, {
      signal: context.signal,
      suggestions: raw.permission_suggestions as PermissionUpdate[] | undefined,
      blockedPath: str("blocked_path") as string,
      ...(context.mcpServer
        ? { mcpServer: { name: context.mcpServer.name, source: context.mcpServer.source as string } }
        : {}),
      decisionReason: str("decision_reason") as string,
      ...(str("decision_reason_type") !== undefined
        ? { decisionReasonType: str("decision_reason_type") }
        : {}),
      ...(str("decision_reason_code") !== undefined
        ? { decisionReasonCode: str("decision_reason_code") }
        : {}),
      ...(bool("server_policy_ask_only") !== undefined
        ? { serverPolicyAskOnly: bool("server_policy_ask_only") }
        : {}),
      title: str("title") as string,
      displayName: str("display_name") as string,
      description: str("description") as string,
      defaultToNo: raw.default_to_no as boolean,
      suppressAlwaysAllowRule: raw.suppress_always_allow_rule as boolean,
      toolUseID: str("tool_use_id") as string,
      agentID: str("agent_id") as string,
      ...(str("plugin") !== undefined ? { plugin: str("plugin") } : {}),
      requestId: context.requestId as string,
      ...(bool("requires_user_interaction") !== undefined
        ? { requiresUserInteraction: bool("requires_user_interaction") }
        : {}),
      ...(str("server_prompt") !== undefined ? { serverPrompt: str("server_prompt") } : {}),
      ...(folder && typeof folder.path === "string" && typeof folder.computer_name === "string"
        ? { computerFolder: { path: folder.path, computer_name: folder.computer_name } }
        : {}),
      ...(askRule
        ? {
            matchedAskRule: {
              source: askRule.source,
              toolName: askRule.tool_name,
              ...(askRule.rule_content !== undefined ? { ruleContent: askRule.rule_content } : {}),
            },
          }
        : {}),
    } as Parameters<CanUseTool>[2]);
    if (result.behavior === "allow") {
      return {
        behavior: "allow",
        ...(result.updatedInput !== undefined ? { updatedInput: result.updatedInput } : {}),
        ...(result.updatedPermissions !== undefined ? { updatedPermissions: result.updatedPermissions } : {}),
      };
    }
    return {
      behavior: "deny",
      message: result.message,
      ...(result.interrupt !== undefined ? { interrupt: result.interrupt } : {}),
    };
  };
}
