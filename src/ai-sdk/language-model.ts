/**
 * The AI SDK language model (specification v3, which `ai` 6 uses and `ai` 7 still accepts) over
 * one agent turn: `doStream` runs `query()` and maps its messages to stream parts as the caller
 * reads them; `doGenerate` collects the same parts into content.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
  SharedV3ProviderMetadata,
} from "@ai-sdk/provider";
import { query } from "../query.js";
import { combineSignals } from "../signals/abort.js";
import type { ParsedModelId } from "./model-id.js";
import { PartMapper } from "./parts.js";
import { convertPrompt } from "./prompt.js";
import { type CodeAgentSettings, prepareCall, resumeTest } from "./settings.js";
import { callerToolName } from "./tools.js";

/** A coding agent as an AI SDK language model. Made by `createCodeAgent()(modelId, settings)`. */
export class CodeAgentLanguageModel implements LanguageModelV3 {
  /** The AI SDK provider specification this model implements. */
  readonly specificationVersion = "v3" as const;
  /** `code-agent.<backend>`. */
  readonly provider: string;
  /** The model id it was created with, e.g. `"claude/opus"`. */
  readonly modelId: string;
  /**
   * Image URLs are passed to the agent as they are (the CLI or its API fetches them); the AI SDK
   * downloads nothing for this provider.
   */
  readonly supportedUrls: Record<string, RegExp[]> = { "image/*": [/^https?:\/\//i] };

  constructor(
    modelId: string,
    private readonly id: ParsedModelId,
    private readonly settings: CodeAgentSettings,
  ) {
    this.modelId = modelId;
    this.provider = `code-agent.${id.backend}`;
  }

  /**
   * Runs one agent turn and streams it. The CLI starts when the stream is first read; cancelling the
   * stream, or the call's `abortSignal`, ends the CLI's process group.
   */
  async doStream(call: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const converted = convertPrompt(call.prompt, {
      backend: this.id.backend,
      allowResume: resumeTest(this.settings, this.id.backend),
    });
    const cancel = new AbortController();
    const signal = combineSignals(call.abortSignal, cancel.signal);
    const prepared = prepareCall(this.id, this.settings, call, converted, signal);
    const sdkTools = this.settings.sdkTools;
    const mapper = new PartMapper({
      backend: this.id.backend,
      nativeJson: prepared.nativeJson,
      toolName: (name) => callerToolName(name, sdkTools),
    });
    const includeRaw = call.includeRawChunks === true;
    // A warm process runs with its pool's options; only the abort signal is the call's own.
    const q = prepared.warmPool
      ? prepared.warmPool.query(prepared.prompt, { signal })
      : query({ prompt: prepared.prompt, options: prepared.options });
    let finished = false;
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      start(controller) {
        controller.enqueue({ type: "stream-start", warnings: prepared.warnings });
      },
      async pull(controller) {
        try {
          // Read until this message gives at least one part, so each pull makes progress.
          for (;;) {
            const next = await q.next();
            if (next.done) {
              finished = true;
              for (const part of mapper.finish()) controller.enqueue(part);
              controller.close();
              return;
            }
            if (includeRaw) controller.enqueue({ type: "raw", rawValue: next.value.raw });
            const parts = mapper.map(next.value);
            for (const part of parts) controller.enqueue(part);
            if (parts.length > 0 || includeRaw) return;
          }
        } catch (error) {
          finished = true;
          // Closing after a failure: the failure is what the caller needs to hear about.
          await q.close().catch(() => undefined);
          if (signal.aborted) {
            // The AI SDK reports its own abort from the errored stream.
            controller.error(error);
            return;
          }
          // A failure (options the backend refuses, a CLI that cannot start or dies) is an error
          // part, as a provider reports an API failure, then the finish: streamText's onError and
          // the UI message stream show it; generateText throws it.
          controller.enqueue({ type: "error", error });
          for (const part of mapper.finish(true)) controller.enqueue(part);
          controller.close();
        }
      },
      async cancel() {
        if (finished) return;
        finished = true;
        cancel.abort();
        await q.close();
      },
    });
    return { stream, request: { body: { prompt: prepared.prompt, resume: prepared.options.resume } } };
  }

  /** Runs one agent turn to its end. A failed turn throws its `AgentTurnError`. */
  async doGenerate(call: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { stream, request } = await this.doStream(call);
    const content: LanguageModelV3Content[] = [];
    const texts = new Map<string, { type: "text" | "reasoning"; text: string }>();
    let warnings: LanguageModelV3GenerateResult["warnings"] = [];
    let finishReason: LanguageModelV3FinishReason = { unified: "other", raw: undefined };
    let usage: LanguageModelV3Usage | undefined;
    let providerMetadata: SharedV3ProviderMetadata | undefined;
    let response: LanguageModelV3GenerateResult["response"];
    let failure: { error: unknown } | undefined;
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value: part } = await reader.read();
        if (done) break;
        switch (part.type) {
          case "stream-start":
            warnings = part.warnings;
            break;
          case "response-metadata":
            response = { id: part.id, timestamp: part.timestamp, modelId: part.modelId };
            break;
          case "text-start":
          case "reasoning-start": {
            const entry = {
              type: part.type === "text-start" ? ("text" as const) : ("reasoning" as const),
              text: "",
              ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
            };
            texts.set(part.id, entry);
            content.push(entry);
            break;
          }
          case "text-delta":
          case "reasoning-delta": {
            const entry = texts.get(part.id);
            if (entry) entry.text += part.delta;
            break;
          }
          case "tool-call":
          case "tool-result":
          case "tool-approval-request":
          case "file":
          case "source":
            content.push(part);
            break;
          case "error":
            failure ??= { error: part.error };
            break;
          case "finish":
            finishReason = part.finishReason;
            usage = part.usage;
            providerMetadata = part.providerMetadata;
            break;
          default:
            break;
        }
      }
    } finally {
      reader.releaseLock();
    }
    if (failure) throw failure.error;
    return {
      content,
      finishReason,
      usage: usage ?? {
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      },
      ...(providerMetadata ? { providerMetadata } : {}),
      ...(request ? { request } : {}),
      ...(response ? { response } : {}),
      warnings,
    };
  }
}
