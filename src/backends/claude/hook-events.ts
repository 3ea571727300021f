/**
 * Typed hook inputs and event-specific outputs for every hook event of Claude Code 2.1.330.
 *
 * Inputs are the CLI's objects (snake_case, as sent in `hook_callback`); the event list and the
 * fields follow the official SDK 0.3.330 (`HookInput`, `*HookSpecificOutput`). Every input keeps
 * fields a later CLI adds (index signature), so a hook never loses data it was sent.
 *
 * @module
 */

/** Where an MCP tool came from, on hook inputs about MCP tools. */
export interface HookMcpServerProvenance {
  name: string;
  source?: string;
  [field: string]: unknown;
}

/** A permission update the CLI suggests (see `canUseTool`'s `suggestions`). */
export type HookPermissionUpdate = Record<string, unknown> & { type: string };

/** Fields of every hook input. */
export interface BaseHookInput {
  session_id: string;
  transcript_path: string;
  cwd: string;
  prompt_id?: string;
  permission_mode?: string;
  /** Set when the hook fires inside a subagent. */
  agent_id?: string;
  agent_type?: string;
  effort?: { level: string };
  [field: string]: unknown;
}

/** Before a tool runs; may allow, deny, ask, or rewrite its input. */
export interface PreToolUseHookInput extends BaseHookInput {
  hook_event_name: "PreToolUse";
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_use_id: string;
  mcp_server?: HookMcpServerProvenance;
}

/** After a tool ran. */
export interface PostToolUseHookInput extends BaseHookInput {
  hook_event_name: "PostToolUse";
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_response: unknown;
  tool_use_id: string;
  duration_ms?: number;
  mcp_server?: HookMcpServerProvenance;
}

/** After a tool failed. */
export interface PostToolUseFailureHookInput extends BaseHookInput {
  hook_event_name: "PostToolUseFailure";
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_use_id: string;
  error: string;
  is_interrupt?: boolean;
  duration_ms?: number;
  mcp_server?: HookMcpServerProvenance;
}

/** After a batch of tool calls resolved. */
export interface PostToolBatchHookInput extends BaseHookInput {
  hook_event_name: "PostToolBatch";
  tool_calls: Record<string, unknown>[];
}

/** A tool call was denied without asking. */
export interface PermissionDeniedHookInput extends BaseHookInput {
  hook_event_name: "PermissionDenied";
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_use_id: string;
  reason: string;
  mcp_server?: HookMcpServerProvenance;
}

/** The CLI would ask for permission; the hook may decide instead. */
export interface PermissionRequestHookInput extends BaseHookInput {
  hook_event_name: "PermissionRequest";
  tool_name: string;
  tool_input: Record<string, unknown>;
  permission_suggestions?: HookPermissionUpdate[];
  mcp_server?: HookMcpServerProvenance;
}

/** A notification for the user. */
export interface NotificationHookInput extends BaseHookInput {
  hook_event_name: "Notification";
  message: string;
  title?: string;
  notification_type: string;
}

/** A prompt was submitted. */
export interface UserPromptSubmitHookInput extends BaseHookInput {
  hook_event_name: "UserPromptSubmit";
  prompt: string;
  source?: "user" | "sdk" | "system" | "loop_wakeup" | "schedule_wakeup" | "poll_event";
  session_title?: string;
}

/** A slash command or MCP prompt was expanded into a prompt. */
export interface UserPromptExpansionHookInput extends BaseHookInput {
  hook_event_name: "UserPromptExpansion";
  expansion_type: "slash_command" | "mcp_prompt";
  command_name: string;
  command_args: string;
  command_source?: string;
  prompt: string;
}

/** A session started, resumed, was cleared, compacted or forked. */
export interface SessionStartHookInput extends BaseHookInput {
  hook_event_name: "SessionStart";
  source: "startup" | "resume" | "clear" | "compact" | "fork";
  model?: string;
  session_title?: string;
  seconds_since_last_response?: number;
  context_tokens?: number;
  prompt_cache_likely_expired?: boolean;
  estimated_cache_write_usd?: number;
}

/** A session ended. */
export interface SessionEndHookInput extends BaseHookInput {
  hook_event_name: "SessionEnd";
  reason: "clear" | "resume" | "logout" | "prompt_input_exit" | "other" | (string & {});
}

/** Summaries of background work, on Stop and SubagentStop. */
export type HookBackgroundSummary = Record<string, unknown>;

/** The agent is about to stop; a hook may make it continue. */
export interface StopHookInput extends BaseHookInput {
  hook_event_name: "Stop";
  stop_hook_active: boolean;
  last_assistant_message?: string;
  background_tasks?: HookBackgroundSummary[];
  session_crons?: HookBackgroundSummary[];
}

/** The turn ended on an API error. */
export interface StopFailureHookInput extends BaseHookInput {
  hook_event_name: "StopFailure";
  error: string;
  error_details?: string;
  last_assistant_message?: string;
}

/** A subagent started. */
export interface SubagentStartHookInput extends BaseHookInput {
  hook_event_name: "SubagentStart";
  agent_id: string;
  agent_type: string;
}

/** A subagent is about to stop. */
export interface SubagentStopHookInput extends BaseHookInput {
  hook_event_name: "SubagentStop";
  stop_hook_active: boolean;
  agent_id: string;
  agent_transcript_path: string;
  agent_type: string;
  last_assistant_message?: string;
  background_tasks?: HookBackgroundSummary[];
  session_crons?: HookBackgroundSummary[];
}

/** Before compaction. */
export interface PreCompactHookInput extends BaseHookInput {
  hook_event_name: "PreCompact";
  trigger: "manual" | "auto";
  custom_instructions: string | null;
}

/** After compaction. */
export interface PostCompactHookInput extends BaseHookInput {
  hook_event_name: "PostCompact";
  trigger: "manual" | "auto";
  compact_summary: string;
}

/** Fields of both model-switch events. */
export interface ModelSwitchHookFields {
  from_model: string;
  to_model: string;
  requested_model: string | null;
  context_tokens: number;
  prompt_cache_warm: boolean;
  cache_ttl: "5m" | "1h";
  estimated_cache_write_usd: number;
  pricing: "configured" | "catalog" | "default";
}

/** Before the model changes; may deny the switch. */
export interface PreModelSwitchHookInput extends BaseHookInput, ModelSwitchHookFields {
  hook_event_name: "PreModelSwitch";
  source: "command" | "picker" | "sdk";
}

/** After the model changed. */
export interface PostModelSwitchHookInput extends BaseHookInput, ModelSwitchHookFields {
  hook_event_name: "PostModelSwitch";
  source: "command" | "picker" | "sdk" | "auto" | "resume";
}

/** `claude --init` / maintenance setup. */
export interface SetupHookInput extends BaseHookInput {
  hook_event_name: "Setup";
  trigger: "init" | "maintenance";
}

/** A teammate of an agent team went idle. */
export interface TeammateIdleHookInput extends BaseHookInput {
  hook_event_name: "TeammateIdle";
  teammate_name: string;
  team_name: string;
}

/** Fields of both task events. */
export interface TaskHookFields {
  task_id: string;
  task_subject: string;
  task_description?: string;
  teammate_name?: string;
  team_name?: string;
}

/** A task-list task was created. */
export interface TaskCreatedHookInput extends BaseHookInput, TaskHookFields {
  hook_event_name: "TaskCreated";
}

/** A task-list task was completed. */
export interface TaskCompletedHookInput extends BaseHookInput, TaskHookFields {
  hook_event_name: "TaskCompleted";
}

/** An MCP server asks the user for input. */
export interface ElicitationHookInput extends BaseHookInput {
  hook_event_name: "Elicitation";
  mcp_server_name: string;
  message: string;
  mode?: "form" | "url";
  url?: string;
  elicitation_id?: string;
  requested_schema?: Record<string, unknown>;
}

/** The user answered an elicitation. */
export interface ElicitationResultHookInput extends BaseHookInput {
  hook_event_name: "ElicitationResult";
  mcp_server_name: string;
  elicitation_id?: string;
  mode?: "form" | "url";
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

/** A settings file changed. */
export interface ConfigChangeHookInput extends BaseHookInput {
  hook_event_name: "ConfigChange";
  source: "user_settings" | "project_settings" | "local_settings" | "policy_settings" | "skills";
  file_path?: string;
}

/** A CLAUDE.md or rules file was loaded. */
export interface InstructionsLoadedHookInput extends BaseHookInput {
  hook_event_name: "InstructionsLoaded";
  file_path: string;
  memory_type: "User" | "Project" | "Local" | "Managed";
  load_reason: "session_start" | "nested_traversal" | "path_glob_match" | "include" | "compact";
  globs?: string[];
  trigger_file_path?: string;
  parent_file_path?: string;
}

/** A git worktree is to be created; the hook may create it. */
export interface WorktreeCreateHookInput extends BaseHookInput {
  hook_event_name: "WorktreeCreate";
  name: string;
}

/** A git worktree is to be removed. */
export interface WorktreeRemoveHookInput extends BaseHookInput {
  hook_event_name: "WorktreeRemove";
  worktree_path: string;
}

/** The working directory changed. */
export interface CwdChangedHookInput extends BaseHookInput {
  hook_event_name: "CwdChanged";
  old_cwd: string;
  new_cwd: string;
}

/** A watched file changed. */
export interface FileChangedHookInput extends BaseHookInput {
  hook_event_name: "FileChanged";
  file_path: string;
  event: "change" | "add" | "unlink";
}

/** A directory was added to the session. */
export interface DirectoryAddedHookInput extends BaseHookInput {
  hook_event_name: "DirectoryAdded";
  directory: string;
  source: "slash_command" | "register_repo_root";
}

/** Assistant text is about to be displayed. */
export interface MessageDisplayHookInput extends BaseHookInput {
  hook_event_name: "MessageDisplay";
  turn_id: string;
  message_id: string;
  index: number;
  final: boolean;
  delta: string;
}

/** The input type of each hook event. */
export interface HookInputByEvent {
  PreToolUse: PreToolUseHookInput;
  PostToolUse: PostToolUseHookInput;
  PostToolUseFailure: PostToolUseFailureHookInput;
  PostToolBatch: PostToolBatchHookInput;
  PermissionDenied: PermissionDeniedHookInput;
  Notification: NotificationHookInput;
  UserPromptSubmit: UserPromptSubmitHookInput;
  UserPromptExpansion: UserPromptExpansionHookInput;
  SessionStart: SessionStartHookInput;
  Stop: StopHookInput;
  StopFailure: StopFailureHookInput;
  SubagentStart: SubagentStartHookInput;
  SubagentStop: SubagentStopHookInput;
  PreCompact: PreCompactHookInput;
  PostCompact: PostCompactHookInput;
  PreModelSwitch: PreModelSwitchHookInput;
  PostModelSwitch: PostModelSwitchHookInput;
  SessionEnd: SessionEndHookInput;
  PermissionRequest: PermissionRequestHookInput;
  Setup: SetupHookInput;
  TeammateIdle: TeammateIdleHookInput;
  TaskCreated: TaskCreatedHookInput;
  TaskCompleted: TaskCompletedHookInput;
  Elicitation: ElicitationHookInput;
  ElicitationResult: ElicitationResultHookInput;
  ConfigChange: ConfigChangeHookInput;
  InstructionsLoaded: InstructionsLoadedHookInput;
  WorktreeCreate: WorktreeCreateHookInput;
  WorktreeRemove: WorktreeRemoveHookInput;
  CwdChanged: CwdChangedHookInput;
  FileChanged: FileChangedHookInput;
  DirectoryAdded: DirectoryAddedHookInput;
  MessageDisplay: MessageDisplayHookInput;
}

/** A hook event this SDK types. */
export type HookEventName = keyof HookInputByEvent;

/** Any typed hook input; discriminate on `hook_event_name`. */
export type AnyHookInput = HookInputByEvent[HookEventName];

/** `hookSpecificOutput` of PreToolUse: allow, deny, ask or defer, and optionally rewrite the input. */
export interface PreToolUseHookSpecificOutput {
  hookEventName: "PreToolUse";
  permissionDecision?: "allow" | "deny" | "ask" | "defer";
  permissionDecisionReason?: string;
  updatedInput?: Record<string, unknown>;
  additionalContext?: string;
}

/** `hookSpecificOutput` of PostToolUse: add context, or replace what the model sees of the output. */
export interface PostToolUseHookSpecificOutput {
  hookEventName: "PostToolUse";
  additionalContext?: string;
  classifierContext?: string;
  updatedToolOutput?: unknown;
  updatedMCPToolOutput?: unknown;
}

/** `hookSpecificOutput` of PermissionRequest: the decision the CLI would have asked for. */
export interface PermissionRequestHookSpecificOutput {
  hookEventName: "PermissionRequest";
  decision:
    | {
        behavior: "allow";
        updatedInput?: Record<string, unknown>;
        updatedPermissions?: HookPermissionUpdate[];
      }
    | { behavior: "deny"; message?: string; interrupt?: boolean };
}

/** `hookSpecificOutput` of PermissionDenied: `retry: true` lets the model try again. */
export interface PermissionDeniedHookSpecificOutput {
  hookEventName: "PermissionDenied";
  retry?: boolean;
}

/** `hookSpecificOutput` of UserPromptSubmit. */
export interface UserPromptSubmitHookSpecificOutput {
  hookEventName: "UserPromptSubmit";
  additionalContext?: string;
  sessionTitle?: string;
  suppressOriginalPrompt?: boolean;
}

/** `hookSpecificOutput` of UserPromptExpansion. */
export interface UserPromptExpansionHookSpecificOutput {
  hookEventName: "UserPromptExpansion";
  additionalContext?: string;
  suppressOriginalPrompt?: boolean;
}

/** `hookSpecificOutput` of SessionStart. */
export interface SessionStartHookSpecificOutput {
  hookEventName: "SessionStart";
  additionalContext?: string;
  initialUserMessage?: string;
  sessionTitle?: string;
  watchPaths?: string[];
  reloadSkills?: boolean;
}

/** `hookSpecificOutput` of PreModelSwitch: may deny or ask before the switch. */
export interface PreModelSwitchHookSpecificOutput {
  hookEventName: "PreModelSwitch";
  permissionDecision?: "allow" | "deny" | "ask";
  permissionDecisionReason?: string;
}

/** `hookSpecificOutput` of the events that can only add context for the model. */
export interface ContextHookSpecificOutput<
  E extends
    | "Setup"
    | "PostModelSwitch"
    | "SubagentStart"
    | "PostToolUseFailure"
    | "PostToolBatch"
    | "Stop"
    | "SubagentStop"
    | "Notification",
> {
  hookEventName: E;
  additionalContext?: string;
}

/** `hookSpecificOutput` of Elicitation and ElicitationResult: answer for the user. */
export interface ElicitationHookSpecificOutput<
  E extends "Elicitation" | "ElicitationResult" = "Elicitation",
> {
  hookEventName: E;
  action?: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

/** `hookSpecificOutput` of CwdChanged and FileChanged: paths to watch next. */
export interface WatchPathsHookSpecificOutput<E extends "CwdChanged" | "FileChanged" = "CwdChanged"> {
  hookEventName: E;
  watchPaths?: string[];
}

/** `hookSpecificOutput` of WorktreeCreate: where the hook created the worktree. */
export interface WorktreeCreateHookSpecificOutput {
  hookEventName: "WorktreeCreate";
  worktreePath: string;
}

/** `hookSpecificOutput` of MessageDisplay: what to show instead. */
export interface MessageDisplayHookSpecificOutput {
  hookEventName: "MessageDisplay";
  displayContent?: string;
}

/** Every event-specific hook output; `hookEventName` names the event it answers. */
export type HookSpecificOutput =
  | PreToolUseHookSpecificOutput
  | PostToolUseHookSpecificOutput
  | PermissionRequestHookSpecificOutput
  | PermissionDeniedHookSpecificOutput
  | UserPromptSubmitHookSpecificOutput
  | UserPromptExpansionHookSpecificOutput
  | SessionStartHookSpecificOutput
  | PreModelSwitchHookSpecificOutput
  | ContextHookSpecificOutput<"Setup">
  | ContextHookSpecificOutput<"PostModelSwitch">
  | ContextHookSpecificOutput<"SubagentStart">
  | ContextHookSpecificOutput<"PostToolUseFailure">
  | ContextHookSpecificOutput<"PostToolBatch">
  | ContextHookSpecificOutput<"Stop">
  | ContextHookSpecificOutput<"SubagentStop">
  | ContextHookSpecificOutput<"Notification">
  | ElicitationHookSpecificOutput<"Elicitation">
  | ElicitationHookSpecificOutput<"ElicitationResult">
  | WatchPathsHookSpecificOutput<"CwdChanged">
  | WatchPathsHookSpecificOutput<"FileChanged">
  | WorktreeCreateHookSpecificOutput
  | MessageDisplayHookSpecificOutput;
