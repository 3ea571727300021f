/**
 * code-agent-sdk: drive coding-agent CLIs (Claude Code, Codex, Cursor Agent, ACP agents) through one
 * typed API. This entry holds what a user of any backend needs: `query()` and `AgentSdkClient`, the
 * options typed per backend, the messages, the errors, prompt and tool helpers, in-process MCP
 * tools, warm handles and telemetry options. Every name is listed here (no wildcard re-exports).
 *
 * The rest lives in subpaths named for what they hold:
 * - `code-agent-sdk/claude`: Claude Code's own surface (stored sessions and session stores, hooks,
 *   control results, settings, Claude's system events, the official SDK's option tables);
 * - `code-agent-sdk/install`: the opt-in CLI installer;
 * - `code-agent-sdk/transport`: transports, the spawn hook, recording and replay, output errors;
 * - `code-agent-sdk/types`: every type of the API above, by name (option sections, MCP server
 *   configs, permission results, tool inputs, warm handle stats, …);
 * - `code-agent-sdk/testing`, `code-agent-sdk/queue`, `code-agent-sdk/ai-sdk`,
 *   `code-agent-sdk/compat/claude-agent-sdk`, `code-agent-sdk/compat/codex-sdk`.
 *
 * Importing any entry starts nothing: no timer, no process, no backend load
 * (see {@link preloadWhenIdle} to ask for one).
 * @packageDocumentation
 */
export type { Backend, Capabilities, ServerInfo } from "./backends/backend.js";
export { getBackend, loadBackend, preloadWhenIdle } from "./backends/registry.js";
export { AgentSdkClient, INTERRUPT_SETTLE_TIMEOUT_MS, UNREAD_RESPONSE_WARNING } from "./client.js";
export {
  AbortError,
  AgentSdkError,
  CliConnectionError,
  CliNotFoundError,
  ControlRequestError,
  ControlTimeoutError,
  InvalidOptionsError,
  NotConnectedError,
  ProcessError,
  SessionNotFoundError,
  TimeoutError,
  TurnInProgressError,
  UnreadResponseError,
  UnsupportedFeatureError,
  UnsupportedOptionsError,
  WarmStartError,
} from "./errors.js";
export { CliInstallError } from "./install/errors.js";
export type { McpServerConfig } from "./mcp/config.js";
export { createSdkMcpServer, type SdkMcpServer, type SdkMcpToolDefinition, tool } from "./mcp/tool.js";
export {
  type AssistantMessage,
  type ContentBlock,
  type ErrorKind,
  isResult,
  isSystemMessage,
  type Message,
  type ResultMessage,
  type StreamEventMessage,
  type SystemMessage,
  type TextBlock,
  type ThinkingBlock,
  type TokenUsage,
  type ToolResultBlock,
  type ToolUseBlock,
  textDeltaOf,
  textOf,
  type UnknownMessage,
  type UserMessage,
} from "./messages.js";
export type {
  AcpAgentOptions,
  AcpOptions,
  AgentOptions,
  BackendKind,
  BackendOf,
  ClaudeAgentOptions,
  CodexAgentOptions,
  CodexOptions,
  CommonOptions,
  CursorAgentOptions,
  CursorOptions,
  Effort,
  OptionsFor,
  OutputFormat,
} from "./options.js";
export type { CanUseTool, PermissionResult, ToolPermissionContext } from "./permissions.js";
export { image, type Prompt, type StreamedUserInput, text, type UserContentBlock } from "./prompt.js";
export { type Query, type QueryControls, type QueryParams, query } from "./query.js";
export { currentTraceContext } from "./telemetry/trace-context.js";
export type { TelemetryOptions } from "./telemetry/types.js";
export {
  isTool,
  mcpToolName,
  parseMcpToolName,
  TOOL_NAMES,
  type ToolCall,
  type ToolInputs,
  type ToolName,
  toolCall,
  toolCallOf,
} from "./tools.js";
export { collectTurn, type TurnResult } from "./turn.js";
export { SDK_VERSION } from "./version.js";
export type { ClaimOptions } from "./warm/claim.js";
export { type PrewarmParams, prewarm, SpareSession } from "./warm/spare.js";
export { WarmPool, type WarmPoolOptions } from "./warm/warm-pool.js";
export { type StartupParams, startup, WarmSession } from "./warm/warm-session.js";
