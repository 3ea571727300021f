/**
 * The provider: `createCodeAgent(settings?)` and the default instance `codeAgent`.
 */
import type { ProviderV3 } from "@ai-sdk/provider";
import { UnsupportedFeatureError } from "../errors.js";
import { ParkedRuns } from "./approvals.js";
import { CodeAgentLanguageModel, type Turn } from "./language-model.js";
import { type CodeAgentModelId, parseModelId } from "./model-id.js";
import type { CodeAgentSettings } from "./settings.js";

/**
 * A provider of coding agents for the AI SDK: call it with a model id (and settings) for a
 * language model to pass to `generateText`, `streamText`, `generateObject`, ….
 */
export interface CodeAgentProvider extends ProviderV3 {
  /** A model for `modelId`; `settings` are laid over the provider's. */
  (modelId: CodeAgentModelId, settings?: CodeAgentSettings): CodeAgentLanguageModel;
  /** The same as calling the provider. */
  languageModel(modelId: CodeAgentModelId, settings?: CodeAgentSettings): CodeAgentLanguageModel;
}

/**
 * Creates a provider whose models start coding-agent CLIs through this SDK.
 *
 * @param defaults - Settings every model of this provider starts from (a model's own settings
 * replace them key by key; `env` is merged).
 * @example
 * const agent = createCodeAgent({ cwd: "/srv/repo", permissionMode: "acceptEdits" });
 * const { text } = await generateText({ model: agent("claude/opus"), prompt: "Fix the failing test" });
 */
export function createCodeAgent(defaults: CodeAgentSettings = {}): CodeAgentProvider {
  // Turns waiting for an approval (`toolApproval: "ai-sdk"`), found again by any model of this provider.
  const parked = new ParkedRuns<Turn>();
  const languageModel = (
    modelId: CodeAgentModelId,
    settings: CodeAgentSettings = {},
  ): CodeAgentLanguageModel => {
    const id = parseModelId(modelId);
    const env = defaults.env || settings.env ? { ...defaults.env, ...settings.env } : undefined;
    return new CodeAgentLanguageModel(
      modelId,
      id,
      { ...defaults, ...settings, ...(env ? { env } : {}) },
      parked,
    );
  };
  const unsupported = (kind: string) => () => {
    throw new UnsupportedFeatureError(kind, "code-agent");
  };
  return Object.assign(languageModel, {
    specificationVersion: "v3" as const,
    languageModel,
    embeddingModel: unsupported("embeddingModel"),
    imageModel: unsupported("imageModel"),
  });
}

/** The default provider: `codeAgent("claude")`, `codeAgent("codex/gpt-5.1-codex")`, `codeAgent("acp/gemini")`. */
export const codeAgent: CodeAgentProvider = createCodeAgent();
