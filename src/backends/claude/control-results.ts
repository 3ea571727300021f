/**
 * Results of the Claude control methods (`supportedModels()`, `getContextUsage()`, …), typed as the
 * official SDK 0.3.330 types them. Each also keeps the fields a newer CLI adds (index signature).
 */
import type { AccountInfo, AgentInfo, ModelInfo, SlashCommand } from "./control-types.js";

export type { AccountInfo, AgentInfo, ModelInfo, SlashCommand };

/** What `interrupt()` reports when the CLI had queued input (`still_queued`). */
export interface InterruptResult {
  still_queued: string[];
  cancelled?: string[];
}

/** How the context window is used (`getContextUsage()`); the CLI's own breakdown. */
export interface ContextUsage {
  categories: {
    id?: string;
    name: string;
    tokens: number;
    color: string;
    kind: string;
    isDeferred?: boolean;
  }[];
  totalTokens: number;
  maxTokens: number;
  rawMaxTokens: number;
  percentage: number;
  model: string;
  isAutoCompactEnabled: boolean;
  autoCompactThreshold?: number;
  memoryFiles: { path: string; type: string; tokens: number }[];
  mcpTools: { name: string; serverName: string; tokens: number; isLoaded?: boolean }[];
  agents: { agentType: string; source: string; tokens: number; [field: string]: unknown }[];
  apiUsage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
  } | null;
  [field: string]: unknown;
}

/** The session's cost and rate-limit state (`getUsage()`; experimental in the official SDK). */
export interface UsageReport {
  session: {
    total_cost_usd: number;
    total_api_duration_ms: number;
    total_duration_ms: number;
    total_lines_added: number;
    total_lines_removed: number;
    model_usage: Record<string, unknown>;
  };
  subscription_type: string | null;
  rate_limits_available: boolean;
  [field: string]: unknown;
}

/** A file read through the CLI (`readFile()`). */
export interface ReadFileResult {
  contents: string;
  absPath: string;
  truncated?: boolean;
  encoding?: "base64";
  lossy?: boolean;
}

/** What `reloadPlugins()` loaded. */
export interface ReloadPluginsResult {
  commands: SlashCommand[];
  agents: AgentInfo[];
  plugins: { name: string; path: string; source?: string; version?: string }[];
  mcpServers: Record<string, unknown>[];
  error_count: number;
  held?: boolean;
  [field: string]: unknown;
}

/** What `setMcpServers()` changed. */
export interface McpSetServersResult {
  added: string[];
  removed: string[];
  errors: Record<string, string>;
}

/**
 * A resource read from an MCP server (`readMcpResource()`): the server's `resources/read` result,
 * as Claude Code 2.1.330 relays it (checked end to end).
 */
export interface McpResourceContents {
  contents: {
    uri: string;
    mimeType?: string;
    /** Text contents (for a UI resource: HTML). */
    text?: string;
    /** Binary contents, base64. */
    blob?: string;
    /** The item's own `_meta` (MCP Apps: `ui.csp`, `ui.permissions`), minus keys the CLI reserves. */
    _meta?: Record<string, unknown>;
  }[];
}

/** Which settings file `updateSettings()` writes. */
export type SettingsFileSource = "localSettings" | "userSettings";
