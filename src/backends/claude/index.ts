/**
 * `code-agent-sdk/claude`: what only the Claude Code backend has. The sessions Claude Code stores
 * (list, read, rename, tag, fork, archive, delete them, like the official SDK's helpers, on disk or
 * in a {@link SessionStore}); hooks and their inputs; the results of Claude's control requests
 * ({@link ClaudeControls}); Claude's settings file; its `system` events, typed by subtype; and the
 * official `@anthropic-ai/claude-agent-sdk` option tables. The options themselves are
 * {@link ClaudeAgentOptions} (also in the root entry).
 *
 * @example
 * ```ts
 * import { listSessions, getSessionMessages } from "code-agent-sdk/claude";
 * const [latest] = await listSessions({ dir: process.cwd(), limit: 1 });
 * if (latest) for (const m of await getSessionMessages(latest.sessionId)) console.log(m.type);
 * ```
 * @packageDocumentation
 */
export { SessionStoreError } from "../../errors.js";
export type {
  KnownSystemSubtype,
  SystemMessageDataMap,
  TypedSystemMessage,
} from "../../messages.js";
export type {
  AgentDefinition,
  AgentPermissionMode,
  ClaudeAgentOptions,
  ClaudeSettings,
  ElicitationRequest,
  ElicitationResult,
  OnElicitation,
  OnUserDialog,
  PluginConfig,
  SandboxCredentialRule,
  SandboxSettings,
  SettingSource,
  SystemPromptConfig,
  ThinkingConfig,
  ThinkingDisplay,
  ToolConfig,
  ToolsConfig,
  UserDialogRequest,
  UserDialogResult,
} from "../../options.js";
export type { PermissionMode } from "../../permissions.js";
export type {
  AccountInfo,
  AgentInfo,
  ContextUsage,
  InterruptResult,
  McpResourceContents,
  McpSetServersResult,
  ModelInfo,
  ReadFileResult,
  ReloadPluginsResult,
  SettingsFileSource,
  SlashCommand,
  UsageReport,
} from "./control-results.js";
export type { ClaudeInitializeResponse, McpServerStatus, RewindFilesResult } from "./control-types.js";
export type { ClaudeControls, ReadFileOptions, ReloadPluginsOptions } from "./controls.js";
export {
  type ActiveGoalEventData,
  type ApiRetryEventData,
  type AuthStatusEventData,
  type BackgroundTasksChangedEventData,
  CLAUDE_SYSTEM_SUBTYPES,
  type ClaudeApiErrorKind,
  type ClaudeEventBase,
  type ClaudePermissionModeName,
  type ClaudeSystemMessageData,
  type ClaudeSystemSubtype,
  type CommandLifecycleEventData,
  type CommandsChangedEventData,
  type CompactBoundaryEventData,
  type ControlRequestProgressEventData,
  type ConversationResetEventData,
  type ElicitationCompleteEventData,
  type FilesPersistedEventData,
  type HookEventBaseData,
  type HookProgressEventData,
  type HookResponseEventData,
  type HookStartedEventData,
  type InformationalEventData,
  type InitEventData,
  type LocalCommandOutputEventData,
  type MemoryRecallEventData,
  type MirrorErrorEventData,
  type ModelRefusalFallbackEventData,
  type ModelRefusalNoFallbackEventData,
  type NotificationEventData,
  type PermissionDeniedEventData,
  type PluginInstallEventData,
  type PromptSuggestionEventData,
  type RateLimitEventData,
  type SessionStateChangedEventData,
  type SessionTitleChangedEventData,
  type SessionWritesLostEventData,
  type StatusEventData,
  type TaskNotificationEventData,
  type TaskProgressEventData,
  type TaskStartedEventData,
  type TaskUpdatedEventData,
  type TaskUsage,
  type ThinkingTokensEventData,
  type ToolProgressEventData,
  type ToolUseSummaryEventData,
  type TurnPreemptedEventData,
  type WorkerShuttingDownEventData,
} from "./events.js";
export type {
  AnyHookInput,
  BaseHookInput,
  ConfigChangeHookInput,
  ContextHookSpecificOutput,
  CwdChangedHookInput,
  DirectoryAddedHookInput,
  ElicitationHookInput,
  ElicitationHookSpecificOutput,
  ElicitationResultHookInput,
  FileChangedHookInput,
  HookBackgroundSummary,
  HookEventName,
  HookInputByEvent,
  HookMcpServerProvenance,
  HookPermissionUpdate,
  HookSpecificOutput,
  InstructionsLoadedHookInput,
  MessageDisplayHookInput,
  MessageDisplayHookSpecificOutput,
  ModelSwitchHookFields,
  NotificationHookInput,
  PermissionDeniedHookInput,
  PermissionDeniedHookSpecificOutput,
  PermissionRequestHookInput,
  PermissionRequestHookSpecificOutput,
  PostCompactHookInput,
  PostModelSwitchHookInput,
  PostToolBatchHookInput,
  PostToolUseFailureHookInput,
  PostToolUseHookInput,
  PostToolUseHookSpecificOutput,
  PreCompactHookInput,
  PreModelSwitchHookInput,
  PreModelSwitchHookSpecificOutput,
  PreToolUseHookInput,
  PreToolUseHookSpecificOutput,
  SessionEndHookInput,
  SessionStartHookInput,
  SessionStartHookSpecificOutput,
  SetupHookInput,
  StopFailureHookInput,
  StopHookInput,
  SubagentStartHookInput,
  SubagentStopHookInput,
  TaskCompletedHookInput,
  TaskCreatedHookInput,
  TaskHookFields,
  TeammateIdleHookInput,
  UserPromptExpansionHookInput,
  UserPromptExpansionHookSpecificOutput,
  UserPromptSubmitHookInput,
  UserPromptSubmitHookSpecificOutput,
  WatchPathsHookSpecificOutput,
  WorktreeCreateHookInput,
  WorktreeCreateHookSpecificOutput,
  WorktreeRemoveHookInput,
} from "./hook-events.js";
export {
  type AsyncHookJSONOutput,
  HOOK_EVENTS,
  type HookCallback,
  type HookCallbackMatcher,
  type HookContext,
  type HookEvent,
  type HookInput,
  type HookJSONOutput,
  type HookMap,
  type SyncHookJSONOutput,
} from "./hooks.js";
export {
  CLAUDE_REJECTED_OPTIONS,
  OFFICIAL_CLAUDE_OPTIONS,
  type RejectedOfficialOption,
  type SupportedOfficialOption,
} from "./official-options.js";
export { archiveSession, unarchiveSession } from "./sessions/archive.js";
export { type ImportSessionToStoreOptions, importSessionToStore } from "./sessions/import.js";
export { getSessionInfo, listSessions } from "./sessions/info.js";
export { InMemorySessionStore } from "./sessions/memory-store.js";
export { deleteSession, forkSession, renameSession, tagSession } from "./sessions/mutate.js";
export { encodeProjectDir } from "./sessions/store.js";
export type {
  SessionKey,
  SessionStore,
  SessionStoreEntry,
  SessionStoreFlush,
  SessionSummaryEntry,
} from "./sessions/store-types.js";
export { foldSessionSummary } from "./sessions/summary.js";
export { getSessionMessages, getSubagentMessages, listSubagents } from "./sessions/transcript.js";
export type {
  ForkSessionOptions,
  ForkSessionResult,
  GetSessionMessagesOptions,
  ListSessionsOptions,
  SessionInfo,
  SessionLocationOptions,
  SessionMessage,
  SessionMutationOptions,
  SessionStoreOptions,
} from "./sessions/types.js";
export { CLAUDE_BOOKKEEPING_TOOLS } from "./tool-policy.js";
