/**
 * Answers to control requests and the other control-protocol types `@anthropic-ai/claude-agent-sdk`
 * 0.3.330 exports (context and usage reports, permission rules, files, reloads, raw control
 * messages, the `Transport` interface), with the wire field names. Deep report fields this entry
 * point never reads stay open.
 */
import type { McpResourceContents, ReadFileResult } from "../../backends/claude/control-results.js";
import type { AgentInfo, McpServerStatus, SlashCommand } from "./base-types.js";

/** Token use and cost of one model in a session. */
export type ModelUsage = {
  inputTokens: number;
  outputTokens: number;
  thinkingTokens?: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  cacheCreationEphemeral5mInputTokens?: number;
  cacheCreationEphemeral1hInputTokens?: number;
  webSearchRequests: number;
  costUSD: number;
  contextWindow: number;
  maxOutputTokens: number;
  canonicalModel?: string;
  provider?: string;
  costBasis?: "list" | "managed" | "unknown";
};

/** A category of the context window. */
export type SDKContextUsageCategory = {
  name: string;
  tokens: number;
  kind: "used" | "free" | "buffer" | "deferred";
};
/** How the context window is used. */
export type SDKContextUsage = {
  model: string;
  total_tokens: number;
  raw_max_tokens: number;
  percentage: number;
  over_limit?: { tokens_over: number; kind: "hard_limit" | "compaction_window" };
  categories: SDKContextUsageCategory[];
  mcp_tools: { name: string; server_name: string; tokens: number }[];
  memory_files: { path: string; type: string; tokens: number }[];
  agents: { agent_type: string; source: string; tokens: number }[];
  skills?: { name: string; source: string; plugin_name?: string; tokens: number }[];
};
/** What `getContextUsage()` resolves with. */
export type SDKControlGetContextUsageResponse = {
  categories: {
    id?: string;
    name: string;
    tokens: number;
    color: string;
    isDeferred?: boolean;
    kind: "used" | "free" | "buffer" | "deferred";
  }[];
  totalTokens: number;
  maxTokens: number;
  rawMaxTokens: number;
  percentage: number;
  gridRows: {
    color: string;
    isFilled: boolean;
    categoryName: string;
    tokens: number;
    percentage: number;
    squareFullness: number;
  }[][];
  model: string;
  memoryFiles: { path: string; type: string; tokens: number }[];
  mcpTools: { name: string; serverName: string; tokens: number; isLoaded?: boolean }[];
  mcpInstructions?: { serverName: string; tokens: number }[];
  deferredBuiltinTools?: { name: string; tokens: number; isLoaded: boolean }[];
  systemTools?: { name: string; tokens: number }[];
  systemPromptSections?: { name: string; tokens: number }[];
  agents: { agentType: string; source: string; pluginId?: string; path?: string; tokens: number }[];
  slashCommands?: { totalCommands: number; includedCommands: number; tokens: number };
  skills?: {
    totalSkills: number;
    includedSkills: number;
    tokens: number;
    skillFrontmatter: {
      name: string;
      source: string;
      pluginName?: string;
      pluginId?: string;
      path?: string;
      tokens: number;
    }[];
  };
  autoCompactThreshold?: number;
  isAutoCompactEnabled: boolean;
  messageBreakdown?: { [key: string]: unknown };
  apiUsage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
  } | null;
};

/** A usage window's state. */
type UsageWindow = { utilization: number | null; resets_at: string | null } | null;
/** Extra-usage (credits) state. */
type ExtraUsage = {
  is_enabled: boolean;
  monthly_limit: number | null;
  used_credits: number | null;
  utilization: number | null;
  currency?: string | null;
} | null;
/** The session's totals. */
type SessionUsage = {
  total_cost_usd: number;
  total_api_duration_ms: number;
  total_duration_ms: number;
  total_lines_added: number;
  total_lines_removed: number;
  model_usage: Record<string, ModelUsage>;
};
/** Usage behaviours over a period. */
type UsageBehaviourPeriod = {
  request_count: number;
  session_count: number;
  behaviors: { key: string; pct: number; count: number }[];
  recommendations?: { key: string; pct: number; title: string; detail?: string }[];
  fix?: { keys: string[]; messages: string[] };
  agents: { name: string; pct: number }[];
  skills: { name: string; pct: number }[];
  plugins: { name: string; pct: number }[];
  mcp_servers: { name: string; pct: number }[];
};
/** What the experimental usage request resolves with. */
export type SDKControlGetUsageResponse = {
  session: SessionUsage;
  subscription_type: string | null;
  rate_limits_available: boolean;
  rate_limits: {
    five_hour?: UsageWindow;
    seven_day?: UsageWindow;
    seven_day_oauth_apps?: UsageWindow;
    seven_day_opus?: UsageWindow;
    seven_day_sonnet?: UsageWindow;
    model_scoped?: { display_name: string; utilization: number | null; resets_at: string | null }[];
    extra_usage?: ExtraUsage;
  } | null;
  behaviors: { day: UsageBehaviourPeriod; week: UsageBehaviourPeriod } | null;
};
/** A usage report. */
export type SDKUsageReport = {
  session: SessionUsage;
  rate_limits: {
    limits:
      | {
          kind: string;
          group: string;
          percent: number;
          resets_at: string | null;
          scope?: {
            model?: { display_name: string } | null;
            surface?: { display_name: string } | null;
          } | null;
          severity: string;
          is_active: boolean;
        }[]
      | null;
    extra_usage?: ExtraUsage;
  } | null;
};

/** A settings file that did not parse. */
export type SDKSettingsParseError = { file?: string; path: string; message: string };
/** How a permission rule is shown. */
export type SDKPermissionRuleDescription = { prefix: string; emphasis?: string; suffix?: string };
/** One permission rule in force. */
export type SDKPermissionRuleEntry = {
  behavior: "allow" | "deny" | "ask";
  source:
    | "userSettings"
    | "projectSettings"
    | "localSettings"
    | "flagSettings"
    | "policySettings"
    | "cliArg"
    | "command"
    | "session"
    | "mcpMount"
    | "toolsNarrowing"
    | "mcpServerPolicy"
    | "hostCredential";
  rule: string;
  description?: SDKPermissionRuleDescription;
  editability: "persistent" | "session" | "readonly";
  notInEffect?: boolean;
};
/** A directory the session may work in. */
export type SDKPermissionWorkspaceDirectory = { path: string; source: string };
/** The permission rules in force. */
export type SDKControlPermissionRulesState = {
  rules: SDKPermissionRuleEntry[];
  workspaceDirectories: SDKPermissionWorkspaceDirectory[];
  originalCwd: string;
  managedOnly: boolean;
  errors?: SDKSettingsParseError[];
  withheld?: boolean;
};
/** The answer to a permission-rules listing. */
export type SDKControlListPermissionRulesResponse = { state: SDKControlPermissionRulesState };
/** What `readMcpResource()` resolves with. */
export type SDKControlMcpReadResourceResponse = McpResourceContents;
/** What `readFile()` resolves with. */
export type SDKControlReadFileResponse = ReadFileResult;
/** What `reloadOutputStyles()` resolves with. */
export type SDKControlReloadOutputStylesResponse = { available_output_styles: string[] };
/** What `reloadPlugins()` resolves with. */
export type SDKControlReloadPluginsResponse = {
  commands: SlashCommand[];
  agents: AgentInfo[];
  plugins: { name: string; path: string; source?: string; version?: string }[];
  mcpServers: McpServerStatus[];
  error_count: number;
  held?: boolean;
  cache_impact?: {
    mcp_servers_added: string[];
    mcp_servers_removed: string[];
    lsp_tool_change: "adds" | "may-add" | "removes" | "may-remove" | null;
  };
};
/** What `reloadSkills()` resolves with. */
export type SDKControlReloadSkillsResponse = { skills: SlashCommand[] };

/** A control request on the wire. */
export type SDKControlRequest = {
  type: "control_request";
  request_id: string;
  request: { subtype: string; [key: string]: unknown };
};
/** A control response on the wire. */
export type SDKControlResponse = {
  type: "control_response";
  response:
    | { subtype: "success"; request_id: string; response?: Record<string, unknown> }
    | { subtype: "error"; request_id: string; error: string; [key: string]: unknown };
};

/**
 * The official SDK's process transport interface (for a custom transport). This entry point
 * always drives the CLI through its own transport; the type is exported for code that names it.
 */
export interface Transport {
  write(data: string): void | Promise<void>;
  close(): void;
  isReady(): boolean;
  readMessages(): AsyncGenerator<{ type: string; [key: string]: unknown }, void, unknown>;
  expectControlResponse?(requestId: string): void;
  markDelivered?(message: object): void;
  endInput(): void;
  waitForExit?(): Promise<void>;
  [Symbol.dispose]?(): void;
}
