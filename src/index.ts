/**
 * code-agent-sdk: drive coding-agent CLIs (Claude Code, Codex, Cursor Agent) through one typed API.
 * @packageDocumentation
 */
export type {
  Backend,
  Capabilities,
  CodexMcpServerStatus,
  McpServerStatusEntry,
  OpenSessionParams,
  RewindFilesOptions,
  ServerInfo,
  Session,
  ToolPolicyCoverage,
} from "./backends/backend.js";
export type * from "./backends/claude/control-results.js";
export type * from "./backends/claude/control-types.js";
export type { ClaudeControls, ReadFileOptions, ReloadPluginsOptions } from "./backends/claude/controls.js";
export type * from "./backends/claude/events.js";
export { CLAUDE_SYSTEM_SUBTYPES } from "./backends/claude/events.js";
export type * from "./backends/claude/hooks.js";
export { HOOK_EVENTS } from "./backends/claude/hooks.js";
export {
  CLAUDE_REJECTED_OPTIONS,
  OFFICIAL_CLAUDE_OPTIONS,
  type RejectedOfficialOption,
  type SupportedOfficialOption,
} from "./backends/claude/official-options.js";
export {
  archiveSession,
  deleteSession,
  encodeProjectDir,
  type ForkSessionOptions,
  type ForkSessionResult,
  foldSessionSummary,
  forkSession,
  type GetSessionMessagesOptions,
  getSessionInfo,
  getSessionMessages,
  getSubagentMessages,
  type ImportSessionToStoreOptions,
  InMemorySessionStore,
  importSessionToStore,
  type ListSessionsOptions,
  listSessions,
  listSubagents,
  renameSession,
  type SessionInfo,
  type SessionKey,
  type SessionLocationOptions,
  type SessionMessage,
  type SessionMutationOptions,
  type SessionStore,
  type SessionStoreEntry,
  type SessionStoreFlush,
  type SessionStoreOptions,
  type SessionSummaryEntry,
  tagSession,
  unarchiveSession,
} from "./backends/claude/sessions/index.js";
export { CLAUDE_BOOKKEEPING_TOOLS } from "./backends/claude/tool-policy.js";
export { getBackend, loadBackend } from "./backends/registry.js";
export { AgentSdkClient, INTERRUPT_SETTLE_TIMEOUT_MS, UNREAD_RESPONSE_WARNING } from "./client.js";
export * from "./errors.js";
export {
  type AutoInstallOptions,
  type CacheLocationOptions,
  CLI_CACHE_DIR_ENV,
  CLI_PACKAGES,
  CliInstallError,
  type CliInstallFailure,
  type CliPackage,
  cliCacheRoot,
  findOrInstallCli,
  INSTALLABLE_BACKENDS,
  type InstallableBackend,
  type InstallCliOptions,
  type InstallCliResult,
  type InstalledCli,
  type InstalledCliOptions,
  type InstallProgress,
  installCli,
  installedCliPath,
  listInstalledClis,
} from "./install/index.js";
export type * from "./mcp/config.js";
export {
  createSdkMcpServer,
  type SdkMcpServer,
  type SdkMcpToolDefinition,
  type ToolArgs,
  tool,
  type ZodShape,
} from "./mcp/tool.js";
export type * from "./messages.js";
export { isResult, isSystemMessage, textDeltaOf, textOf } from "./messages.js";
export type * from "./options.js";
export type * from "./permissions.js";
export type { ExitInfo } from "./process/child.js";
export type * from "./prompt.js";
export { image, text } from "./prompt.js";
export { type Query, type QueryControls, type QueryParams, query } from "./query.js";
export { currentTraceContext } from "./telemetry/start.js";
export type {
  CliTelemetryOptions,
  TelemetryMeterProvider,
  TelemetryOptions,
  TelemetryTracerProvider,
  TraceContextCarrier,
} from "./telemetry/types.js";
export type * from "./tools.js";
export { isTool, mcpToolName, parseMcpToolName, TOOL_NAMES, toolCall, toolCallOf } from "./tools.js";
export { RecordingError, type RecordOptions } from "./transport/recording.js";
export type { SpawnClaudeCodeProcess, SpawnedProcess, SpawnOptions } from "./transport/spawned-process.js";
export { SubprocessTransport, type SubprocessTransportOptions } from "./transport/subprocess.js";
export type { Transport, TransportItem } from "./transport/transport.js";
export { collectTurn, type TurnResult } from "./turn.js";
export { SDK_VERSION } from "./version.js";
export type { ClaimInfo, ClaimOptions } from "./warm/claim.js";
export {
  type ClaimedClient,
  type ClaimedQuery,
  type PrewarmParams,
  prewarm,
  SpareSession,
} from "./warm/spare.js";
export { WarmPool, type WarmPoolOptions, type WarmPoolStats } from "./warm/warm-pool.js";
export {
  DEFAULT_WARM_IDLE_TIMEOUT_MS,
  DEFAULT_WARM_STARTUP_TIMEOUT_MS,
  type StartupParams,
  startup,
  WarmSession,
  type WarmSessionState,
} from "./warm/warm-session.js";
