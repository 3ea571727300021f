/**
 * Token counts from any CLI's usage object, into the one shape every backend's `result` carries.
 * Anthropic (Claude Code): `input_tokens`, `output_tokens`, `cache_read_input_tokens`,
 * `cache_creation_input_tokens`. OpenAI (Codex): `input_tokens` (cached included),
 * `cached_input_tokens`, `cache_write_input_tokens`, `output_tokens`, `reasoning_output_tokens`. Cursor: `inputTokens`,
 * `outputTokens`, `cacheReadTokens`, `cacheWriteTokens`.
 */
import type { TokenUsage } from "../messages.js";
import { isObject } from "../wire/read.js";

/** The token counts of a usage object, or `null` when there is none. A missing count stays `null`. */
export function tokenUsage(usage: unknown): TokenUsage | null {
  if (!isObject(usage)) return null;
  const count = (...keys: string[]) => {
    for (const key of keys) {
      const value = usage[key];
      if (typeof value === "number" && Number.isFinite(value)) return value;
    }
    return null;
  };
  return {
    inputTokens: count("input_tokens", "inputTokens"),
    outputTokens: count("output_tokens", "outputTokens"),
    cacheReadInputTokens: count("cache_read_input_tokens", "cached_input_tokens", "cacheReadTokens"),
    cacheCreationInputTokens: count(
      "cache_creation_input_tokens",
      "cache_write_input_tokens",
      "cacheWriteTokens",
    ),
    reasoningOutputTokens: count("reasoning_output_tokens", "reasoningTokens"),
  };
}
