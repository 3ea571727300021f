/**
 * The `system` and other wire messages `query()` yields besides assistant / user / result / init,
 * typed by subtype as `@anthropic-ai/claude-agent-sdk` 0.3.330 types them (wire field names).
 */
import type {
  ClaudeEventBase,
  ClaudeSystemMessageData,
  ClaudeSystemSubtype,
  TaskUsage,
} from "../../backends/claude/events.js";
import type { PermissionMode, UUID } from "./base-types.js";
import type { SDKAssistantMessageError } from "./hook-types.js";

type Tagged = { uuid: UUID; session_id: string };
type System<S extends string> = { type: "system"; subtype: S } & Tagged;
/**
 * A `system` message whose payload the backend types the same way the official SDK does: its
 * fields are the backend's (`ClaudeSystemMessageData`), the tags the official SDK's.
 * test/compat/type-shapes.test.ts checks each against the official type.
 */
type Wire<S extends ClaudeSystemSubtype> = System<S> &
  Omit<ClaudeSystemMessageData[S], keyof ClaudeEventBase>;

/** The CLI is compacting or requesting; `null` when idle. */
export type SDKStatus = "compacting" | "requesting" | null;

/** Conversation compacted. */
export type SDKCompactBoundaryMessage = System<"compact_boundary"> & {
  compact_metadata: {
    trigger: "manual" | "auto";
    pre_tokens: number;
    post_tokens?: number;
    duration_ms?: number;
    preserved_segment?: { head_uuid: UUID; anchor_uuid: UUID; tail_uuid: UUID };
    preserved_messages?: { anchor_uuid: UUID; uuids: UUID[] };
  };
};
/** A status change. */
export type SDKStatusMessage = System<"status"> & {
  status: SDKStatus;
  permissionMode?: PermissionMode;
  compact_result?: "success" | "failed";
  compact_error?: string;
};
/** An API request is retried. */
export type SDKAPIRetryMessage = System<"api_retry"> & {
  attempt: number;
  max_retries: number;
  retry_delay_ms: number;
  error_status: number | null;
  error: SDKAssistantMessageError;
  no_response?: { waited_ms: number; retry_wait_ms: number };
};
/** Progress of a control request. */
export type SDKControlRequestProgressMessage = Wire<"control_request_progress">;
/** The model refused and another model answers. */
export type SDKModelRefusalFallbackMessage = Wire<"model_refusal_fallback">;
/** The model refused and no fallback is configured. */
export type SDKModelRefusalNoFallbackMessage = Wire<"model_refusal_no_fallback">;
/** Output of a local slash command. */
export type SDKLocalCommandOutputMessage = Wire<"local_command_output">;
/** A hook started (`includeHookEvents`). */
export type SDKHookStartedMessage = Wire<"hook_started">;
/** A hook's output so far. */
export type SDKHookProgressMessage = Wire<"hook_progress">;
/** A hook finished. */
export type SDKHookResponseMessage = Wire<"hook_response">;
/** A plugin installation step. */
export type SDKPluginInstallMessage = Wire<"plugin_install">;
/** A running tool's heartbeat. */
export type SDKToolProgressMessage = {
  type: "tool_progress";
  tool_use_id: string;
  tool_name: string;
  parent_tool_use_id: string | null;
  elapsed_time_seconds: number;
  task_id?: string;
  heartbeat?: boolean;
  subagent_type?: string;
  subagent_retry?: {
    agent_id: string;
    attempt: number;
    max_retries: number;
    retry_delay_ms: number;
    error_status: number | null;
    error_category: string;
  };
} & Tagged;
/** Authentication progress. */
export type SDKAuthStatusMessage = {
  type: "auth_status";
  isAuthenticating: boolean;
  output: string[];
  error?: string;
} & Tagged;
/** A link to an MCP resource a task produced. */
export type SDKMcpResourceLink = {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Record<string, unknown>;
};
/** A background task ended. */
export type SDKTaskNotificationMessage = System<"task_notification"> & {
  task_id: string;
  run_id?: string;
  tool_use_id?: string;
  status: "completed" | "failed" | "stopped";
  reason?: "worker_restart";
  output_file: string;
  summary: string;
  usage?: TaskUsage;
  resource_links?: SDKMcpResourceLink[];
  skip_transcript?: boolean;
  ambient?: boolean;
};
/** A task (subagent, background command, workflow) started. */
export type SDKTaskStartedMessage = System<"task_started"> & {
  task_id: string;
  run_id?: string;
  tool_use_id?: string;
  description: string;
  subagent_type?: string;
  is_backgrounded?: boolean;
  spawn_depth?: number;
  parent_task_id?: string;
  task_type?: string;
  workflow_name?: string;
  prompt?: string;
  skip_transcript?: boolean;
  ambient?: boolean;
};
/** A task's state changed. */
export type SDKTaskUpdatedMessage = Wire<"task_updated">;
/** A task's progress. */
export type SDKTaskProgressMessage = Wire<"task_progress">;
/** The set of background tasks changed. */
export type SDKBackgroundTasksChangedMessage = Wire<"background_tasks_changed">;
/** An estimate of the thinking tokens so far. */
export type SDKThinkingTokensMessage = Wire<"thinking_tokens">;
/** The session went idle, busy, or waits for the host. */
export type SDKSessionStateChangedMessage = Wire<"session_state_changed">;
/** The worker is shutting down. */
export type SDKWorkerShuttingDownMessage = Wire<"worker_shutting_down">;
/** The slash commands changed. */
export type SDKCommandsChangedMessage = Wire<"commands_changed">;
/** A notification for the user. */
export type SDKNotificationMessage = Wire<"notification">;
/** Files uploaded by the CLI. */
export type SDKFilesPersistedEvent = Wire<"files_persisted">;
/** A summary of tool calls. */
export type SDKToolUseSummaryMessage = {
  type: "tool_use_summary";
  summary: string;
  preceding_tool_use_ids: string[];
} & Tagged;
/** Memories recalled for the turn. */
export type SDKMemoryRecallMessage = Wire<"memory_recall">;
/** Whether the account may make requests now. */
export type SDKRateLimitInfo = {
  status: "allowed" | "allowed_warning" | "rejected";
  resetsAt?: number;
  rateLimitType?:
    | "five_hour"
    | "seven_day"
    | "seven_day_opus"
    | "seven_day_sonnet"
    | "seven_day_overage_included"
    | "overage";
  utilization?: number;
  overageStatus?: "allowed" | "allowed_warning" | "rejected";
  overageResetsAt?: number;
  overageDisabledReason?:
    | "overage_not_provisioned"
    | "org_level_disabled"
    | "org_level_disabled_until"
    | "out_of_credits"
    | "seat_tier_level_disabled"
    | "member_level_disabled"
    | "seat_tier_zero_credit_limit"
    | "group_zero_credit_limit"
    | "member_zero_credit_limit"
    | "org_service_level_disabled"
    | "no_limits_configured"
    | "fetch_error"
    | "unknown";
  isUsingOverage?: boolean;
  overageInUse?: boolean;
  overageEnabled?: boolean;
  surpassedThreshold?: number;
  limitScope?: "service" | "channel" | "group_pool";
  errorCode?: "credits_required";
  canUserPurchaseCredits?: boolean;
  hasChargeableSavedPaymentMethod?: boolean;
};
/** The rate-limit state changed. */
export type SDKRateLimitEvent = { type: "rate_limit_event"; rate_limit_info: SDKRateLimitInfo } & Tagged;
/** An MCP elicitation finished. */
export type SDKElicitationCompleteMessage = Wire<"elicitation_complete">;
/** A tool call was denied. */
export type SDKPermissionDeniedMessage = Wire<"permission_denied">;
/** A suggested next prompt. */
export type SDKPromptSuggestionMessage = { type: "prompt_suggestion"; suggestion: string } & Tagged;
/** A session-store write failed. */
export type SDKMirrorErrorMessage = Wire<"mirror_error">;
/** Information for the user. */
export type SDKInformationalMessage = Wire<"informational">;
/** The conversation was reset (e.g. `/clear`). */
export type SDKConversationResetMessage = {
  type: "conversation_reset";
  new_conversation_id: UUID;
  trigger?: "clear" | "plan_mode_exit" | "fresh_session" | "onboarding";
  user_message_uuid?: string;
  timestamp?: string;
} & Tagged;
/** Writes were lost (disk full or quota). */
export type SDKSessionWritesLostMessage = System<"session_writes_lost"> & {
  error_code: "ENOSPC" | "EDQUOT";
  lost: ("transcript" | "global_config")[];
  transcript_session_ids?: string[];
};
/** The session's active goal. */
export type SDKActiveGoalMessage = {
  type: "active_goal";
  value: {
    condition: string;
    iterations: number;
    set_at: number;
    tokens_at_start: number;
    last_reason?: string;
  } | null;
} & Tagged;

/** Every `system` message but `init`, and the other non-conversation messages. */
export type SDKOtherWireMessage =
  | SDKCompactBoundaryMessage
  | SDKStatusMessage
  | SDKAPIRetryMessage
  | SDKControlRequestProgressMessage
  | SDKModelRefusalFallbackMessage
  | SDKModelRefusalNoFallbackMessage
  | SDKLocalCommandOutputMessage
  | SDKHookStartedMessage
  | SDKHookProgressMessage
  | SDKHookResponseMessage
  | SDKPluginInstallMessage
  | SDKToolProgressMessage
  | SDKAuthStatusMessage
  | SDKTaskNotificationMessage
  | SDKTaskStartedMessage
  | SDKTaskUpdatedMessage
  | SDKTaskProgressMessage
  | SDKBackgroundTasksChangedMessage
  | SDKThinkingTokensMessage
  | SDKSessionStateChangedMessage
  | SDKWorkerShuttingDownMessage
  | SDKCommandsChangedMessage
  | SDKNotificationMessage
  | SDKFilesPersistedEvent
  | SDKToolUseSummaryMessage
  | SDKMemoryRecallMessage
  | SDKRateLimitEvent
  | SDKElicitationCompleteMessage
  | SDKPermissionDeniedMessage
  | SDKPromptSuggestionMessage
  | SDKMirrorErrorMessage
  | SDKInformationalMessage
  | SDKConversationResetMessage
  | SDKSessionWritesLostMessage;
