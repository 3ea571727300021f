/**
 * What an AI SDK (`ai` 7) caller sees of one scripted scenario, in a form two providers can be
 * compared on: the order of stream part types (runs of one delta type collapsed, since providers
 * cut deltas differently), the text, the object, the tool calls, usage and the finish reason.
 */
import type { LanguageModel, ModelMessage } from "ai-v7";
import { z } from "zod";

type Ai7 = typeof import("ai-v7");

/** One observation. */
export interface Seen {
  types: string[];
  text: string;
  toolCalls: { name: string; providerExecuted: boolean | undefined; input: unknown }[];
  toolResults: string[];
  finishReason: string;
  usage: { input: number | undefined; output: number | undefined };
  object?: unknown;
  error?: string;
}

const DELTAS = new Set(["text-delta", "reasoning-delta", "tool-input-delta"]);

/** Stream part types in order; a run of one delta type counts once. */
function collapse(types: string[]): string[] {
  return types.filter((t, i) => !(DELTAS.has(t) && types[i - 1] === t));
}

/** Runs `streamText` and reads everything the caller can see. `onPart` may abort. */
export async function observe(
  ai: Ai7,
  model: LanguageModel,
  input: { prompt: string } | { messages: ModelMessage[] },
  options: {
    abortAtFirstText?: AbortController;
    /** Aborts with `controller` once `when` settles (e.g. the scripted model received the stalled request). */
    abortWhen?: { controller: AbortController; when: Promise<unknown> };
    object?: boolean;
  } = {},
): Promise<Seen & { responseMessages: ModelMessage[] }> {
  const result = ai.streamText({
    model,
    ...input,
    ...(options.object ? { output: ai.Output.object({ schema: z.object({ answer: z.number() }) }) } : {}),
    ...(options.abortAtFirstText ? { abortSignal: options.abortAtFirstText.signal } : {}),
    ...(options.abortWhen ? { abortSignal: options.abortWhen.controller.signal } : {}),
  });
  const abortWhen = options.abortWhen;
  // A wait that never matched rejects when its server closes: the scenario then shows no abort.
  if (abortWhen)
    void abortWhen.when.then(
      () => abortWhen.controller.abort(),
      () => undefined,
    );
  const types: string[] = [];
  let error: string | undefined;
  try {
    for await (const part of result.fullStream) {
      types.push(part.type);
      if (part.type === "error") error = String((part.error as Error)?.message ?? part.error);
      if (part.type === "text-delta" && options.abortAtFirstText && !options.abortAtFirstText.signal.aborted)
        options.abortAtFirstText.abort();
    }
  } catch (e) {
    error = String((e as Error)?.message ?? e);
  }
  const aborted =
    options.abortAtFirstText?.signal.aborted === true ||
    options.abortWhen?.controller.signal.aborted === true;
  const safe = async <T>(p: PromiseLike<T>, fallback: T): Promise<T> => {
    try {
      return await p;
    } catch {
      return fallback;
    }
  };
  const content = aborted ? [] : await safe(result.content, []);
  const usage = aborted ? undefined : await safe(result.usage, undefined);
  const response = aborted ? undefined : await safe(result.response, undefined);
  const seen: Seen & { responseMessages: ModelMessage[] } = {
    types: collapse(types),
    text: aborted ? "" : await safe(result.text, ""),
    toolCalls: content
      .filter((p) => p.type === "tool-call")
      .map((p) => ({ name: p.toolName, providerExecuted: p.providerExecuted, input: p.input })),
    toolResults: content.filter((p) => p.type === "tool-result").map((p) => JSON.stringify(p.output)),
    finishReason: aborted ? "aborted" : await safe(result.finishReason, "none"),
    usage: { input: usage?.inputTokens, output: usage?.outputTokens },
    responseMessages: response?.messages ?? [],
    ...(error ? { error } : {}),
  };
  if (options.object && !aborted) seen.object = await safe(result.output, undefined);
  return seen;
}
