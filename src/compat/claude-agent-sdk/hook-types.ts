/**
 * Hook inputs and hook-specific outputs of `@anthropic-ai/claude-agent-sdk` 0.3.330, one per hook
 * event, with the wire field names Claude Code sends and reads.
 */

import type {
  HookEventName,
  MessageDisplayHookSpecificOutput,
  PermissionDeniedHookSpecificOutput,
  PostToolUseHookSpecificOutput,
  PreModelSwitchHookSpecificOutput,
  PreToolUseHookSpecificOutput,
  SessionStartHookSpecificOutput,
  UserPromptExpansionHookSpecificOutput,
  UserPromptSubmitHookSpecificOutput,
  WorktreeCreateHookSpecificOutput,
} from "../../backends/claude/hook-events.js";
import type { AsyncHookJSONOutput } from "../../backends/claude/hooks.js";
import type { PermissionUpdate } from "./base-types.js";
import type { EXIT_REASONS } from "./constants.js";

/** Every hook event (the Claude backend's hook event names). */
export type HookEvent = HookEventName;

/** Why a session ended. */
export type ExitReason = (typeof EXIT_REASONS)[number];

/** The error kinds of an assistant message (also `StopFailure`'s `error`). */
export type SDKAssistantMessageError =
  | "authentication_failed"
  | "oauth_org_not_allowed"
  | "account_on_hold"
  | "verification_required"
  | "billing_error"
  | "rate_limit"
  | "overloaded"
  | "invalid_request"
  | "model_not_found"
  | "server_error"
  | "unknown"
  | "max_output_tokens"
  | "cloud_credential_error";

/** Fields every hook input carries. */
export type BaseHookInput = {
  session_id: string;
  transcript_path: string;
  cwd: string;
  prompt_id?: string;
  permission_mode?: string;
  agent_id?: string;
  agent_type?: string;
  effort?: { level: string };
};

/** Which MCP server a tool belongs to. */
export type McpServerProvenance = { name: string; source: string };
/** A background task running when the agent stops. */
export type BackgroundTaskSummary = {
  id: string;
  type: string;
  status: string;
  description: string;
  command?: string;
  agent_type?: string;
  server?: string;
  tool?: string;
  name?: string;
};
/** A scheduled prompt of the session. */
export type SessionCronSummary = { id: string; schedule: string; recurring: boolean; prompt: string };
/** One tool call of a `PostToolBatch`. */
export type PostToolBatchToolCall = {
  tool_name: string;
  tool_input: unknown;
  tool_use_id: string;
  tool_response?: unknown;
};

type ModelSwitchFields = {
  from_model: string;
  to_model: string;
  requested_model: string | null;
  context_tokens: number;
  prompt_cache_warm: boolean;
  cache_ttl: "5m" | "1h";
  estimated_cache_write_usd: number;
  pricing: "configured" | "catalog" | "default";
};

/** Input of a `PreToolUse` hook. */
export type PreToolUseHookInput = BaseHookInput & {
  hook_event_name: "PreToolUse";
  tool_name: string;
  tool_input: unknown;
  tool_use_id: string;
  mcp_server?: McpServerProvenance;
};
/** Input of a `PostToolUse` hook. */
export type PostToolUseHookInput = BaseHookInput & {
  hook_event_name: "PostToolUse";
  tool_name: string;
  tool_input: unknown;
  tool_response: unknown;
  tool_use_id: string;
  duration_ms?: number;
  mcp_server?: McpServerProvenance;
};
/** Input of a `PostToolUseFailure` hook. */
export type PostToolUseFailureHookInput = BaseHookInput & {
  hook_event_name: "PostToolUseFailure";
  tool_name: string;
  tool_input: unknown;
  tool_use_id: string;
  error: string;
  is_interrupt?: boolean;
  duration_ms?: number;
  mcp_server?: McpServerProvenance;
};
/** Input of a `PostToolBatch` hook. */
export type PostToolBatchHookInput = BaseHookInput & {
  hook_event_name: "PostToolBatch";
  tool_calls: PostToolBatchToolCall[];
};
/** Input of a `PermissionDenied` hook. */
export type PermissionDeniedHookInput = BaseHookInput & {
  hook_event_name: "PermissionDenied";
  tool_name: string;
  tool_input: unknown;
  tool_use_id: string;
  reason: string;
  mcp_server?: McpServerProvenance;
};
/** Input of a `Notification` hook. */
export type NotificationHookInput = BaseHookInput & {
  hook_event_name: "Notification";
  message: string;
  title?: string;
  notification_type: string;
};
/** Input of a `UserPromptSubmit` hook. */
export type UserPromptSubmitHookInput = BaseHookInput & {
  hook_event_name: "UserPromptSubmit";
  prompt: string;
  source?: "user" | "sdk" | "system" | "loop_wakeup" | "schedule_wakeup" | "poll_event";
  session_title?: string;
};
/** Input of a `UserPromptExpansion` hook. */
export type UserPromptExpansionHookInput = BaseHookInput & {
  hook_event_name: "UserPromptExpansion";
  expansion_type: "slash_command" | "mcp_prompt";
  command_name: string;
  command_args: string;
  command_source?: string;
  prompt: string;
};
/** Input of a `SessionStart` hook. */
export type SessionStartHookInput = BaseHookInput & {
  hook_event_name: "SessionStart";
  source: "startup" | "resume" | "clear" | "compact" | "fork";
  agent_type?: string;
  model?: string;
  session_title?: string;
  seconds_since_last_response?: number;
  context_tokens?: number;
  prompt_cache_likely_expired?: boolean;
  estimated_cache_write_usd?: number;
};
/** Input of a `SessionEnd` hook. */
export type SessionEndHookInput = BaseHookInput & { hook_event_name: "SessionEnd"; reason: ExitReason };
/** Input of a `Stop` hook. */
export type StopHookInput = BaseHookInput & {
  hook_event_name: "Stop";
  stop_hook_active: boolean;
  last_assistant_message?: string;
  background_tasks?: BackgroundTaskSummary[];
  session_crons?: SessionCronSummary[];
};
/** Input of a `StopFailure` hook. */
export type StopFailureHookInput = BaseHookInput & {
  hook_event_name: "StopFailure";
  error: SDKAssistantMessageError;
  error_details?: string;
  last_assistant_message?: string;
};
/** Input of a `SubagentStart` hook. */
export type SubagentStartHookInput = BaseHookInput & {
  hook_event_name: "SubagentStart";
  agent_id: string;
  agent_type: string;
};
/** Input of a `SubagentStop` hook. */
export type SubagentStopHookInput = BaseHookInput & {
  hook_event_name: "SubagentStop";
  stop_hook_active: boolean;
  agent_id: string;
  agent_transcript_path: string;
  agent_type: string;
  last_assistant_message?: string;
  background_tasks?: BackgroundTaskSummary[];
  session_crons?: SessionCronSummary[];
};
/** Input of a `PreCompact` hook. */
export type PreCompactHookInput = BaseHookInput & {
  hook_event_name: "PreCompact";
  trigger: "manual" | "auto";
  custom_instructions: string | null;
};
/** Input of a `PostCompact` hook. */
export type PostCompactHookInput = BaseHookInput & {
  hook_event_name: "PostCompact";
  trigger: "manual" | "auto";
  compact_summary: string;
};
/** Input of a `PreModelSwitch` hook. */
export type PreModelSwitchHookInput = BaseHookInput & {
  hook_event_name: "PreModelSwitch";
  source: "command" | "picker" | "sdk";
} & ModelSwitchFields;
/** Input of a `PostModelSwitch` hook. */
export type PostModelSwitchHookInput = BaseHookInput & {
  hook_event_name: "PostModelSwitch";
  source: "command" | "picker" | "sdk" | "auto" | "resume";
} & ModelSwitchFields;
/** Input of a `PermissionRequest` hook. */
export type PermissionRequestHookInput = BaseHookInput & {
  hook_event_name: "PermissionRequest";
  tool_name: string;
  tool_input: unknown;
  permission_suggestions?: PermissionUpdate[];
  mcp_server?: McpServerProvenance;
};
/** Input of a `Setup` hook. */
export type SetupHookInput = BaseHookInput & { hook_event_name: "Setup"; trigger: "init" | "maintenance" };
/** Input of a `TeammateIdle` hook. */
export type TeammateIdleHookInput = BaseHookInput & {
  hook_event_name: "TeammateIdle";
  teammate_name: string;
  team_name: string;
};
type TaskHookFields = {
  task_id: string;
  task_subject: string;
  task_description?: string;
  teammate_name?: string;
  team_name?: string;
};
/** Input of a `TaskCreated` hook. */
export type TaskCreatedHookInput = BaseHookInput & { hook_event_name: "TaskCreated" } & TaskHookFields;
/** Input of a `TaskCompleted` hook. */
export type TaskCompletedHookInput = BaseHookInput & { hook_event_name: "TaskCompleted" } & TaskHookFields;
/** Input of an `Elicitation` hook. */
export type ElicitationHookInput = BaseHookInput & {
  hook_event_name: "Elicitation";
  mcp_server_name: string;
  message: string;
  mode?: "form" | "url";
  url?: string;
  elicitation_id?: string;
  requested_schema?: Record<string, unknown>;
};
/** Input of an `ElicitationResult` hook. */
export type ElicitationResultHookInput = BaseHookInput & {
  hook_event_name: "ElicitationResult";
  mcp_server_name: string;
  elicitation_id?: string;
  mode?: "form" | "url";
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
};
/** Input of a `ConfigChange` hook. */
export type ConfigChangeHookInput = BaseHookInput & {
  hook_event_name: "ConfigChange";
  source: "user_settings" | "project_settings" | "local_settings" | "policy_settings" | "skills";
  file_path?: string;
};
/** Input of an `InstructionsLoaded` hook. */
export type InstructionsLoadedHookInput = BaseHookInput & {
  hook_event_name: "InstructionsLoaded";
  file_path: string;
  memory_type: "User" | "Project" | "Local" | "Managed";
  load_reason: "session_start" | "nested_traversal" | "path_glob_match" | "include" | "compact";
  globs?: string[];
  trigger_file_path?: string;
  parent_file_path?: string;
};
/** Input of a `WorktreeCreate` hook. */
export type WorktreeCreateHookInput = BaseHookInput & { hook_event_name: "WorktreeCreate"; name: string };
/** Input of a `WorktreeRemove` hook. */
export type WorktreeRemoveHookInput = BaseHookInput & {
  hook_event_name: "WorktreeRemove";
  worktree_path: string;
};
/** Input of a `CwdChanged` hook. */
export type CwdChangedHookInput = BaseHookInput & {
  hook_event_name: "CwdChanged";
  old_cwd: string;
  new_cwd: string;
};
/** Input of a `FileChanged` hook. */
export type FileChangedHookInput = BaseHookInput & {
  hook_event_name: "FileChanged";
  file_path: string;
  event: "change" | "add" | "unlink";
};
/** Input of a `DirectoryAdded` hook. */
export type DirectoryAddedHookInput = BaseHookInput & {
  hook_event_name: "DirectoryAdded";
  directory: string;
  source: "slash_command" | "register_repo_root";
};
/** Input of a `MessageDisplay` hook. */
export type MessageDisplayHookInput = BaseHookInput & {
  hook_event_name: "MessageDisplay";
  turn_id: string;
  message_id: string;
  index: number;
  final: boolean;
  delta: string;
};

/** The input of a hook callback, by `hook_event_name`. */
export type HookInput =
  | PreToolUseHookInput
  | PostToolUseHookInput
  | PostToolUseFailureHookInput
  | PostToolBatchHookInput
  | PermissionDeniedHookInput
  | NotificationHookInput
  | UserPromptSubmitHookInput
  | UserPromptExpansionHookInput
  | SessionStartHookInput
  | SessionEndHookInput
  | StopHookInput
  | StopFailureHookInput
  | SubagentStartHookInput
  | SubagentStopHookInput
  | PreCompactHookInput
  | PostCompactHookInput
  | PreModelSwitchHookInput
  | PostModelSwitchHookInput
  | PermissionRequestHookInput
  | SetupHookInput
  | TeammateIdleHookInput
  | TaskCreatedHookInput
  | TaskCompletedHookInput
  | ElicitationHookInput
  | ElicitationResultHookInput
  | ConfigChangeHookInput
  | InstructionsLoadedHookInput
  | WorktreeCreateHookInput
  | WorktreeRemoveHookInput
  | CwdChangedHookInput
  | FileChangedHookInput
  | DirectoryAddedHookInput
  | MessageDisplayHookInput;

/** Any hook input but `PreToolUse` / `PostToolUse` (kept from earlier releases of this entry point). */
export type OtherHookInput = Exclude<HookInput, PreToolUseHookInput | PostToolUseHookInput>;

/** A `PreToolUse` hook's permission decision. */
export type HookPermissionDecision = "allow" | "deny" | "ask" | "defer";

/** The same types as the core's (test/compat/type-shapes.test.ts checks them against the official ones). */
export type {
  AsyncHookJSONOutput,
  MessageDisplayHookSpecificOutput,
  PermissionDeniedHookSpecificOutput,
  PostToolUseHookSpecificOutput,
  PreModelSwitchHookSpecificOutput,
  PreToolUseHookSpecificOutput,
  SessionStartHookSpecificOutput,
  UserPromptExpansionHookSpecificOutput,
  UserPromptSubmitHookSpecificOutput,
  WorktreeCreateHookSpecificOutput,
};
/** `Setup` output. */
export type SetupHookSpecificOutput = { hookEventName: "Setup"; additionalContext?: string };
/** `PostModelSwitch` output. */
export type PostModelSwitchHookSpecificOutput = {
  hookEventName: "PostModelSwitch";
  additionalContext?: string;
};
/** `SubagentStart` output. */
export type SubagentStartHookSpecificOutput = { hookEventName: "SubagentStart"; additionalContext?: string };
/** `PostToolUseFailure` output. */
export type PostToolUseFailureHookSpecificOutput = {
  hookEventName: "PostToolUseFailure";
  additionalContext?: string;
};
/** `PostToolBatch` output. */
export type PostToolBatchHookSpecificOutput = { hookEventName: "PostToolBatch"; additionalContext?: string };
/** `Stop` output. */
export type StopHookSpecificOutput = { hookEventName: "Stop"; additionalContext?: string };
/** `SubagentStop` output. */
export type SubagentStopHookSpecificOutput = { hookEventName: "SubagentStop"; additionalContext?: string };
/** `Notification` output. */
export type NotificationHookSpecificOutput = { hookEventName: "Notification"; additionalContext?: string };
/** `PermissionRequest` output: the decision made for the request. */
export type PermissionRequestHookSpecificOutput = {
  hookEventName: "PermissionRequest";
  decision:
    | { behavior: "allow"; updatedInput?: Record<string, unknown>; updatedPermissions?: PermissionUpdate[] }
    | { behavior: "deny"; message?: string; interrupt?: boolean };
};
/** `Elicitation` output. */
export type ElicitationHookSpecificOutput = {
  hookEventName: "Elicitation";
  action?: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
};
/** `ElicitationResult` output: overrides the action or content sent to the MCP server. */
export type ElicitationResultHookSpecificOutput = {
  hookEventName: "ElicitationResult";
  action?: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
};
/** `CwdChanged` output. */
export type CwdChangedHookSpecificOutput = { hookEventName: "CwdChanged"; watchPaths?: string[] };
/** `FileChanged` output. */
export type FileChangedHookSpecificOutput = { hookEventName: "FileChanged"; watchPaths?: string[] };

/** A hook's decision. */
export type SyncHookJSONOutput = {
  continue?: boolean;
  suppressOutput?: boolean;
  stopReason?: string;
  decision?: "approve" | "block";
  systemMessage?: string;
  terminalSequence?: string;
  reason?: string;
  hookSpecificOutput?:
    | PreToolUseHookSpecificOutput
    | UserPromptSubmitHookSpecificOutput
    | UserPromptExpansionHookSpecificOutput
    | SessionStartHookSpecificOutput
    | SetupHookSpecificOutput
    | PreModelSwitchHookSpecificOutput
    | PostModelSwitchHookSpecificOutput
    | SubagentStartHookSpecificOutput
    | PostToolUseHookSpecificOutput
    | PostToolUseFailureHookSpecificOutput
    | PostToolBatchHookSpecificOutput
    | StopHookSpecificOutput
    | SubagentStopHookSpecificOutput
    | PermissionDeniedHookSpecificOutput
    | NotificationHookSpecificOutput
    | PermissionRequestHookSpecificOutput
    | ElicitationHookSpecificOutput
    | ElicitationResultHookSpecificOutput
    | CwdChangedHookSpecificOutput
    | FileChangedHookSpecificOutput
    | WorktreeCreateHookSpecificOutput
    | MessageDisplayHookSpecificOutput;
};
/** What a hook callback returns. */
export type HookJSONOutput = AsyncHookJSONOutput | SyncHookJSONOutput;
