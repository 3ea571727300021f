/**
 * The provider: `createCodeAgent(settings?)` and the default instance `codeAgent`.
 */
import type { ProviderV3 } from "@ai-sdk/provider";
import { UnsupportedFeatureError } from "../errors.js";
import { ParkedRuns } from "./approvals.js";
import { CodeAgentLanguageModel, type Turn } from "./language-model.js";
import { type BackendOfModelId, type CodeAgentModelId, parseModelId } from "./model-id.js";
import type { CodeAgentSettings, CodeAgentSettingsFor } from "./settings.js";

/**
 * A provider of coding agents for the AI SDK: call it with a model id (and settings) for a
 * language model to pass to `generateText`, `streamText`, `generateObject`, ….
 */
export interface CodeAgentProvider extends ProviderV3 {
  /**
   * A model for `modelId`; `settings` (typed for the backend the id names: a Claude-only option on
   * a `"codex/…"` model does not compile) are laid over the provider's.
   */
  <M extends CodeAgentModelId>(
    modelId: M,
    settings?: CodeAgentSettingsFor<BackendOfModelId<M>>,
  ): CodeAgentLanguageModel;
  /** The same as calling the provider. */
  languageModel<M extends CodeAgentModelId>(
    modelId: M,
    settings?: CodeAgentSettingsFor<BackendOfModelId<M>>,
  ): CodeAgentLanguageModel;
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
  const languageModel = <M extends CodeAgentModelId>(
    modelId: M,
    modelSettings: CodeAgentSettingsFor<BackendOfModelId<M>> = {} as CodeAgentSettingsFor<
      BackendOfModelId<M>
    >,
  ): CodeAgentLanguageModel => {
    // Every backend's options fit the provider-wide shape; the backend reads its own.
    const settings = modelSettings as CodeAgentSettings;
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
