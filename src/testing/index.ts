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

export type { RecordedRequest, ScriptedBlock, ScriptedTurn } from "./anthropic/script.js";
export type {
  FakeAnthropicOptions,
  FakeAnthropicServer,
  WaitForRequestOptions,
} from "./anthropic/server.js";
export { startFakeAnthropic } from "./anthropic/server.js";
export type { SseEvent } from "./anthropic/sse.js";
export { parseSseEvents } from "./anthropic/sse.js";
export type { ClaudeTestEnv } from "./claude-env.js";
export { createClaudeTestEnv, FAKE_ANTHROPIC_API_KEY } from "./claude-env.js";
