/**
 * This SDK's token counts (one shape for every backend) → the AI SDK's usage. A count the CLI did
 * not report stays `undefined`, never a made-up zero.
 */
import type { LanguageModelV3Usage } from "@ai-sdk/provider";
import type { ResultMessage } from "../messages.js";
import type { BackendKind } from "../options.js";

type Json = LanguageModelV3Usage["raw"];

/**
 * The usage of a turn. Claude Code counts cached input apart from `inputTokens`; Codex counts it
 * inside, and its output count includes reasoning: both are read so that `inputTokens.total` is
 * every input token and `outputTokens.text` excludes reasoning.
 */
export function usageOf(
  result: ResultMessage | undefined,
  backend: BackendKind,
  raw: Json,
): LanguageModelV3Usage {
  const t = result?.tokenUsage;
  const input = t?.inputTokens ?? undefined;
  const output = t?.outputTokens ?? undefined;
  const cacheRead = t?.cacheReadInputTokens ?? undefined;
  const cacheWrite = t?.cacheCreationInputTokens ?? undefined;
  const reasoning = t?.reasoningOutputTokens ?? undefined;
  const cachedInside = backend === "codex";
  const total =
    input === undefined ? undefined : cachedInside ? input : input + (cacheRead ?? 0) + (cacheWrite ?? 0);
  const noCache =
    input === undefined ? undefined : cachedInside ? Math.max(0, input - (cacheRead ?? 0)) : input;
  const text =
    output === undefined
      ? undefined
      : cachedInside && reasoning !== undefined
        ? Math.max(0, output - reasoning)
        : output;
  return {
    inputTokens: { total, noCache, cacheRead, cacheWrite },
    outputTokens: { total: output, text, reasoning },
    ...(raw === undefined ? {} : { raw }),
  };
}
