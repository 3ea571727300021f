/**
 * The public types of `@anthropic-ai/claude-agent-sdk` 0.3.330 that this compat entry point
 * supports, under the official names. Wire messages are typed by their common fields and stay
 * open (`[key: string]: unknown`) for the many optional fields the CLI adds.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { SessionStore, SessionStoreFlush } from "../../backends/claude/sessions/store-types.js";
import type { ClaudeSettings, ToolConfig as CoreToolConfig, SystemPromptConfig } from "../../options.js";
import type {
  SpawnedProcess as CoreSpawnedProcess,
  SpawnOptions as CoreSpawnOptions,
} from "../../transport/spawned-process.js";

export type {
  ForkSessionOptions,
  ForkSessionResult,
  GetSessionMessagesOptions,
  ListSessionsOptions,
  /** A stored session's summary (official name of `SessionInfo`). */
  SessionInfo as SDKSessionInfo,
  /** Where a session helper looks (official name of `SessionLocationOptions`). */
  SessionLocationOptions as SessionMutationOptions,
  SessionLocationOptions as GetSessionInfoOptions,
  SessionLocationOptions as ListSubagentsOptions,
  SessionLocationOptions as GetSubagentMessagesOptions,
} from "../../backends/claude/sessions/index.js";

/**
 * A stored message as `getSessionMessages` / `getSubagentMessages` return it (the official field
 * names). The CLI-written flags appear only on the entries that have them.
 */
export type SessionMessage = {
  type: "user" | "assistant" | "system";
  uuid: string;
  session_id: string;
  /** The API message as stored (`{ role, content, … }`). */
  message: unknown;
  parent_tool_use_id: string | null;
  /** For a nested subagent: the agent id of the subagent that started it; else `null`. */
  parent_agent_id: string | null;
  timestamp?: string;
  isCompactSummary?: true;
  is_meta?: true;
  isCompletedLocalCommand?: true;
};

/** A UUID string. */
export type UUID = `${string}-${string}-${string}-${string}-${string}`;

/** Claude Code permission modes. */
export type PermissionMode = "default" | "acceptEdits" | "bypassPermissions" | "plan" | "dontAsk" | "auto";

/** Which on-disk settings the CLI loads. */
export type SettingSource = "user" | "project" | "local";

/** Reasoning effort. */
export type EffortLevel = "low" | "medium" | "high" | "xhigh" | "max";

/** A permission rule. */
export type PermissionRuleValue = { toolName: string; ruleContent?: string };
/** Allow, deny or ask. */
export type PermissionBehavior = "allow" | "deny" | "ask";
/** Where a permission update is stored. */
export type PermissionUpdateDestination =
  | "userSettings"
  | "projectSettings"
  | "localSettings"
  | "session"
  | "cliArg";
/** A change to the permission state. */
export type PermissionUpdate =
  | {
      type: "addRules" | "replaceRules" | "removeRules";
      rules: PermissionRuleValue[];
      behavior: PermissionBehavior;
      destination: PermissionUpdateDestination;
    }
  | { type: "setMode"; mode: PermissionMode; destination: PermissionUpdateDestination }
  | {
      type: "addDirectories" | "removeDirectories";
      directories: string[];
      destination: PermissionUpdateDestination;
    };

/** What a `canUseTool` callback returns. */
export type PermissionResult =
  | {
      behavior: "allow";
      updatedInput?: Record<string, unknown>;
      updatedPermissions?: PermissionUpdate[];
      toolUseID?: string;
    }
  | { behavior: "deny"; message: string; interrupt?: boolean; toolUseID?: string };

/** The official `canUseTool` signature. */
export type CanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  options: {
    signal: AbortSignal;
    suggestions?: PermissionUpdate[];
    blockedPath?: string;
    mcpServer?: { name: string; source: string };
    decisionReason?: string;
    title?: string;
    displayName?: string;
    description?: string;
    defaultToNo?: boolean;
    suppressAlwaysAllowRule?: boolean;
    toolUseID: string;
    agentID?: string;
    /** The id of the CLI's permission request. */
    requestId: string;
    matchedAskRule?: { source: string; toolName: string; ruleContent?: string };
  },
) => Promise<PermissionResult>;

/** Every hook event. */
export type HookEvent =
  | "PreToolUse"
  | "PostToolUse"
  | "PostToolUseFailure"
  | "PostToolBatch"
  | "Notification"
  | "UserPromptSubmit"
  | "UserPromptExpansion"
  | "SessionStart"
  | "SessionEnd"
  | "Stop"
  | "StopFailure"
  | "SubagentStart"
  | "SubagentStop"
  | "PreCompact"
  | "PostCompact"
  | "PreModelSwitch"
  | "PostModelSwitch"
  | "PermissionRequest"
  | "PermissionDenied"
  | "Setup"
  | "TeammateIdle"
  | "TaskCreated"
  | "TaskCompleted"
  | "Elicitation"
  | "ElicitationResult"
  | "ConfigChange"
  | "WorktreeCreate"
  | "WorktreeRemove"
  | "InstructionsLoaded"
  | "CwdChanged"
  | "FileChanged"
  | "DirectoryAdded"
  | "MessageDisplay";

/** Fields every hook input carries. */
export type BaseHookInput = {
  session_id: string;
  transcript_path: string;
  cwd: string;
  permission_mode?: string;
  agent_id?: string;
  agent_type?: string;
};
/** Input of a `PreToolUse` hook. */
export type PreToolUseHookInput = BaseHookInput & {
  hook_event_name: "PreToolUse";
  tool_name: string;
  tool_input: unknown;
  tool_use_id: string;
};
/** Input of a `PostToolUse` hook. */
export type PostToolUseHookInput = BaseHookInput & {
  hook_event_name: "PostToolUse";
  tool_name: string;
  tool_input: unknown;
  tool_response: unknown;
  tool_use_id: string;
};
/** Input of any other hook event (its fields as the CLI sends them). */
export type OtherHookInput = BaseHookInput & {
  hook_event_name: Exclude<HookEvent, "PreToolUse" | "PostToolUse">;
  [key: string]: unknown;
};
/** The input of a hook callback. */
export type HookInput = PreToolUseHookInput | PostToolUseHookInput | OtherHookInput;

/** Hook work continues in the background. */
export type AsyncHookJSONOutput = { async: true; asyncTimeout?: number };
/** A hook's decision. */
export type SyncHookJSONOutput = {
  continue?: boolean;
  suppressOutput?: boolean;
  stopReason?: string;
  decision?: "approve" | "block";
  systemMessage?: string;
  reason?: string;
  hookSpecificOutput?:
    | {
        hookEventName: "PreToolUse";
        permissionDecision?: "allow" | "deny" | "ask" | "defer";
        permissionDecisionReason?: string;
        updatedInput?: Record<string, unknown>;
        additionalContext?: string;
      }
    | { hookEventName: "PostToolUse"; additionalContext?: string; updatedMCPToolOutput?: unknown }
    | { hookEventName: "UserPromptSubmit"; additionalContext?: string }
    | { hookEventName: "SessionStart"; additionalContext?: string };
};
/** What a hook callback returns. */
export type HookJSONOutput = AsyncHookJSONOutput | SyncHookJSONOutput;
/** The official hook callback signature. */
export type HookCallback = (
  input: HookInput,
  toolUseID: string | undefined,
  options: { signal: AbortSignal },
) => Promise<HookJSONOutput>;
/** Which calls of an event a group of hooks applies to. */
export interface HookCallbackMatcher {
  matcher?: string;
  hooks: HookCallback[];
  timeout?: number;
  onFailure?: "continue" | "block";
}

/** An MCP server the CLI starts. */
export type McpStdioServerConfig = {
  type?: "stdio";
  command: string;
  args?: string[];
  env?: Record<string, string>;
};
/** A remote MCP server over SSE. */
export type McpSSEServerConfig = { type: "sse"; url: string; headers?: Record<string, string> };
/** A remote MCP server over streamable HTTP. */
export type McpHttpServerConfig = { type: "http"; url: string; headers?: Record<string, string> };
/** An in-process MCP server, without its instance. */
export type McpSdkServerConfig = { type: "sdk"; name: string };
/** An in-process MCP server made by `createSdkMcpServer()`. */
export type McpSdkServerConfigWithInstance = McpSdkServerConfig & { instance: McpServer };
/** Any MCP server configuration. */
export type McpServerConfig =
  | McpStdioServerConfig
  | McpSSEServerConfig
  | McpHttpServerConfig
  | McpSdkServerConfigWithInstance;

/** A zod object shape (zod 4). */
export type AnyZodRawShape = Record<string, z.ZodType>;
/** The arguments a tool handler receives. */
export type InferShape<T extends AnyZodRawShape> = { [K in keyof T]: z.infer<T[K]> } & {};
/** MCP tool annotations. */
export type ToolAnnotations = {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
};
/** A tool made by `tool()`. */
export type SdkMcpToolDefinition<Schema extends AnyZodRawShape = AnyZodRawShape> = {
  name: string;
  description: string;
  inputSchema: Schema;
  annotations?: ToolAnnotations;
  _meta?: Record<string, unknown>;
  handler: (args: InferShape<Schema>, extra: unknown) => Promise<CallToolResult>;
};

/** A subagent defined in code. */
export type AgentDefinition = {
  description: string;
  tools?: string[];
  disallowedTools?: string[];
  prompt: string;
  model?: string;
  [key: string]: unknown;
};

/** What `setMcpServers()` changed. */
export type McpSetServersResult = { added: string[]; removed: string[]; errors: Record<string, string> };

/** A local plugin; `skipMcpDiscovery` loads it without its MCP servers. */
export type SdkPluginConfig = { type: "local"; path: string; skipMcpDiscovery?: boolean };

/** Per-tool configuration of built-in tools. */
export type ToolConfig = CoreToolConfig;
/** Claude Code settings (as in a settings file). */
export type Settings = ClaudeSettings;
/** How `spawnClaudeCodeProcess` is asked to start the CLI. */
export type SpawnOptions = CoreSpawnOptions;
/** What `spawnClaudeCodeProcess` returns (a `ChildProcess` is one). */
export type SpawnedProcess = CoreSpawnedProcess;

/** An MCP elicitation the CLI forwards. */
export type ElicitationRequest = {
  serverName: string;
  message: string;
  mode?: "form" | "url";
  url?: string;
  elicitationId?: string;
  requestedSchema?: Record<string, unknown>;
  title?: string;
  displayName?: string;
  description?: string;
};
/** The answer to an elicitation (MCP `ElicitResult`). */
export type ElicitationResult = {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, string | number | boolean | string[]>;
  [key: string]: unknown;
};
/** Answers MCP elicitations; `null` lets the CLI apply its default. */
export type OnElicitation = (
  request: ElicitationRequest,
  options: { signal: AbortSignal; requestId: string },
) => Promise<ElicitationResult | null>;
/** A blocking dialog the CLI asks the host to render. */
export type UserDialogRequest = { dialogKind: string; payload: Record<string, unknown>; toolUseID?: string };
/** The answer to a dialog. */
export type UserDialogResult = { behavior: "completed"; result: unknown } | { behavior: "cancelled" };
/** Renders the dialogs of `supportedDialogKinds`. */
export type OnUserDialog = (
  request: UserDialogRequest,
  options: { signal: AbortSignal; requestId: string },
) => Promise<UserDialogResult | null>;

/** Structured output. */
export type JsonSchemaOutputFormat = { type: "json_schema"; schema: Record<string, unknown> };
/** Structured output formats. */
export type OutputFormat = JsonSchemaOutputFormat;

/** Thinking behaviour. */
export type ThinkingConfig =
  | { type: "adaptive"; display?: "summarized" | "omitted" }
  | { type: "enabled"; budgetTokens?: number; display?: "summarized" | "omitted" }
  | { type: "disabled" };

/** Sandbox settings (merged into the CLI's settings). */
export type SandboxSettings = { enabled?: boolean; [key: string]: unknown };

/** The options of `query()` this entry point honours; see the README for the ones it rejects. */
export type Options = {
  abortController?: AbortController;
  additionalDirectories?: string[];
  agent?: string;
  agents?: Record<string, AgentDefinition>;
  allowedTools?: string[];
  canUseTool?: CanUseTool;
  continue?: boolean;
  cwd?: string;
  disallowedTools?: string[];
  tools?: string[] | { type: "preset"; preset: "claude_code" };
  env?: { [envVar: string]: string | undefined };
  executable?: "bun" | "deno" | "node";
  executableArgs?: string[];
  extraArgs?: Record<string, string | null>;
  fallbackModel?: string;
  enableFileCheckpointing?: boolean;
  forkSession?: boolean;
  betas?: string[];
  hooks?: Partial<Record<HookEvent, HookCallbackMatcher[]>>;
  persistSession?: boolean;
  includeHookEvents?: boolean;
  includePartialMessages?: boolean;
  thinking?: ThinkingConfig;
  effort?: EffortLevel;
  maxThinkingTokens?: number;
  maxTurns?: number;
  maxBudgetUsd?: number;
  mcpServers?: Record<string, McpServerConfig>;
  model?: string;
  outputFormat?: OutputFormat;
  pathToClaudeCodeExecutable?: string;
  permissionMode?: PermissionMode;
  allowDangerouslySkipPermissions?: boolean;
  permissionPromptToolName?: string;
  plugins?: SdkPluginConfig[];
  resume?: string;
  sessionId?: string;
  resumeSessionAt?: string;
  sandbox?: SandboxSettings;
  settings?: string | Record<string, unknown>;
  settingSources?: SettingSource[];
  debug?: boolean;
  debugFile?: string;
  stderr?: (data: string) => void;
  strictMcpConfig?: boolean;
  systemPrompt?: SystemPromptConfig;
  onElicitation?: OnElicitation;
  onUserDialog?: OnUserDialog;
  supportedDialogKinds?: string[];
  toolConfig?: ToolConfig;
  toolAliases?: Record<string, string>;
  planModeInstructions?: string;
  promptSuggestions?: boolean;
  agentProgressSummaries?: boolean;
  forwardSubagentText?: boolean;
  perTaskStopAffordance?: boolean;
  title?: string;
  skills?: string[] | "all";
  managedSettings?: Settings;
  mcpServersDelivery?: "argv" | "initialize";
  pluginDelivery?: "argv" | "initialize";
  verbatimPrompts?: boolean;
  loadTimeoutMs?: number;
  sessionStore?: SessionStore;
  sessionStoreFlush?: SessionStoreFlush;
  taskBudget?: { total: number };
  resumeDropsTurn?: string;
  permissionPrompts?: "host" | "none";
  projectConfigRoot?: string;
  spawnClaudeCodeProcess?: (options: SpawnOptions) => SpawnedProcess;
};

/** Token usage as the API reports it. */
export type NonNullableUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  [key: string]: unknown;
};

/** A content block of an API message. */
export type ContentBlock =
  | { type: "text"; text: string; [key: string]: unknown }
  | { type: "thinking"; thinking: string; signature: string; [key: string]: unknown }
  | { type: "tool_use"; id: string; name: string; input: unknown; [key: string]: unknown }
  | {
      type: "tool_result";
      tool_use_id: string;
      content?: unknown;
      is_error?: boolean;
      [key: string]: unknown;
    }
  | { type: "redacted_thinking"; data: string; [key: string]: unknown }
  | { type: "image"; source: unknown; [key: string]: unknown }
  | {
      type: "server_tool_use" | "web_search_tool_result" | "mcp_tool_use" | "mcp_tool_result";
      [key: string]: unknown;
    };

/** The API message inside an assistant message. */
export type BetaMessage = {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: ContentBlock[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: NonNullableUsage;
  [key: string]: unknown;
};

/** A user message as sent to the API. */
export type MessageParam = { role: "user" | "assistant"; content: string | ContentBlock[] };

/** An assistant turn. */
export type SDKAssistantMessage = {
  type: "assistant";
  message: BetaMessage;
  parent_tool_use_id: string | null;
  error?: string;
  uuid: UUID;
  session_id: string;
  [key: string]: unknown;
};
/** A user turn (prompt or tool results). */
export type SDKUserMessage = {
  type: "user";
  message: MessageParam;
  parent_tool_use_id: string | null;
  isSynthetic?: boolean;
  tool_use_result?: unknown;
  priority?: "now" | "next" | "later";
  uuid?: UUID;
  session_id?: string;
  [key: string]: unknown;
};
/** A replayed user turn. */
export type SDKUserMessageReplay = {
  type: "user";
  message: MessageParam;
  parent_tool_use_id: string | null;
  isSynthetic?: boolean;
  tool_use_result?: unknown;
  uuid: UUID;
  session_id: string;
  isReplay: true;
  [key: string]: unknown;
};
/** A permission the CLI denied during the turn. */
export type SDKPermissionDenial = {
  tool_name: string;
  tool_use_id: string;
  tool_input: Record<string, unknown>;
};
/** The fields every `result` message shares, success or error (the official SDK keeps this type internal). */
export type ResultBase = {
  type: "result";
  duration_ms: number;
  duration_api_ms: number;
  is_error: boolean;
  num_turns: number;
  stop_reason: string | null;
  total_cost_usd: number;
  usage: NonNullableUsage;
  modelUsage: Record<string, unknown>;
  permission_denials: SDKPermissionDenial[];
  uuid: UUID;
  session_id: string;
  [key: string]: unknown;
};
/** A successful turn's result. */
export type SDKResultSuccess = ResultBase & {
  subtype: "success";
  result: string;
  structured_output?: unknown;
};
/** A failed turn's result. */
export type SDKResultError = ResultBase & {
  subtype:
    | "error_during_execution"
    | "error_max_turns"
    | "error_max_budget_usd"
    | "error_max_structured_output_retries";
  errors: string[];
};
/** The result of a turn. */
export type SDKResultMessage = SDKResultSuccess | SDKResultError;
/** The session's first message. */
export type SDKSystemMessage = {
  type: "system";
  subtype: "init";
  apiKeySource: string;
  claude_code_version: string;
  cwd: string;
  tools: string[];
  mcp_servers: { name: string; status: string }[];
  model: string;
  permissionMode: PermissionMode;
  slash_commands: string[];
  output_style: string;
  skills: string[];
  plugins: { name: string; path: string }[];
  uuid: UUID;
  session_id: string;
  [key: string]: unknown;
};
/** A streaming event (`includePartialMessages`). */
export type SDKPartialAssistantMessage = {
  type: "stream_event";
  event: { type: string; [key: string]: unknown };
  parent_tool_use_id: string | null;
  uuid: UUID;
  session_id: string;
  [key: string]: unknown;
};
/** The subtypes of the other `system` messages of 0.3.330 (status, hooks, tasks, compaction, …). */
export type SDKOtherSystemSubtype =
  | "api_retry"
  | "background_tasks_changed"
  | "commands_changed"
  | "compact_boundary"
  | "control_request_progress"
  | "elicitation_complete"
  | "files_persisted"
  | "hook_progress"
  | "hook_response"
  | "hook_started"
  | "informational"
  | "local_command_output"
  | "memory_recall"
  | "mirror_error"
  | "model_refusal_fallback"
  | "model_refusal_no_fallback"
  | "notification"
  | "permission_denied"
  | "plugin_install"
  | "session_state_changed"
  | "session_writes_lost"
  | "status"
  | "task_notification"
  | "task_progress"
  | "task_started"
  | "task_updated"
  | "thinking_tokens"
  | "worker_shutting_down";
/** Any other system message, as the CLI sends it. */
export type SDKOtherSystemMessage = {
  type: "system";
  subtype: SDKOtherSystemSubtype;
  uuid: UUID;
  session_id: string;
  [key: string]: unknown;
};
/** Another wire message, as the CLI sends it. */
export type SDKOtherMessage = {
  type:
    | "rate_limit_event"
    | "tool_progress"
    | "auth_status"
    | "tool_use_summary"
    | "prompt_suggestion"
    | "conversation_reset";
  uuid: UUID;
  session_id: string;
  [key: string]: unknown;
};
/** Every message `query()` yields. */
export type SDKMessage =
  | SDKAssistantMessage
  | SDKUserMessage
  | SDKUserMessageReplay
  | SDKResultMessage
  | SDKSystemMessage
  | SDKPartialAssistantMessage
  | SDKOtherSystemMessage
  | SDKOtherMessage;

/** A slash command. */
export type SlashCommand = {
  name: string;
  description: string;
  argumentHint: string;
  [key: string]: unknown;
};
/** A model the account can use. */
export type ModelInfo = { value: string; displayName: string; description: string; [key: string]: unknown };
/** A subagent. */
export type AgentInfo = { name: string; description: string; model?: string; [key: string]: unknown };
/** The logged-in account. */
export type AccountInfo = {
  email?: string;
  organization?: string;
  subscriptionType?: string;
  tokenSource?: string;
  apiKeySource?: string;
  [key: string]: unknown;
};
/** An MCP server's state. */
export type McpServerStatus = {
  name: string;
  status: "connected" | "failed" | "needs-auth" | "pending" | "disabled";
  [key: string]: unknown;
};
/** The CLI's answer to `initialize`. */
export type SDKControlInitializeResponse = {
  commands: SlashCommand[];
  agents: AgentInfo[];
  output_style: string;
  available_output_styles: string[];
  models: ModelInfo[];
  account: AccountInfo;
  [key: string]: unknown;
};
/** What `interrupt()` resolves with when prompts were still queued. */
export type SDKControlInterruptResponse = { still_queued: string[]; cancelled?: string[] };
/** What `rewindFiles()` resolves with. */
export type RewindFilesResult = {
  canRewind: boolean;
  error?: string;
  filesChanged?: string[];
  insertions?: number;
  deletions?: number;
};

/** The CLI's answer to a control request whose shape this entry point does not type in detail. */
export type SDKControlResponsePayload = { [key: string]: unknown };

/**
 * A Claude Code process started by `startup()` and through its handshake, waiting for its prompt.
 * `query()` runs once on it; `close()` (or `await using`) ends it if it was never used.
 */
export interface WarmQuery extends AsyncDisposable {
  /** Writes the prompt to the ready process and returns the running query. Usable once. */
  query(prompt: string | AsyncIterable<SDKUserMessage>): Query;
  /** Ends the process without a prompt (nothing once a query has taken it). */
  close(): void;
}

/** What `SpareProcess.claim()` binds a spare to (the official `ClaimOptions`). */
export type ClaimOptions = {
  /** The session's working directory (required); relative paths resolve against this process. */
  cwd: string;
  /** Per-session environment additions the CLI accepts at claim time; any other key refuses the claim. */
  env?: Record<string, string>;
  /** As `--add-dir`; relative entries resolve against `cwd`. */
  additionalDirectories?: string[];
  model?: string;
  /** Part of the claim itself: a mode the process cannot take refuses the claim. */
  permissionMode?: PermissionMode;
  maxThinkingTokens?: number | null;
  /** A flag-settings overlay at claim time: not supported by this entry point (`UnsupportedOptionsError`). */
  settings?: Record<string, unknown>;
  appendSystemPrompt?: string;
  title?: string;
  /** Agents defined at claim time: not supported by this entry point (`UnsupportedOptionsError`). */
  agents?: Record<string, AgentDefinition>;
};

/** What a spare's claim resolved to. */
export type ClaimResult = {
  cwd: string;
  sessionId: string;
  parkedMs?: number;
  sdkMcpSettled: boolean;
};

/**
 * A parked Claude Code process started by `prewarm()`, not yet any session: `claim()` binds it to a
 * session and sends the first message; `close()` discards it. Single use.
 */
export interface SpareProcess extends AsyncDisposable {
  /**
   * Binds the spare to a session in `options.cwd` and sends `prompt`; returns the running query.
   * Throws when called a second time, when the spare was closed or has exited.
   */
  claim(params: { prompt: string | AsyncIterable<SDKUserMessage>; options: ClaimOptions }): Query;
  /**
   * Settles once the CLI has answered the claim (and the `model` / `maxThinkingTokens` sent with
   * it); rejects with the CLI's reason (`cwd_not_found: …`, `spare_closed: …`, `spare_exited: …`,
   * `option_not_applied: …` — after that last one the prompt runs; after the others it did not).
   */
  readonly claimed: Promise<ClaimResult>;
  /** Settles when the spare's process exits, claimed or not. */
  readonly exited: Promise<void>;
  /** Ends the process: before a claim it discards the spare (and rejects `claimed`); after one it closes the query. */
  close(): void;
}

/** A running query: iterate it for messages; control it with its methods. */
export interface Query extends AsyncGenerator<SDKMessage, void> {
  interrupt(): Promise<SDKControlInterruptResponse | undefined>;
  setPermissionMode(mode: PermissionMode): Promise<void>;
  setModel(model?: string): Promise<void>;
  setMaxThinkingTokens(
    maxThinkingTokens: number | null,
    thinkingDisplay?: "summarized" | "omitted" | "highlights" | null,
  ): Promise<void>;
  initializationResult(): Promise<SDKControlInitializeResponse>;
  supportedCommands(): Promise<SlashCommand[]>;
  supportedModels(): Promise<ModelInfo[]>;
  supportedAgents(): Promise<AgentInfo[]>;
  mcpServerStatus(): Promise<McpServerStatus[]>;
  accountInfo(): Promise<AccountInfo>;
  rewindFiles(userMessageId: string, options?: { dryRun?: boolean }): Promise<RewindFilesResult>;
  reconnectMcpServer(serverName: string): Promise<void>;
  toggleMcpServer(serverName: string, enabled: boolean): Promise<void>;
  stopTask(taskId: string): Promise<void>;
  getContextUsage(opts?: { detail?: "summary" | "full" }): Promise<SDKControlResponsePayload>;
  backgroundTasks(toolUseId?: string): Promise<boolean>;
  readMcpResource(serverName: string, uri: string): Promise<SDKControlResponsePayload>;
  applyFlagSettings(settings: Record<string, unknown>): Promise<void>;
  updateSettings(source: "localSettings" | "userSettings", settings: Record<string, unknown>): Promise<void>;
  reloadPlugins(options?: {
    holdOnCacheImpact?: boolean;
    addPlugins?: SdkPluginConfig[];
    refuseIfBusy?: boolean;
  }): Promise<SDKControlResponsePayload>;
  reloadSkills(): Promise<SDKControlResponsePayload>;
  reloadOutputStyles(): Promise<SDKControlResponsePayload>;
  setMcpPermissionModeOverride(
    serverName: string,
    mode: "default" | "auto" | null,
  ): Promise<{ warning?: string }>;
  seedReadState(path: string, mtime: number): Promise<void>;
  /** Sends the same `initialize` request again. */
  reinitialize(): Promise<SDKControlInitializeResponse>;
  usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET(opts?: {
    skipBehaviors?: boolean;
  }): Promise<SDKControlResponsePayload>;
  /** Reads a file through the CLI (`null` when it does not exist). */
  readFile(
    path: string,
    options?: { maxBytes?: number; encoding?: "utf-8" | "base64" },
  ): Promise<SDKControlResponsePayload | null>;
  /** Replaces the session's MCP servers (in-process ones included). */
  setMcpServers(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult>;
  /** Sends more user messages on this session. */
  streamInput(stream: AsyncIterable<SDKUserMessage>): Promise<void>;
  /** Terminates the CLI's process group; iteration ends. */
  close(): void;
}
