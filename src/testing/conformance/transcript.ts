/**
 * The unified transcript a conformance scenario compares: what an agent did, reduced to what must be
 * the same on every backend.
 *
 * Kept: assistant text (consecutive texts joined, empty ones dropped), tool calls (name and input),
 * tool results (whether they failed), results (error flag, text, structured output).
 * Dropped: system messages, stream events, thinking, the user's own prompts, and Claude Code's
 * `StructuredOutput` tool call (its way of returning structured output, which other agents return
 * as the answer text; the result's `structuredOutput` is what is compared). An assistant text that
 * is exactly the JSON of the result's structured output is dropped for the same reason.
 */
import type { Message } from "../../messages.js";

/** One entry of a unified transcript. */
export type TranscriptEntry =
  | { type: "text"; text: string }
  | { type: "tool_use"; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; isError: boolean }
  | { type: "result"; isError: boolean; result?: string; structuredOutput?: unknown };

/** An expected entry: tool inputs are matched on the keys given; a `RegExp` matches a string value. */
export type ExpectedEntry =
  | { type: "text"; text: string | RegExp }
  | { type: "tool_use"; name: string; input?: Record<string, unknown> }
  | { type: "tool_result"; isError: boolean }
  | { type: "result"; isError: boolean; result?: string | RegExp; structuredOutput?: unknown };

const STRUCTURED_OUTPUT_TOOL = "StructuredOutput";

/** Reduces a session's messages to its unified transcript. */
export function unifiedTranscript(messages: readonly Message[]): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  const hidden = new Set<string>();
  for (const message of messages) {
    if (message.type === "assistant") {
      for (const block of message.content) {
        if (block.type === "text" && block.text !== "") {
          const last = out.at(-1);
          if (last?.type === "text") last.text += block.text;
          else out.push({ type: "text", text: block.text });
        } else if (block.type === "tool_use") {
          if (block.name === STRUCTURED_OUTPUT_TOOL) hidden.add(block.id);
          else out.push({ type: "tool_use", name: block.name, input: block.input });
        }
      }
    } else if (message.type === "user" && Array.isArray(message.content)) {
      for (const block of message.content) {
        if (block.type === "tool_result" && !hidden.has(block.toolUseId))
          out.push({ type: "tool_result", isError: block.isError });
      }
    } else if (message.type === "result") {
      const entry: TranscriptEntry = { type: "result", isError: message.isError };
      if (message.structuredOutput !== undefined) {
        entry.structuredOutput = message.structuredOutput;
        const last = out.at(-1);
        if (last?.type === "text" && sameJson(last.text, message.structuredOutput)) out.pop();
      } else if (message.result !== undefined && message.result !== "") {
        entry.result = message.result;
      }
      out.push(entry);
    }
  }
  return out;
}

/** Differences between a transcript and the expected one; empty when they match. */
export function compareTranscript(actual: TranscriptEntry[], expected: ExpectedEntry[]): string[] {
  const problems: string[] = [];
  const length = Math.max(actual.length, expected.length);
  for (let i = 0; i < length; i++) {
    const got = actual[i];
    const want = expected[i];
    if (!got || !want) {
      problems.push(`entry ${i}: expected ${describe(want)}, got ${describe(got)}`);
      continue;
    }
    const problem = compareEntry(got, want);
    if (problem) problems.push(`entry ${i}: ${problem}`);
  }
  return problems;
}

function compareEntry(got: TranscriptEntry, want: ExpectedEntry): string | undefined {
  if (got.type !== want.type) return `expected ${describe(want)}, got ${describe(got)}`;
  switch (want.type) {
    case "text":
      return matches((got as { text: string }).text, want.text) ? undefined : `text ${describe(got)}`;
    case "tool_use": {
      const use = got as { name: string; input: Record<string, unknown> };
      if (use.name !== want.name) return `tool ${use.name}, expected ${want.name}`;
      for (const [key, value] of Object.entries(want.input ?? {})) {
        if (!matches(use.input[key], value))
          return `${want.name} input.${key} is ${JSON.stringify(use.input[key])}, expected ${String(value)}`;
      }
      return undefined;
    }
    case "tool_result":
      return (got as { isError: boolean }).isError === want.isError
        ? undefined
        : `tool_result isError ${!want.isError}, expected ${want.isError}`;
    case "result": {
      const result = got as Extract<TranscriptEntry, { type: "result" }>;
      if (result.isError !== want.isError)
        return `result isError ${result.isError}, expected ${want.isError}`;
      if (want.result !== undefined && !matches(result.result, want.result))
        return `result text ${JSON.stringify(result.result)}, expected ${String(want.result)}`;
      if (
        want.structuredOutput !== undefined &&
        !sameJson(JSON.stringify(result.structuredOutput), want.structuredOutput)
      )
        return `structuredOutput ${JSON.stringify(result.structuredOutput)}, expected ${JSON.stringify(want.structuredOutput)}`;
      return undefined;
    }
  }
}

function matches(value: unknown, want: unknown): boolean {
  if (want instanceof RegExp) return typeof value === "string" && want.test(value);
  return JSON.stringify(value) === JSON.stringify(want);
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

function describe(entry: TranscriptEntry | ExpectedEntry | undefined): string {
  if (!entry) return "nothing";
  return JSON.stringify(entry, (_, v) => (v instanceof RegExp ? String(v) : v));
}
