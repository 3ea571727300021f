/**
 * The official `Options` mapped onto this SDK's `AgentOptions`. Options the engine cannot honour are
 * rejected by name (never dropped), before any process is spawned.
 */
import { UnsupportedOptionsError } from "../../errors.js";
import type { HookCallback as CoreHookCallback, HookMap } from "../../hooks.js";
import type { McpServerConfig as CoreMcpServerConfig } from "../../mcp/config.js";
import type { AgentOptions, ThinkingConfig as CoreThinking, SystemPromptConfig } from "../../options.js";
import type {
  CanUseTool as CoreCanUseTool,
  PermissionResult as CorePermissionResult,
} from "../../permissions.js";
import type { CanUseTool, HookCallbackMatcher, McpServerConfig, Options, PermissionUpdate } from "./types.js";

/**
 * Official options with no equivalent in this SDK's engine yet, and why each is refused. An option
 * listed here makes `query()` fail before anything is spawned.
 */
export const REJECTED_OPTIONS: Readonly<Record<string, string>> = {
  executable: "the CLI is spawned directly as a native binary; there is no JavaScript runtime to choose",
  executableArgs: "the CLI is spawned directly as a native binary; there are no runtime arguments",
  spawnClaudeCodeProcess: "use code-agent-sdk's `transport` option instead (core API)",
  sessionStore: "session stores are not implemented",
  sessionStoreFlush: "session stores are not implemented",
  onElicitation: "elicitation callbacks are not implemented",
  onUserDialog: "user dialog callbacks are not implemented",
  supportedDialogKinds: "user dialog callbacks are not implemented",
  toolConfig: "sent in the initialize request, which this engine does not let callers extend",
  toolAliases: "sent in the initialize request, which this engine does not let callers extend",
  planModeInstructions: "sent in the initialize request, which this engine does not let callers extend",
  promptSuggestions: "sent in the initialize request, which this engine does not let callers extend",
  agentProgressSummaries: "sent in the initialize request, which this engine does not let callers extend",
  forwardSubagentText: "sent in the initialize request, which this engine does not let callers extend",
  perTaskStopAffordance: "sent in the initialize request, which this engine does not let callers extend",
  title: "sent in the initialize request, which this engine does not let callers extend",
  skills: "sent in the initialize request, which this engine does not let callers extend",
  managedSettings: "managed settings need the CLI's --managed-settings plumbing, not implemented",
  mcpServersDelivery: "MCP servers always reach the CLI in argv (--mcp-config)",
  pluginDelivery: "plugins always reach the CLI in argv (--plugin-dir)",
  verbatimPrompts: "not implemented",
  loadTimeoutMs: "use code-agent-sdk's controlTimeoutMs (core API)",
  taskBudget: "not implemented",
  resumeDropsTurn: "not implemented",
  permissionPrompts: "not implemented",
  projectConfigRoot: "not implemented",
};

/** Official option names this module maps; anything else is rejected as unknown. */
const KNOWN = new Set<string>([
  "abortController",
  "additionalDirectories",
  "agent",
  "agents",
  "allowedTools",
  "canUseTool",
  "continue",
  "cwd",
  "disallowedTools",
  "tools",
  "env",
  "extraArgs",
  "fallbackModel",
  "enableFileCheckpointing",
  "forkSession",
  "betas",
  "hooks",
  "persistSession",
  "includeHookEvents",
  "includePartialMessages",
  "thinking",
  "effort",
  "maxThinkingTokens",
  "maxTurns",
  "maxBudgetUsd",
  "mcpServers",
  "model",
  "outputFormat",
  "pathToClaudeCodeExecutable",
  "permissionMode",
  "allowDangerouslySkipPermissions",
  "permissionPromptToolName",
  "plugins",
  "resume",
  "sessionId",
  "resumeSessionAt",
  "sandbox",
  "settings",
  "settingSources",
  "debug",
  "debugFile",
  "stderr",
  "strictMcpConfig",
  "systemPrompt",
]);

/** What the CLI loads when the official SDK passes no `--setting-sources`: every source. */
const CLI_DEFAULT_SETTING_SOURCES = ["user", "project", "local"] as const;

/**
 * Maps official options onto `AgentOptions`. Throws `UnsupportedOptionsError` naming every option
 * it cannot honour, with the reason.
 */
export function toAgentOptions(options: Options = {}): AgentOptions {
  const issues: string[] = [];
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if (key in REJECTED_OPTIONS) issues.push(`${key}: ${REJECTED_OPTIONS[key]}`);
    else if (!KNOWN.has(key)) issues.push(`${key}: not an option of @anthropic-ai/claude-agent-sdk 0.3.330`);
  }
  const extraArgs: Record<string, string | null> = {};
  const flag = (name: string, value: string | null) => {
    extraArgs[name] = value;
  };
  if (options.agent !== undefined) flag("agent", options.agent);
  if (options.sessionId !== undefined) flag("session-id", options.sessionId);
  if (options.persistSession === false) flag("no-session-persistence", null);
  if (options.includeHookEvents) flag("include-hook-events", null);
  if (options.strictMcpConfig) flag("strict-mcp-config", null);
  if (options.debugFile !== undefined) flag("debug-file", options.debugFile);
  else if (options.debug) flag("debug", null);
  for (const [event, matchers] of Object.entries(options.hooks ?? {})) {
    for (const matcher of matchers ?? []) {
      const extra = Object.keys(matcher).filter((k) => !["matcher", "hooks", "timeout"].includes(k));
      if (extra.length > 0) issues.push(`hooks.${event}: ${extra.join(", ")} not implemented`);
    }
  }
  for (const plugin of options.plugins ?? []) {
    const extra = Object.keys(plugin).filter((k) => !["type", "path"].includes(k));
    if (plugin.type !== "local") issues.push(`plugins: type "${String(plugin.type)}" is not supported`);
    if (extra.length > 0) issues.push(`plugins: ${extra.join(", ")} not implemented`);
  }
  const thinking = mapThinking(options, issues);
  const systemPrompt = mapSystemPrompt(options, issues);
  if (options.fallbackModel !== undefined && options.fallbackModel === options.model) {
    issues.push("fallbackModel: cannot be the same as the main model");
  }
  if (issues.length > 0) throw new UnsupportedOptionsError("claude", issues);

  const out: AgentOptions = {
    backend: "claude",
    // Official default: every setting source (it passes no --setting-sources).
    settingSources: [...(options.settingSources ?? CLI_DEFAULT_SETTING_SOURCES)],
    extraArgs: { ...extraArgs, ...options.extraArgs },
  };
  const copy = <K extends keyof AgentOptions>(key: K, value: AgentOptions[K] | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  copy("signal", options.abortController?.signal);
  copy("addDirs", options.additionalDirectories);
  copy("agents", options.agents as AgentOptions["agents"]);
  copy("allowedTools", options.allowedTools);
  copy("disallowedTools", options.disallowedTools);
  copy("tools", options.tools);
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
  copy("fallbackModel", options.fallbackModel);
  copy("enableFileCheckpointing", options.enableFileCheckpointing);
  copy("forkSession", options.forkSession);
  copy("betas", options.betas);
  copy("hooks", options.hooks === undefined ? undefined : mapHooks(options.hooks));
  copy("includePartialMessages", options.includePartialMessages);
  copy("thinking", thinking);
  copy("effort", options.effort);
  copy("maxThinkingTokens", options.maxThinkingTokens);
  // The official SDK passes --max-turns only for a non-zero value.
  copy("maxTurns", options.maxTurns ? options.maxTurns : undefined);
  copy("maxBudgetUsd", options.maxBudgetUsd);
  copy("mcpServers", options.mcpServers === undefined ? undefined : mapMcpServers(options.mcpServers));
  copy("model", options.model);
  copy("outputFormat", options.outputFormat);
  copy("cliPath", options.pathToClaudeCodeExecutable);
  copy("permissionMode", options.permissionMode);
  copy("allowDangerouslySkipPermissions", options.allowDangerouslySkipPermissions);
  copy("permissionPromptToolName", options.permissionPromptToolName);
  copy("canUseTool", options.canUseTool === undefined ? undefined : mapCanUseTool(options.canUseTool));
  copy("plugins", options.plugins);
  copy("resume", options.resume);
  copy("resumeSessionAt", options.resumeSessionAt);
  copy("sandbox", options.sandbox as AgentOptions["sandbox"]);
  copy("settings", options.settings);
  copy("systemPrompt", systemPrompt);
  if (options.stderr) {
    const sink = options.stderr;
    // The official callback receives stderr chunks; this engine delivers whole lines.
    out.stderr = (line) => sink(`${line}\n`);
  }
  return out;
}

function mapThinking(options: Options, issues: string[]): CoreThinking | undefined {
  const thinking = options.thinking;
  if (thinking === undefined) return undefined;
  if (thinking.type !== "disabled" && thinking.display !== undefined) {
    issues.push("thinking.display: --thinking-display is not implemented");
  }
  if (thinking.type === "enabled" && thinking.budgetTokens !== undefined) {
    return { type: "enabled", budgetTokens: thinking.budgetTokens };
  }
  // The official SDK sends `enabled` without a budget as adaptive thinking.
  return thinking.type === "disabled" ? { type: "disabled" } : { type: "adaptive" };
}

function mapSystemPrompt(options: Options, issues: string[]): SystemPromptConfig | undefined {
  const sp = options.systemPrompt as unknown;
  if (sp === undefined || typeof sp === "string") return sp;
  if (Array.isArray(sp)) {
    issues.push("systemPrompt: the string[] form is sent in the initialize request; pass one string");
    return undefined;
  }
  const preset = sp as { type?: string; preset?: string; append?: string; [key: string]: unknown };
  if (preset.type !== "preset") {
    issues.push(
      `systemPrompt: the "${String(preset.type)}" form is not implemented; use a string or the preset`,
    );
    return undefined;
  }
  const extra = Object.keys(preset).filter((k) => !["type", "preset", "append"].includes(k));
  if (extra.length > 0) issues.push(`systemPrompt: ${extra.join(", ")} not implemented`);
  return {
    type: "preset",
    preset: "claude_code",
    ...(preset.append !== undefined ? { append: preset.append } : {}),
  };
}

function mapHooks(hooks: NonNullable<Options["hooks"]>): HookMap {
  const out: HookMap = {};
  for (const [event, matchers] of Object.entries(hooks) as [string, HookCallbackMatcher[] | undefined][]) {
    if (!matchers) continue;
    out[event] = matchers.map((m) => ({
      ...(m.matcher !== undefined ? { matcher: m.matcher } : {}),
      ...(m.timeout !== undefined ? { timeout: m.timeout } : {}),
      // Same arguments, same return shape: the official hook input is the CLI's object as sent.
      hooks: m.hooks as unknown as CoreHookCallback[],
    }));
  }
  return out;
}

function mapMcpServers(servers: Record<string, McpServerConfig>): Record<string, CoreMcpServerConfig> {
  const out: Record<string, CoreMcpServerConfig> = {};
  for (const [name, config] of Object.entries(servers)) {
    out[name] =
      config.type === "sdk"
        ? { type: "sdk", name: config.name, instance: config.instance }
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
