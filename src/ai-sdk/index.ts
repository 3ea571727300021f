/**
 * `code-agent-sdk/ai-sdk`: every coding agent this SDK drives as a Vercel AI SDK provider
 * (`ai` 6 and 7; specification v3). Needs the optional peer dependencies `ai` and `@ai-sdk/provider`.
 *
 * @example
 * import { generateText } from "ai";
 * import { codeAgent } from "code-agent-sdk/ai-sdk";
 * const { text, providerMetadata } = await generateText({ model: codeAgent("claude"), prompt: "Hi" });
 * @packageDocumentation
 */
export { AgentTurnError, ApprovalNotPendingError } from "./errors.js";
export { CodeAgentLanguageModel } from "./language-model.js";
export { type CodeAgentPartMetadata, METADATA_KEY } from "./metadata.js";
export {
  ACP_PRESETS,
  type BackendOfModelId,
  type CodeAgentModelId,
  type ParsedModelId,
  parseModelId,
} from "./model-id.js";
export { type CodeAgentProvider, codeAgent, createCodeAgent } from "./provider.js";
export type { CodeAgentProviderSettings, CodeAgentSettings, CodeAgentSettingsFor } from "./settings.js";
export type { CodeAgentTool } from "./tools.js";
