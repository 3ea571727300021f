/**
 * Typed payloads of the events Claude Code 2.1.330 emits besides user, assistant, result and
 * stream_event lines: every `system` subtype, plus the event lines with a `type` of their own
 * (`command_lifecycle`, `rate_limit_event`, `tool_progress`, …), which this SDK delivers as
 * `system` messages whose `subtype` is that type.
 *
 * Field names are the wire's (snake_case as the CLI writes them) because `data` is the wire object
 * itself: typing it costs nothing at run time. Names and shapes follow the official SDK 0.3.330's
 * `SDKMessage` union and what the CLI was seen to send (test/fixtures/claude/shapes/stdout_kinds.json).
 * A field the CLI adds later is still in `data`, untyped.
 *
 * @module
 */

/** Fields every event carries. */
export interface ClaudeEventBase {
  uuid?: string;
  session_id?: string;
}

/** Permission modes as the CLI reports them. */
export type ClaudePermissionModeName =
  | "default"
  | "acceptEdits"
  | "bypassPermissions"
  | "plan"
  | "dontAsk"
  | "auto"
  | (string & {});

/** API error classes the CLI names (assistant `error`, `api_retry`). */
export type ClaudeApiErrorKind =
  | "authentication_failed"
  | "billing_error"
  | "rate_limit"
  | "invalid_request"
  | "server_error"
  | "max_output_tokens"
  | "unknown"
  | (string & {});

/** `system/init`: sent at the start of every turn (not at process start). */
export interface InitEventData extends ClaudeEventBase {
  cwd: string;
  session_id: string;
  tools: string[];
  mcp_servers: { name: string; status: string; source?: string }[];
  model: string;
  permissionMode: ClaudePermissionModeName;
  slash_commands: string[];
  terminal_slash_commands?: string[];
  apiKeySource: string;
  claude_code_version: string;
  output_style: string;
  agents?: string[];
  skills: string[];
  plugins: { name: string; path: string; source?: string; version?: string }[];
  plugin_errors?: { plugin: string; type: string; message: string; path?: string }[];
  betas?: string[];
  capabilities?: string[];
  fast_mode_state?: "off" | "cooldown" | "on" | (string & {});
  fast_mode_disabled_reason?: string;
  effort?: "low" | "medium" | "high" | "xhigh" | "max" | null;
  memory_paths?: Record<string, string>;
  original_cwd?: string;
  additional_directories?: string[];
  analytics_disabled?: boolean;
}

/** `system/status`: the session is `requesting` the model, `compacting`, or neither (`null`); also sent after a permission-mode change. */
export interface StatusEventData extends ClaudeEventBase {
  status: "compacting" | "requesting" | null | (string & {});
  permissionMode?: ClaudePermissionModeName;
  compact_result?: "success" | "failed";
  compact_error?: string;
}

/** `system/compact_boundary`: the conversation was compacted; later turns see a summary. */
export interface CompactBoundaryEventData extends ClaudeEventBase {
  compact_metadata: {
    trigger: "manual" | "auto";
    pre_tokens: number;
    post_tokens?: number;
    duration_ms?: number;
    cumulative_dropped_tokens?: number;
    preserved_segment?: { head_uuid: string; anchor_uuid: string; tail_uuid: string };
    preserved_messages?: { anchor_uuid: string; uuids: string[] };
  };
  logical_parent_uuid?: string;
}

/** `system/api_retry`: a model request failed and is retried after `retry_delay_ms`. */
export interface ApiRetryEventData extends ClaudeEventBase {
  attempt: number;
  max_retries: number;
  retry_delay_ms: number;
  error_status: number | null;
  error: ClaudeApiErrorKind;
  no_response?: { waited_ms: number; retry_wait_ms: number };
}

/** `system/control_request_progress`: progress of a long control request (e.g. a model check). */
export interface ControlRequestProgressEventData extends ClaudeEventBase {
  request_id: string;
  status: "started" | "api_retry";
  attempt?: number;
  max_retries?: number;
  retry_delay_ms?: number;
  error_status?: number | null;
}

/** `system/model_refusal_fallback`: the model refused and the turn is retried on `fallback_model`. */
export interface ModelRefusalFallbackEventData extends ClaudeEventBase {
  trigger: "refusal";
  direction: "retry" | "revert" | "sticky";
  scope?: "session" | "local";
  original_model: string;
  fallback_model: string;
  request_id: string | null;
  api_refusal_category?: string | null;
  api_refusal_explanation?: string | null;
  retracted_message_uuids?: string[];
  refused_user_message_uuid?: string | null;
  content: string;
}

/** `system/model_refusal_no_fallback`: the model refused and nothing retries it. */
export interface ModelRefusalNoFallbackEventData extends ClaudeEventBase {
  original_model: string;
  request_id: string | null;
  api_refusal_category?: string | null;
  api_refusal_explanation?: string | null;
  refused_user_message_uuid?: string | null;
  content: string;
}

/** `system/local_command_output`: output of a local slash command (`/cost`, `/context`, …). */
export interface LocalCommandOutputEventData extends ClaudeEventBase {
  content: string;
}

/** Fields of the `hook_*` events (sent with `--include-hook-events` for hooks from settings files). */
export interface HookEventBaseData extends ClaudeEventBase {
  hook_id: string;
  /** `Event` or `Event:matcher`, e.g. `PreToolUse:Bash`. */
  hook_name: string;
  hook_event: string;
}

/** `system/hook_started`. */
export interface HookStartedEventData extends HookEventBaseData {}

/** `system/hook_progress`: output so far of a running hook. */
export interface HookProgressEventData extends HookEventBaseData {
  stdout: string;
  stderr: string;
  output: string;
}

/** `system/hook_response`: a hook finished. */
export interface HookResponseEventData extends HookEventBaseData {
  output: string;
  stdout: string;
  stderr: string;
  exit_code?: number;
  outcome: "success" | "error" | "cancelled";
}

/** `system/plugin_install`. */
export interface PluginInstallEventData extends ClaudeEventBase {
  status: "started" | "installed" | "failed" | "completed";
  name?: string;
  error?: string;
}

/** Token and time use of a task so far. */
export interface TaskUsage {
  total_tokens: number;
  tool_uses: number;
  duration_ms: number;
}

/** `system/task_started`: a subagent, background shell or workflow started. */
export interface TaskStartedEventData extends ClaudeEventBase {
  task_id: string;
  run_id?: string;
  tool_use_id?: string;
  description: string;
  /** `local_agent`, `local_bash`, … */
  task_type?: string;
  subagent_type?: string;
  is_backgrounded?: boolean;
  spawn_depth?: number;
  parent_task_id?: string;
  workflow_name?: string;
  prompt?: string;
}

/** `system/task_updated`: fields of a task that changed. */
export interface TaskUpdatedEventData extends ClaudeEventBase {
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
}

/** `system/task_progress`: periodic progress of a running task. */
export interface TaskProgressEventData extends ClaudeEventBase {
  task_id: string;
  run_id?: string;
  tool_use_id?: string;
  description: string;
  subagent_type?: string;
  usage: TaskUsage;
  last_tool_name?: string;
  summary?: string;
}

/** `system/task_notification`: a task ended. */
export interface TaskNotificationEventData extends ClaudeEventBase {
  task_id: string;
  run_id?: string;
  tool_use_id?: string;
  status: "completed" | "failed" | "stopped";
  output_file: string;
  summary: string;
  usage?: TaskUsage;
}

/** `system/background_tasks_changed`: the full list of tasks running in the background. */
export interface BackgroundTasksChangedEventData extends ClaudeEventBase {
  tasks: {
    task_id: string;
    run_id?: string;
    task_type: string;
    subagent_type?: string;
    description: string;
    parent_task_id?: string;
  }[];
}

/** `system/thinking_tokens`: estimated thinking tokens of the running response. */
export interface ThinkingTokensEventData extends ClaudeEventBase {
  estimated_tokens: number;
  estimated_tokens_delta: number;
  user_message_uuid?: string;
}

/**
 * `system/session_state_changed` (only with `CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1` in the
 * CLI's environment): `running` when a turn starts, `idle` after its result.
 */
export interface SessionStateChangedEventData extends ClaudeEventBase {
  state: "idle" | "running" | "requires_action";
}

/** `system/session_title_changed`: the session was renamed (`rename_session`, `/rename`). */
export interface SessionTitleChangedEventData extends ClaudeEventBase {
  title: string;
}

/** `system/worker_shutting_down`. */
export interface WorkerShuttingDownEventData extends ClaudeEventBase {
  reason: string;
}

/** `system/commands_changed`: the slash commands available changed. */
export interface CommandsChangedEventData extends ClaudeEventBase {
  commands: { name: string; description: string; argumentHint: string; aliases?: string[] }[];
}

/** `system/notification`. */
export interface NotificationEventData extends ClaudeEventBase {
  key: string;
  text: string;
  priority: "low" | "medium" | "high" | "immediate";
  color?: string;
  timeout_ms?: number;
}

/** `system/files_persisted`. */
export interface FilesPersistedEventData extends ClaudeEventBase {
  files: { filename: string; file_id: string }[];
  failed: { filename: string; error: string }[];
  processed_at: string;
}

/** `system/memory_recall`. */
export interface MemoryRecallEventData extends ClaudeEventBase {
  mode: "select" | "synthesize";
  memories: { path: string; scope: "personal" | "team" | "organization"; content?: string }[];
}

/** `system/elicitation_complete`: an MCP server's URL elicitation finished. */
export interface ElicitationCompleteEventData extends ClaudeEventBase {
  mcp_server_name: string;
  elicitation_id: string;
}

/** `system/permission_denied`: a tool call was denied without asking (rule, mode, working dir). */
export interface PermissionDeniedEventData extends ClaudeEventBase {
  tool_name: string;
  tool_use_id: string;
  agent_id?: string;
  decision_reason_type?: string;
  decision_reason?: string;
  message: string;
}

/** `system/mirror_error`: a session-store append failed. */
export interface MirrorErrorEventData extends ClaudeEventBase {
  error: string;
  key: { projectKey: string; sessionId: string; subpath?: string };
}

/** `system/informational`: a notice for the user (e.g. after a refusal). */
export interface InformationalEventData extends ClaudeEventBase {
  content: string;
  level: "info" | "notice" | "suggestion" | "warning";
  tool_use_id?: string;
  prevent_continuation?: boolean;
  tag?: string;
}

/** `system/session_writes_lost`: the disk was full; sent once as the CLI exits. */
export interface SessionWritesLostEventData extends ClaudeEventBase {
  error_code: "ENOSPC" | "EDQUOT" | (string & {});
  lost: ("transcript" | "global_config")[];
  transcript_session_ids?: string[];
}

/** `system/turn_preempted`: the CLI stopped a turn to answer a rapid follow-up. */
export interface TurnPreemptedEventData extends ClaudeEventBase {
  preempted_by_uuid?: string;
}

/**
 * `command_lifecycle` (a line type of its own): progress of a user message the SDK sent with a
 * `uuid` — `queued`, `started`, then `completed` or `cancelled`.
 */
export interface CommandLifecycleEventData extends ClaudeEventBase {
  type: "command_lifecycle";
  command_uuid: string;
  state: "queued" | "started" | "completed" | "cancelled" | (string & {});
}

/** `rate_limit_event`: the account's rate-limit state. */
export interface RateLimitEventData extends ClaudeEventBase {
  type: "rate_limit_event";
  rate_limit_info: {
    status: "allowed" | "allowed_warning" | "rejected";
    resetsAt?: number;
    rateLimitType?: string;
    utilization?: number;
    overageStatus?: "allowed" | "allowed_warning" | "rejected";
    overageResetsAt?: number;
    overageDisabledReason?: string;
    isUsingOverage?: boolean;
    surpassedThreshold?: number;
  };
}

/** `tool_progress`: a tool has been running for `elapsed_time_seconds`. */
export interface ToolProgressEventData extends ClaudeEventBase {
  type: "tool_progress";
  tool_use_id: string;
  tool_name: string;
  parent_tool_use_id: string | null;
  elapsed_time_seconds: number;
  task_id?: string;
  heartbeat?: boolean;
}

/** `tool_use_summary` (with `CLAUDE_CODE_EMIT_TOOL_USE_SUMMARIES=1`): a summary of tool calls. */
export interface ToolUseSummaryEventData extends ClaudeEventBase {
  type: "tool_use_summary";
  summary: string;
  preceding_tool_use_ids: string[];
}

/** `auth_status`: progress of an authentication flow. */
export interface AuthStatusEventData extends ClaudeEventBase {
  type: "auth_status";
  isAuthenticating: boolean;
  output: string[];
  error?: string;
}

/** `prompt_suggestion`: a suggested next prompt (when prompt suggestions are on). */
export interface PromptSuggestionEventData extends ClaudeEventBase {
  type: "prompt_suggestion";
  suggestion: string;
}

/** `conversation_reset`: `/clear` (or similar) started a fresh conversation. */
export interface ConversationResetEventData extends ClaudeEventBase {
  type: "conversation_reset";
  new_conversation_id: string;
  trigger?: "clear" | "plan_mode_exit" | "fresh_session" | "onboarding";
  user_message_uuid?: string;
  timestamp?: string;
}

/** `active_goal`: the session's current goal (`/goal`), or `null`. */
export interface ActiveGoalEventData extends ClaudeEventBase {
  type: "active_goal";
  value: {
    condition: string;
    iterations: number;
    set_at: number;
    tokens_at_start: number;
    last_reason?: string;
  } | null;
}

/**
 * The `data` of every Claude `system` message subtype this SDK types, by subtype. Event lines
 * with a type of their own appear under that type.
 */
export interface ClaudeSystemMessageData {
  init: InitEventData;
  status: StatusEventData;
  compact_boundary: CompactBoundaryEventData;
  api_retry: ApiRetryEventData;
  control_request_progress: ControlRequestProgressEventData;
  model_refusal_fallback: ModelRefusalFallbackEventData;
  model_refusal_no_fallback: ModelRefusalNoFallbackEventData;
  local_command_output: LocalCommandOutputEventData;
  hook_started: HookStartedEventData;
  hook_progress: HookProgressEventData;
  hook_response: HookResponseEventData;
  plugin_install: PluginInstallEventData;
  task_started: TaskStartedEventData;
  task_updated: TaskUpdatedEventData;
  task_progress: TaskProgressEventData;
  task_notification: TaskNotificationEventData;
  background_tasks_changed: BackgroundTasksChangedEventData;
  thinking_tokens: ThinkingTokensEventData;
  session_state_changed: SessionStateChangedEventData;
  session_title_changed: SessionTitleChangedEventData;
  worker_shutting_down: WorkerShuttingDownEventData;
  commands_changed: CommandsChangedEventData;
  notification: NotificationEventData;
  files_persisted: FilesPersistedEventData;
  memory_recall: MemoryRecallEventData;
  elicitation_complete: ElicitationCompleteEventData;
  permission_denied: PermissionDeniedEventData;
  mirror_error: MirrorErrorEventData;
  informational: InformationalEventData;
  session_writes_lost: SessionWritesLostEventData;
  turn_preempted: TurnPreemptedEventData;
  command_lifecycle: CommandLifecycleEventData;
  rate_limit_event: RateLimitEventData;
  tool_progress: ToolProgressEventData;
  tool_use_summary: ToolUseSummaryEventData;
  auth_status: AuthStatusEventData;
  prompt_suggestion: PromptSuggestionEventData;
  conversation_reset: ConversationResetEventData;
  active_goal: ActiveGoalEventData;
}

/** A `system` subtype this SDK types. */
export type ClaudeSystemSubtype = keyof ClaudeSystemMessageData;

/**
 * Every typed subtype at run time (for conformance tables); the compiler checks it lists exactly
 * the keys of {@link ClaudeSystemMessageData}.
 */
export const CLAUDE_SYSTEM_SUBTYPES = Object.keys({
  init: true,
  status: true,
  compact_boundary: true,
  api_retry: true,
  control_request_progress: true,
  model_refusal_fallback: true,
  model_refusal_no_fallback: true,
  local_command_output: true,
  hook_started: true,
  hook_progress: true,
  hook_response: true,
  plugin_install: true,
  task_started: true,
  task_updated: true,
  task_progress: true,
  task_notification: true,
  background_tasks_changed: true,
  thinking_tokens: true,
  session_state_changed: true,
  session_title_changed: true,
  worker_shutting_down: true,
  commands_changed: true,
  notification: true,
  files_persisted: true,
  memory_recall: true,
  elicitation_complete: true,
  permission_denied: true,
  mirror_error: true,
  informational: true,
  session_writes_lost: true,
  turn_preempted: true,
  command_lifecycle: true,
  rate_limit_event: true,
  tool_progress: true,
  tool_use_summary: true,
  auth_status: true,
  prompt_suggestion: true,
  conversation_reset: true,
  active_goal: true,
} satisfies Record<ClaudeSystemSubtype, true>) as readonly ClaudeSystemSubtype[];

/**
 * Line types the CLI emits beside user/assistant/result/stream_event/system; each becomes a
 * `system` message with `subtype` set to the type.
 */
export const CLAUDE_EVENT_LINE_TYPES: ReadonlySet<string> = new Set([
  "command_lifecycle",
  "rate_limit_event",
  "tool_progress",
  "tool_use_summary",
  "auth_status",
  "prompt_suggestion",
  "conversation_reset",
  "active_goal",
]);

/**
 * Lifecycle noise: acknowledgements of the session's own bookkeeping rather than of the work.
 * See docs/messages.md ("Message types") for where they may appear relative to a `result`.
 */
export const LIFECYCLE_SUBTYPES: ReadonlySet<string> = new Set([
  "command_lifecycle",
  "session_state_changed",
]);
