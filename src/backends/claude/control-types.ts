/**
 * Typed answers of Claude Code 2.1.330 control requests: the `initialize` response (what
 * `serverInfo()` returns), `mcp_status` and `rewind_files`. Field names are the wire's; shapes
 * follow the official SDK 0.3.330 (`SDKControlInitializeResponse`, `McpServerStatus`,
 * `RewindFilesResult`) and the captured answers (/work/shared/protocol/claude/shapes). A field a
 * later CLI adds is still present, untyped.
 *
 * @module
 */

/** A slash command or skill the session offers. */
export interface SlashCommand {
  name: string;
  description: string;
  /** Hint for the command's arguments, e.g. `<file>`; empty when it takes none. */
  argumentHint: string;
  aliases?: string[];
  builtin?: boolean;
}

/** A subagent the session can start (`Task`/`Agent` tool). */
export interface AgentInfo {
  name: string;
  description: string;
  model?: string;
}

/** A model the session can switch to. */
export interface ModelInfo {
  /** What to pass to `setModel()` / `options.model`. */
  value: string;
  resolvedModel?: string;
  displayName: string;
  description: string;
  supportsEffort?: boolean;
  supportedEffortLevels?: ("low" | "medium" | "high" | "xhigh" | "max")[];
  supportsAdaptiveThinking?: boolean;
  supportsFastMode?: boolean;
  supportsAutoMode?: boolean;
  supportsThinkingOff?: boolean;
}

/** The credentials the session runs with (never the key itself). */
export interface AccountInfo {
  email?: string;
  organization?: string;
  subscriptionType?: string;
  tokenSource?: string;
  apiKeySource?: string;
  apiProvider?: string;
}

/** The CLI's answer to `initialize`: what `query.serverInfo()` and `client.getServerInfo()` return. */
export interface ClaudeInitializeResponse {
  commands: SlashCommand[];
  agents: AgentInfo[];
  output_style: string;
  available_output_styles: string[];
  models: ModelInfo[];
  account: AccountInfo;
  /** Process id of the CLI. */
  pid?: number;
  claude_code_version?: string;
  current_permission_mode?: string;
  capabilities?: string[];
  session_state?: "idle" | "running" | "requires_action" | (string & {});
  fast_mode_state?: string;
  fast_mode_disabled_reason?: string;
  hooks_applied?: boolean;
  hook_on_failure_supported?: boolean;
  plugins_applied?: boolean;
  mcp_servers_applied?: boolean;
  /** Whether the CLI took the initialize request's `managedSettings` (`--managed-settings-in-initialize`). */
  managed_settings_applied?: boolean;
  user_output_styles_dir?: string;
  analytics_disabled?: boolean;
  [field: string]: unknown;
}

/** One MCP server of the session (`mcp_status`). */
export interface McpServerStatus {
  name: string;
  status: "connected" | "failed" | "needs-auth" | "pending" | "disabled" | (string & {});
  serverInfo?: { name: string; version: string };
  error?: string;
  /** The server's configuration as the CLI holds it (`{ type: "stdio", command, … }`, `{ type: "sdk", name }`, …). */
  config?: Record<string, unknown>;
  scope?: string;
  source?: string;
  tools?: {
    name: string;
    description?: string;
    annotations?: { readOnly?: boolean; destructive?: boolean; openWorld?: boolean };
    _meta?: Record<string, unknown>;
  }[];
  [field: string]: unknown;
}

/** The CLI's answer to `rewind_files` (a dry run reports what a rewind would change). */
export interface RewindFilesResult {
  canRewind: boolean;
  /** Why the files cannot be rewound (e.g. `File rewinding is not enabled.`). */
  error?: string;
  filesChanged?: string[];
  insertions?: number;
  deletions?: number;
  skippedLinks?: number;
  [field: string]: unknown;
}
