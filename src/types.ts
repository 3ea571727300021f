/**
 * `code-agent-sdk/types`: every type of the backend-neutral API by name, the ones the root entry
 * exports and the detail types it leaves out to stay small: option sections, MCP server configs,
 * permission results and updates, prompt blocks, the built-in tools' inputs, the backend and
 * session interfaces, warm handle states and stats, telemetry providers. Types only. Claude Code's
 * own types are in `code-agent-sdk/claude`, the transport's in `code-agent-sdk/transport`, the
 * installer's in `code-agent-sdk/install`.
 *
 * @example
 * ```ts
 * import type { McpStdioServerConfig, PermissionResultAllow } from "code-agent-sdk/types";
 * ```
 * @packageDocumentation
 */

export type { GatedControl, MissingControls, WithControlsOf } from "./api/controls.js";
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
export type { AgentSdkClientConstructor, FullAgentSdkClient } from "./client.js";
export type {
  McpHttpServerConfig,
  McpSdkServerConfig,
  McpServerConfig,
  McpServerToolPolicy,
  McpSseServerConfig,
  McpStdioServerConfig,
} from "./mcp/config.js";
export type { SdkMcpServer, SdkMcpToolDefinition, ToolArgs, ZodShape } from "./mcp/tool.js";
export type {
  AssistantMessage,
  AssistantMessageError,
  ContentBlock,
  ErrorKind,
  Message,
  RawObject,
  ResultMessage,
  StreamEventMessage,
  SystemMessage,
  TextBlock,
  ThinkingBlock,
  TokenUsage,
  ToolResultBlock,
  ToolUseBlock,
  UnknownBlock,
  UnknownMessage,
  UserMessage,
} from "./messages.js";
export type {
  AcpAgentOptions,
  AcpAgentPreset,
  AcpOptions,
  AgentOptions,
  BackendKind,
  BackendOf,
  ClaudeAgentOptions,
  CodexAgentOptions,
  CodexConfigValue,
  CodexOptions,
  CommonOptions,
  CursorAgentOptions,
  CursorOptions,
  Effort,
  OptionsFor,
  OutputFormat,
} from "./options.js";
export type {
  CanUseTool,
  PermissionResult,
  PermissionResultAllow,
  PermissionResultDeny,
  PermissionRuleValue,
  PermissionUpdate,
  PermissionUpdateDestination,
  ToolPermissionContext,
} from "./permissions.js";
export type {
  ImageInputBlock,
  Prompt,
  StreamedUserInput,
  TextInputBlock,
  UserContentBlock,
  WireUserMessage,
} from "./prompt.js";
export type { FullQuery, Query, QueryControls, QueryParams } from "./query.js";
export type {
  CliTelemetryOptions,
  TelemetryMeterProvider,
  TelemetryOptions,
  TelemetryTracerProvider,
  TraceContextCarrier,
} from "./telemetry/types.js";
export type {
  BashInput,
  EditInput,
  FileChange,
  GlobInput,
  GrepInput,
  ReadInput,
  TaskInput,
  TodoItem,
  TodoWriteInput,
  ToolCall,
  ToolInputs,
  ToolName,
  WebFetchInput,
  WebSearchInput,
  WriteInput,
} from "./tools.js";
export type { TurnResult } from "./turn.js";
export type { ClaimInfo, ClaimOptions } from "./warm/claim.js";
export type { ClaimedClient, ClaimedQuery, PrewarmParams } from "./warm/spare.js";
export type { WarmPoolOptions, WarmPoolStats } from "./warm/warm-pool.js";
export type { StartupParams, WarmSessionState } from "./warm/warm-session.js";
