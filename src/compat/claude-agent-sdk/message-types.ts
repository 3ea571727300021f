/**
 * The `system` and other wire messages `query()` yields besides assistant / user / result / init,
 * typed by subtype as `@anthropic-ai/claude-agent-sdk` 0.3.330 types them (wire field names).
 */
import type { PermissionMode, SlashCommand, UUID } from "./base-types.js";
import type { SDKAssistantMessageError } from "./hook-types.js";

type Tagged = { uuid: UUID; session_id: string };
type System<S extends string> = { type: "system"; subtype: S } & Tagged;

/** Token counts of a task. */
type TaskUsage = { total_tokens: number; tool_uses: number; duration_ms: number };

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
export type SDKControlRequestProgressMessage = System<"control_request_progress"> & {
  request_id: string;
  status: "started" | "api_retry";
  attempt?: number;
  max_retries?: number;
  retry_delay_ms?: number;
  error_status?: number | null;
};
type RefusalFields = {
  original_model: string;
  request_id: string | null;
  api_refusal_category?: string | null;
  api_refusal_explanation?: string | null;
  refused_user_message_uuid?: string | null;
  content: string;
};
/** The model refused and another model answers. */
export type SDKModelRefusalFallbackMessage = System<"model_refusal_fallback"> &
  RefusalFields & {
    trigger: "refusal";
    direction: "retry" | "revert" | "sticky";
    scope?: "session" | "local";
    fallback_model: string;
    retracted_message_uuids?: string[];
  };
/** The model refused and no fallback is configured. */
export type SDKModelRefusalNoFallbackMessage = System<"model_refusal_no_fallback"> & RefusalFields;
/** Output of a local slash command. */
export type SDKLocalCommandOutputMessage = System<"local_command_output"> & { content: string };
type HookFields = { hook_id: string; hook_name: string; hook_event: string };
/** A hook started (`includeHookEvents`). */
export type SDKHookStartedMessage = System<"hook_started"> & HookFields;
/** A hook's output so far. */
export type SDKHookProgressMessage = System<"hook_progress"> &
  HookFields & { stdout: string; stderr: string; output: string };
/** A hook finished. */
export type SDKHookResponseMessage = System<"hook_response"> &
  HookFields & {
    output: string;
    stdout: string;
    stderr: string;
    exit_code?: number;
    outcome: "success" | "error" | "cancelled";
  };
/** A plugin installation step. */
export type SDKPluginInstallMessage = System<"plugin_install"> & {
  status: "started" | "installed" | "failed" | "completed";
  name?: string;
  error?: string;
};
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
export type SDKTaskUpdatedMessage = System<"task_updated"> & {
  task_id: string;
  run_id?: string;
  patch: {
    status?: "pending" | "running" | "completed" | "failed" | "killed" | "paused";
    description?: string;
    end_time?: number;
    total_paused_ms?: number;
    error?: string;
    is_backgrounded?: boolean;
  };
};
/** A task's progress. */
export type SDKTaskProgressMessage = System<"task_progress"> & {
  task_id: string;
  run_id?: string;
  tool_use_id?: string;
  description: string;
  subagent_type?: string;
  usage: TaskUsage;
  last_tool_name?: string;
  summary?: string;
};
/** The set of background tasks changed. */
export type SDKBackgroundTasksChangedMessage = System<"background_tasks_changed"> & {
  tasks: {
    task_id: string;
    run_id?: string;
    task_type: string;
    subagent_type?: string;
    description: string;
    parent_task_id?: string;
    ambient?: boolean;
  }[];
};
/** An estimate of the thinking tokens so far. */
export type SDKThinkingTokensMessage = System<"thinking_tokens"> & {
  estimated_tokens: number;
  estimated_tokens_delta: number;
  user_message_uuid?: string;
};
/** The session went idle, busy, or waits for the host. */
export type SDKSessionStateChangedMessage = System<"session_state_changed"> & {
  state: "idle" | "running" | "requires_action";
};
/** The worker is shutting down. */
export type SDKWorkerShuttingDownMessage = System<"worker_shutting_down"> & { reason: string };
/** The slash commands changed. */
export type SDKCommandsChangedMessage = System<"commands_changed"> & { commands: SlashCommand[] };
/** A notification for the user. */
export type SDKNotificationMessage = System<"notification"> & {
  key: string;
  text: string;
  priority: "low" | "medium" | "high" | "immediate";
  color?: string;
  timeout_ms?: number;
};
/** Files uploaded by the CLI. */
export type SDKFilesPersistedEvent = System<"files_persisted"> & {
  files: { filename: string; file_id: string }[];
  failed: { filename: string; error: string }[];
  processed_at: string;
};
/** A summary of tool calls. */
export type SDKToolUseSummaryMessage = {
  type: "tool_use_summary";
  summary: string;
  preceding_tool_use_ids: string[];
} & Tagged;
/** Memories recalled for the turn. */
export type SDKMemoryRecallMessage = System<"memory_recall"> & {
  mode: "select" | "synthesize";
  memories: { path: string; scope: "personal" | "team" | "organization"; content?: string }[];
};
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
export type SDKElicitationCompleteMessage = System<"elicitation_complete"> & {
  mcp_server_name: string;
  elicitation_id: string;
};
/** A tool call was denied. */
export type SDKPermissionDeniedMessage = System<"permission_denied"> & {
  tool_name: string;
  tool_use_id: string;
  agent_id?: string;
  decision_reason_type?: string;
  decision_reason?: string;
  message: string;
};
/** A suggested next prompt. */
export type SDKPromptSuggestionMessage = { type: "prompt_suggestion"; suggestion: string } & Tagged;
/** A session-store write failed. */
export type SDKMirrorErrorMessage = System<"mirror_error"> & {
  error: string;
  key: { projectKey: string; sessionId: string; subpath?: string };
};
/** Information for the user. */
export type SDKInformationalMessage = System<"informational"> & {
  content: string;
  level: "info" | "notice" | "suggestion" | "warning";
  tool_use_id?: string;
  prevent_continuation?: boolean;
  tag?: string;
};
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
