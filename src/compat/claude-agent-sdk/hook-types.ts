/**
 * Hook inputs and hook-specific outputs of `@anthropic-ai/claude-agent-sdk` 0.3.330, one per hook
 * event, with the wire field names Claude Code sends and reads.
 */

import type {
  HookEventName,
  HookInputByEvent,
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

/** Drops an index signature: the official types name their fields only. */
type Known<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };
/**
 * The input of a hook whose fields the backend types as the official SDK does (`HookInputByEvent`),
 * without the backend's openness to fields a later CLI adds. test/compat/type-shapes.test.ts
 * checks each against the official type.
 */
type HookInputOf<E extends HookEventName> = BaseHookInput &
  Omit<Known<HookInputByEvent[E]>, keyof BaseHookInput>;

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
export type NotificationHookInput = HookInputOf<"Notification">;
/** Input of a `UserPromptSubmit` hook. */
export type UserPromptSubmitHookInput = HookInputOf<"UserPromptSubmit">;
/** Input of a `UserPromptExpansion` hook. */
export type UserPromptExpansionHookInput = HookInputOf<"UserPromptExpansion">;
/** Input of a `SessionStart` hook. */
export type SessionStartHookInput = HookInputOf<"SessionStart">;
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
export type PreCompactHookInput = HookInputOf<"PreCompact">;
/** Input of a `PostCompact` hook. */
export type PostCompactHookInput = HookInputOf<"PostCompact">;
/** Input of a `PreModelSwitch` hook. */
export type PreModelSwitchHookInput = HookInputOf<"PreModelSwitch">;
/** Input of a `PostModelSwitch` hook. */
export type PostModelSwitchHookInput = HookInputOf<"PostModelSwitch">;
/** Input of a `PermissionRequest` hook. */
export type PermissionRequestHookInput = BaseHookInput & {
  hook_event_name: "PermissionRequest";
  tool_name: string;
  tool_input: unknown;
  permission_suggestions?: PermissionUpdate[];
  mcp_server?: McpServerProvenance;
};
/** Input of a `Setup` hook. */
export type SetupHookInput = HookInputOf<"Setup">;
/** Input of a `TeammateIdle` hook. */
export type TeammateIdleHookInput = HookInputOf<"TeammateIdle">;
/** Input of a `TaskCreated` hook. */
export type TaskCreatedHookInput = HookInputOf<"TaskCreated">;
/** Input of a `TaskCompleted` hook. */
export type TaskCompletedHookInput = HookInputOf<"TaskCompleted">;
/** Input of an `Elicitation` hook. */
export type ElicitationHookInput = HookInputOf<"Elicitation">;
/** Input of an `ElicitationResult` hook. */
export type ElicitationResultHookInput = HookInputOf<"ElicitationResult">;
/** Input of a `ConfigChange` hook. */
export type ConfigChangeHookInput = HookInputOf<"ConfigChange">;
/** Input of an `InstructionsLoaded` hook. */
export type InstructionsLoadedHookInput = HookInputOf<"InstructionsLoaded">;
/** Input of a `WorktreeCreate` hook. */
export type WorktreeCreateHookInput = HookInputOf<"WorktreeCreate">;
/** Input of a `WorktreeRemove` hook. */
export type WorktreeRemoveHookInput = HookInputOf<"WorktreeRemove">;
/** Input of a `CwdChanged` hook. */
export type CwdChangedHookInput = HookInputOf<"CwdChanged">;
/** Input of a `FileChanged` hook. */
export type FileChangedHookInput = HookInputOf<"FileChanged">;
/** Input of a `DirectoryAdded` hook. */
export type DirectoryAddedHookInput = HookInputOf<"DirectoryAdded">;
/** Input of a `MessageDisplay` hook. */
export type MessageDisplayHookInput = HookInputOf<"MessageDisplay">;

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
