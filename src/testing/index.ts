/**
 * Test utilities shipped as `code-agent-sdk/testing`: a scripted fake Anthropic Messages API that the
 * real `claude` CLI can run against offline, and an isolated-environment helper.
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
export { REDACTED, Redactor } from "../transport/redact.js";
export { ReplayError, ReplayTransport } from "../transport/replay.js";
export type { RecordedRequest, ScriptedBlock, ScriptedTurn } from "./anthropic/script.js";
export type {
  FakeAnthropicOptions,
  FakeAnthropicServer,
  WaitForRequestOptions,
} from "./anthropic/server.js";
export { startFakeAnthropic } from "./anthropic/server.js";
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
export type { SseEvent } from "./shared/sse.js";
export { parseSseEvents } from "./shared/sse.js";
