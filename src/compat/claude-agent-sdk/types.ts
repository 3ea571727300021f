/**
 * The public types of `@anthropic-ai/claude-agent-sdk` 0.3.330 that this compat entry point
 * supports, under the official names. Wire messages are typed by their common fields and stay
 * open (`[key: string]: unknown`) for the many optional fields the CLI adds.
 */

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { ZodRawShape as ZodRawShapeV3 } from "zod/v3";
import type { InterruptResult, McpSetServersResult } from "../../backends/claude/control-results.js";
import type { SessionStore, SessionStoreFlush } from "../../backends/claude/sessions/store-types.js";
import type { McpServerToolPolicy } from "../../mcp/config.js";
import type {
  ClaudeSettings,
  OutputFormat,
  SystemPromptConfig,
  ThinkingConfig,
  ToolConfig,
  UserDialogResult,
} from "../../options.js";
import type {
  SpawnedProcess as CoreSpawnedProcess,
  SpawnOptions as CoreSpawnOptions,
} from "../../transport/spawned-process.js";
import type {
  AgentInfo,
  BetaMessage,
  BetaRawMessageStreamEvent,
  EffortLevel,
  McpServerStatus,
  MessageParam,
  ModelInfo,
  NonNullableUsage,
  PermissionMode,
  PermissionUpdate,
  SettingSource,
  SlashCommand,
  UUID,
} from "./base-types.js";
import type { ModelUsage } from "./control-types.js";
import type { HookEvent, HookInput, HookJSONOutput, SDKAssistantMessageError } from "./hook-types.js";
import type { SDKOtherWireMessage } from "./message-types.js";

export type { ImportSessionToStoreOptions } from "../../backends/claude/sessions/import.js";
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
export type {
  SessionKey,
  SessionStore,
  SessionStoreEntry,
  SessionStoreFlush,
  SessionSummaryEntry,
} from "../../backends/claude/sessions/store-types.js";
export type * from "./base-types.js";
export type * from "./control-types.js";
export type * from "./hook-types.js";
export type * from "./message-types.js";

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
export type McpSdkServerConfig = {
  type: "sdk";
  name: string;
  /** Per-server tool-call timeout in milliseconds (the CLI ignores values below 1000). */
  timeout?: number;
};
/** An in-process MCP server made by `createSdkMcpServer()`. */
export type McpSdkServerConfigWithInstance = McpSdkServerConfig & { instance: McpServer };
/** Any MCP server configuration. */
export type McpServerConfig =
  | McpStdioServerConfig
  | McpSSEServerConfig
  | McpHttpServerConfig
  | McpSdkServerConfigWithInstance;
/** The claude.ai MCP proxy (servers of the user's claude.ai account). */
export type McpClaudeAIProxyServerConfig = {
  type: "claudeai-proxy";
  url: string;
  id: string;
  timeout?: number;
};
/** An MCP server configuration as it travels to the CLI (an in-process server by name). */
export type McpServerConfigForProcessTransport =
  | McpStdioServerConfig
  | McpSSEServerConfig
  | McpHttpServerConfig
  | McpSdkServerConfig;
/** An MCP server's configuration as `mcpServerStatus()` reports it. */
export type McpServerStatusConfig = McpServerConfigForProcessTransport | McpClaudeAIProxyServerConfig;
/** The same types as the core's (test/compat/type-shapes.test.ts checks them against the official ones). */
export type {
  McpServerToolPolicy,
  McpSetServersResult,
  OutputFormat,
  ThinkingConfig,
  ToolConfig,
  UserDialogResult,
};
/** A subagent's MCP server: a configured server's name, or its own configurations. */
export type AgentMcpServerSpec = string | Record<string, McpServerConfigForProcessTransport>;

/**
 * A zod object shape: zod 4 (classic or mini) or zod 3 schemas as values, as the official SDK
 * accepts (`z.object({...}).shape` of either major).
 */
export type AnyZodRawShape = ZodRawShapeV3 | z.core.$ZodShape;
/** The arguments a tool handler receives (each schema's output type). */
export type InferShape<T extends AnyZodRawShape> = {
  [K in keyof T]: T[K] extends { _output: infer O } ? O : never;
} & {};
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

/** A local plugin; `skipMcpDiscovery` loads it without its MCP servers. */
export type SdkPluginConfig = { type: "local"; path: string; skipMcpDiscovery?: boolean };

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
/** Renders the dialogs of `supportedDialogKinds`. */
export type OnUserDialog = (
  request: UserDialogRequest,
  options: { signal: AbortSignal; requestId: string },
) => Promise<UserDialogResult | null>;

/** Structured output. */
export type JsonSchemaOutputFormat = { type: "json_schema"; schema: Record<string, unknown> };

/** Claude decides when and how much to think. */
export type ThinkingAdaptive = { type: "adaptive"; display?: "summarized" | "omitted" };
/** Thinking with a token budget. */
export type ThinkingEnabled = { type: "enabled"; budgetTokens?: number; display?: "summarized" | "omitted" };
/** No extended thinking. */
export type ThinkingDisabled = { type: "disabled" };

/** Network rules of the sandbox. */
export type SandboxNetworkConfig = {
  allowedDomains?: string[];
  deniedDomains?: string[];
  strictAllowlist?: boolean;
  allowManagedDomainsOnly?: boolean;
  allowUnixSockets?: string[];
  allowAllUnixSockets?: boolean;
  allowLocalBinding?: boolean;
  allowMachLookup?: string[];
  httpProxyPort?: number;
  socksProxyPort?: number;
  tlsTerminate?: { caCertPath?: string; caKeyPath?: string };
};
/** Filesystem rules of the sandbox. */
export type SandboxFilesystemConfig = {
  allowWrite?: string[];
  denyWrite?: string[];
  denyRead?: string[];
  allowRead?: string[];
  allowManagedReadPathsOnly?: boolean;
  disabled?: boolean;
};
type CredentialRule = {
  mode: "deny" | "mask";
  extract?: string;
  onExtractNoMatch?: "deny" | "error" | "warn";
  decode?: "jwt";
  maskClaims?: string[];
  injectHosts?: string[];
};
/** Credential files and variables the sandbox hides or masks. */
export type SandboxCredentialsConfig = {
  files?: (CredentialRule & { path: string; maskDuplicates?: boolean })[];
  envVars?: (CredentialRule & { name: string })[];
  allowPlaintextInject?: boolean;
  awsPairs?: { accessKeyIdVar: string; secretAccessKeyVar: string; sessionTokenVar?: string }[];
  sigv4?: {
    streaming?: "deny" | "passthrough";
    presigned?: "deny" | "passthrough";
    sigv4a?: "deny" | "passthrough";
  };
};
/** Sandbox violations to ignore, by command pattern. */
export type SandboxIgnoreViolations = Record<string, string[]>;
/** Sandbox settings (merged into the CLI's settings). */
export type SandboxSettings = {
  enabled?: boolean;
  failIfUnavailable?: boolean;
  autoAllowBashIfSandboxed?: boolean;
  allowUnsandboxedCommands?: boolean;
  network?: SandboxNetworkConfig;
  filesystem?: SandboxFilesystemConfig;
  credentials?: SandboxCredentialsConfig;
  ignoreViolations?: SandboxIgnoreViolations;
  enableWeakerNestedSandbox?: boolean;
  allowNestedUserNamespaces?: boolean;
  enableWeakerNetworkIsolation?: boolean;
  allowAppleEvents?: boolean;
  excludedCommands?: string[];
  ripgrep?: { command: string; args?: string[] };
  bwrapPath?: string;
  socatPath?: string;
  [key: string]: unknown;
};

/** Beta features the `betas` option can turn on. */
export type SdkBeta = "context-1m-2025-08-07";
/** Where the API key came from. */
export type ApiKeySource =
  | "ANTHROPIC_API_KEY"
  | "apiKeyHelper"
  | "/login managed key"
  | "none"
  | "user"
  | "project"
  | "org"
  | "temporary"
  | "oauth";
/** Where an MCP server configuration is stored. */
export type ConfigScope = "local" | "user" | "project";
/** Structured output format types. */
export type OutputFormatType = "json_schema";
/** Fields every output format has. */
export type BaseOutputFormat = { type: OutputFormatType };
/** How the user answered a permission prompt. */
export type PermissionDecisionClassification = "user_temporary" | "user_permanent" | "user_reject";
/** Why the agent loop ended. */
export type TerminalReason =
  | "blocking_limit"
  | "rapid_refill_breaker"
  | "prompt_too_long"
  | "image_error"
  | "model_error"
  | "api_error"
  | "malformed_tool_use_exhausted"
  | "aborted_streaming"
  | "aborted_tools"
  | "stop_hook_prevented"
  | "hook_stopped"
  | "tool_deferred"
  | "max_turns"
  | "background_requested"
  | "completed"
  | "budget_exhausted"
  | "structured_output_retry_exhausted"
  | "tool_deferred_unavailable"
  | "turn_setup_failed";
/** Fast mode: off, cooling down after a rate limit, or on. */
export type FastModeState = "off" | "cooldown" | "on";
/** Why fast mode cannot serve now. */
export type FastModeDisabledReason =
  | "free"
  | "preference"
  | "extra_usage_disabled"
  | "network_error"
  | "unknown"
  | "not_first_party"
  | "disabled_by_env"
  | "model_not_allowed"
  | "sdk_opt_in_required"
  | "pending";
/** Why the CLI could not start the session. */
export type SDKStartupFailureReason =
  | "org_pin_api_key_conflict"
  | "provider_not_allowed"
  | "org_verify_failed"
  | "org_pin_mismatch"
  | "managed_settings_invalid"
  | "remote_settings_required_unavailable"
  | "gateway_signin_required"
  | "gateway_access_denied"
  | "proxy_invalid"
  | "temp_dir_unusable"
  | "cwd_unavailable"
  | "shell_tool_missing"
  | "session_held_by_background"
  | "worktree_resume_refused"
  | "worktree_unverified"
  | "cli_version_too_old"
  | "bypass_root"
  | "org_config_required_unavailable"
  | "org_config_refused"
  | "sandbox_required_unavailable"
  | "initialize_not_first"
  | "config_file_invalid"
  | "managed_settings_not_delivered"
  | "initialize_fields_not_delivered";
/** Where a prompt came from. */
export type SDKMessageOrigin =
  | { kind: "human" }
  | { kind: "channel"; server: string }
  | {
      kind: "peer";
      from: string;
      fromMode?: "bypass" | "prompting";
      name?: string;
      fromSession?: string;
      senderTaskId?: string;
      body?: string;
      verifiedPeerPid?: number;
    }
  | {
      kind: "task-notification";
      subkind?:
        | "scheduled-trigger"
        | "peer-send-message"
        | "projects-relay"
        | "session-inbox"
        | "external-event";
      fireReason?: string;
      runId?: string;
    }
  | { kind: "coordinator" }
  | { kind: "unclassified" }
  | { kind: "observer"; from: string; senderTaskId: string }
  | { kind: "auto-continuation" }
  | { kind: "observer-activity" };
/** A tool call deferred to the host. */
export type SDKDeferredToolUse = { id: string; name: string; input: Record<string, unknown> };

/** What `matchDeniedModels()` answers. */
export type DeniedModelsMatch = {
  /** For each model asked about, in order: whether an entry blocks it. */
  denied: boolean[];
  /** Notes on ignored entries and inputs that are not model names. */
  warnings: string[];
};
/** Which policy sub-source supplied a managed value. */
export type PolicySettingsOrigin = "helper" | "remote" | "plist" | "hklm" | "file" | "parent" | "hkcu";
/** A settings tier as `resolveSettings()` names it. */
export type ResolvedSettingSource = SettingSource | "managed" | "flag";
/** Which source supplied an effective value. */
export type ProvenanceEntry = {
  source: ResolvedSettingSource;
  path?: string;
  policyOrigin?: PolicySettingsOrigin;
};
/** What `resolveSettings()` resolves with. */
export type ResolvedSettings = {
  /** The merged settings. */
  effective: Settings;
  /** For each top-level key of `effective`, the source that supplied it (the last one). */
  provenance: Partial<Record<keyof Settings, ProvenanceEntry>>;
  /** Each source read, lowest precedence first. */
  sources: Array<{
    source: ResolvedSettingSource;
    settings: Settings;
    path?: string;
    policyOrigin?: PolicySettingsOrigin;
  }>;
  /** Policy sources of this machine that did not load (`false`: none known). */
  machinePolicy?: { didNotLoad: false | Array<"profile" | "registry" | "file"> };
};
/** Options of `resolveSettings()`. */
export type ResolveSettingsOptions = {
  /** Where project and local settings are looked for (default: this process's cwd). */
  cwd?: string;
  /** Which file sources to read (default all; `[]` reads none but the policy tier). */
  settingSources?: SettingSource[];
  /** Policy-tier settings, filtered to restrictive keys (as `Options.managedSettings`). */
  managedSettings?: Settings;
  /** Server-managed settings, taken as they are (the `remote` policy sub-source). */
  serverManagedSettings?: Settings;
};

/** The options of `query()` this entry point honours; see docs/compat.md for the ones it rejects. */
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
  betas?: SdkBeta[];
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

/** Fields a message of a turn may carry that tie it to the prompt that started it. */
type TurnLink = {
  user_message_uuid?: string;
  user_message_uuids?: string[];
  resume_reason?: string;
};

/** An assistant turn. */
export type SDKAssistantMessage = {
  type: "assistant";
  message: BetaMessage;
  parent_tool_use_id: string | null;
  error?: SDKAssistantMessageError;
  uuid: UUID;
  session_id: string;
  request_id?: string;
  resumed_from_incomplete_thinking?: true;
  /** Earlier assistant messages this one replaces (their uuids). */
  supersedes?: UUID[];
  aborted?: true;
  agent_id?: string;
  subagent_type?: string;
  task_description?: string;
  [key: string]: unknown;
} & TurnLink;
/** A user turn (prompt or tool results). */
export type SDKUserMessage = {
  type: "user";
  message: MessageParam;
  parent_tool_use_id: string | null;
  isSynthetic?: boolean;
  tool_use_result?: unknown;
  priority?: "now" | "next" | "later";
  origin?: SDKMessageOrigin;
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
  origin?: SDKMessageOrigin;
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
  modelUsage: Record<string, ModelUsage>;
  permission_denials: SDKPermissionDenial[];
  /** Why the agent loop ended. */
  terminal_reason?: TerminalReason;
  fast_mode_state?: FastModeState;
  fast_mode_disabled_reason?: FastModeDisabledReason;
  origin?: SDKMessageOrigin;
  result_index?: number;
  uuid: UUID;
  session_id: string;
  [key: string]: unknown;
} & TurnLink;
/** A successful turn's result. */
export type SDKResultSuccess = ResultBase & {
  subtype: "success";
  result: string;
  structured_output?: unknown;
  /** Time to the first token, ms. */
  ttft_ms?: number;
  ttft_stream_ms?: number;
  time_to_request_ms?: number;
  api_error_status?: number | null;
  deferred_tool_use?: SDKDeferredToolUse;
};
/** A failed turn's result. */
export type SDKResultError = ResultBase & {
  subtype:
    | "error_during_execution"
    | "error_max_turns"
    | "error_max_budget_usd"
    | "error_max_structured_output_retries";
  errors: string[];
  startup_failure_reason?: SDKStartupFailureReason;
};
/** The result of a turn. */
export type SDKResultMessage = SDKResultSuccess | SDKResultError;
/** The session's first message. */
export type SDKSystemMessage = {
  type: "system";
  subtype: "init";
  apiKeySource: ApiKeySource;
  betas?: string[];
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
/** A streaming event (`includePartialMessages`): one event of the Messages API's stream. */
export type SDKPartialAssistantMessage = {
  type: "stream_event";
  event: BetaRawMessageStreamEvent;
  parent_tool_use_id: string | null;
  uuid: UUID;
  session_id: string;
  /** On the first event of a response: time to its first token, ms. */
  ttft_ms?: number;
  [key: string]: unknown;
} & TurnLink;
/** The subtypes of the other `system` messages of 0.3.330 (status, hooks, tasks, compaction, …). */
export type SDKOtherSystemSubtype = Extract<SDKOtherWireMessage, { type: "system" }>["subtype"];
/** Any other system message (kept from earlier releases of this entry point; each has its own type now). */
export type SDKOtherSystemMessage = Extract<SDKOtherWireMessage, { type: "system" }>;
/** Another wire message (kept from earlier releases of this entry point; each has its own type now). */
export type SDKOtherMessage = Exclude<SDKOtherWireMessage, { type: "system" }>;
/** Every message `query()` yields. */
export type SDKMessage =
  | SDKAssistantMessage
  | SDKUserMessage
  | SDKUserMessageReplay
  | SDKResultMessage
  | SDKSystemMessage
  | SDKPartialAssistantMessage
  | SDKOtherWireMessage;

/** The logged-in account. */
export type AccountInfo = {
  email?: string;
  organization?: string;
  subscriptionType?: string;
  tokenSource?: string;
  apiKeySource?: string;
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
export type SDKControlInterruptResponse = InterruptResult;
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
