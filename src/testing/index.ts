/**
 * Test utilities shipped as `code-agent-sdk/testing`: scripted fake model APIs (Anthropic Messages,
 * OpenAI Responses, OpenAI Chat Completions, Gemini) that the real CLIs run against offline, and
 * helpers that point each CLI or ACP agent at them in an isolated environment.
 *
 * @example
 * ```ts
 * import { startFakeAnthropic } from "code-agent-sdk/testing";
 * await using api = await startFakeAnthropic({ turns: [{ text: "Hello!" }] });
 * // spawn `claude -p --output-format stream-json --verbose "hi"` with env: api.env()
 * ```
 *
 * @module
 */

export type {
  RecordedError,
  RecordedEvent,
  RecordingHeader,
  RecordOptions,
} from "../transport/recording.js";
export { RECORDING_FORMAT } from "../transport/recording.js";
export { KEPT_ENV_NAMES, REDACTED, Redactor } from "../transport/redact.js";
export { ReplayError, type ReplayOptions, ReplayTransport } from "../transport/replay.js";
export type {
  AcpAgentCommand,
  AcpAgentEnv,
  AcpAgentEnvOptions,
  AcpAgentModelApi,
  AcpAgentName,
  AcpAgentPreset,
  AgentToolCall,
} from "./acp-agents.js";
export {
  ACP_AGENT_NAMES,
  ACP_AGENTS,
  acpAgentUnavailableReason,
  createAcpAgentEnv,
  resolveAcpAgentCommand,
} from "./acp-agents.js";
export type { AgentModelOptions, AgentModelRequest, AgentModelServer, AgentTurn } from "./acp-model.js";
export { isToolFollowUp, startFakeModelForAgent, toAgentApiTurn, toolResultTexts } from "./acp-model.js";
export type { RecordedRequest, ScriptedBlock, ScriptedTurn } from "./anthropic/script.js";
export { STRUCTURED_OUTPUT_TOOL, structuredOutputTurns } from "./anthropic/script.js";
export type {
  FakeAnthropicOptions,
  FakeAnthropicServer,
  WaitForRequestOptions,
} from "./anthropic/server.js";
export { startFakeAnthropic } from "./anthropic/server.js";
export type {
  ChatToolCall,
  ChatToolResult,
  ChatTurn,
  ChatUsage,
  RecordedChatRequest,
} from "./chat/script.js";
export type { ChatSideCall, FakeChatCompletionsOptions, FakeChatCompletionsServer } from "./chat/server.js";
export { startFakeChatCompletions } from "./chat/server.js";
export type { ClaudeTestEnv } from "./claude-env.js";
export { createClaudeTestEnv, FAKE_ANTHROPIC_API_KEY } from "./claude-env.js";
export type {
  CodexHome,
  CodexHomeOptions,
  CodexMcpServerConfig,
} from "./codex-home.js";
export {
  CODEX_DEFAULT_MODEL,
  CODEX_FAKE_API_KEY,
  CODEX_FAKE_API_KEY_ENV,
  CODEX_FAKE_PROVIDER,
  codexConfigToml,
  createCodexHome,
} from "./codex-home.js";
export type { ModelStep, ModelStepKind } from "./conformance/model.js";
export { anthropicTurns, responsesTurns } from "./conformance/model.js";
export type {
  ConformanceBed,
  ConformanceOutcome,
  ConformanceResult,
  ConformanceTarget,
} from "./conformance/runner.js";
export {
  claudeConformanceTarget,
  codexConformanceTarget,
  conformanceTable,
  runConformance,
  runScenario,
  skipReason,
} from "./conformance/runner.js";
export type {
  ConformanceFeature,
  ConformanceScenario,
  ScenarioContext,
  ScenarioRun,
} from "./conformance/scenarios.js";
export { CONFORMANCE_SCENARIOS } from "./conformance/scenarios.js";
export type { ExpectedEntry, TranscriptEntry } from "./conformance/transcript.js";
export { compareTranscript, unifiedTranscript } from "./conformance/transcript.js";
export type {
  GeminiFunctionCall,
  GeminiFunctionResponse,
  GeminiTurn,
  GeminiUsage,
  RecordedGeminiRequest,
} from "./gemini/script.js";
export type { FakeGeminiOptions, FakeGeminiServer, GeminiSideCall } from "./gemini/server.js";
export { startFakeGemini } from "./gemini/server.js";
export type { ResponsesUsage, ResponsesWireItem } from "./openai/events.js";
export type {
  ExecCommandArguments,
  McpCallSpec,
  RecordedResponsesRequest,
  ResponsesOutputItem,
  ResponsesToolOutput,
  ResponsesTurn,
} from "./openai/script.js";
export { mcpNamespace, toolOutputText } from "./openai/script.js";
export type { FakeOpenAICodexHomeOptions, FakeOpenAIOptions, FakeOpenAIServer } from "./openai/server.js";
export { startFakeOpenAI } from "./openai/server.js";
export type { SideCall } from "./shared/side-calls.js";
export { sampleFromJsonSchema } from "./shared/side-calls.js";
export type { SseEvent } from "./shared/sse.js";
export { parseSseData, parseSseEvents } from "./shared/sse.js";
