/**
 * What the scripts of the fake API servers have in common: the recorded request, function turns,
 * and the ids, chunks and token counts the generated responses are made of.
 *
 * @module
 */

import { randomBytes } from "node:crypto";

/** One HTTP request received by a fake server. */
export interface RecordedHttpRequest {
  /** HTTP method, e.g. `POST`. */
  method: string;
  /** URL path without the query, e.g. `/v1/messages`. */
  path: string;
  /** Query string including the leading `?` (e.g. `?beta=true`), or `""`. */
  query: string;
  /** Request headers as Node received them (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or `undefined` when the body is empty or not valid JSON. */
  body: any;
  /** True when this request consumed a scripted turn. */
  scripted: boolean;
}

const MAX_FUNCTION_DEPTH = 16;

/**
 * Resolves a function turn: calls it with the request, again if it returns another function, until
 * a static turn comes back.
 *
 * @param turn - Any scripted turn.
 * @param request - The request the turn answers.
 * @param label - Prefix of the error message, e.g. `fake-openai`.
 * @returns The static turn.
 * @throws Error when functions return functions more than 16 times over.
 */
export async function callFunctionTurns<R, T>(
  turn: T | ((request: R) => T | Promise<T>),
  request: R,
  label: string,
): Promise<Exclude<T, (request: R) => unknown>> {
  let current: unknown = turn;
  for (let depth = 0; typeof current === "function"; depth++) {
    if (depth >= MAX_FUNCTION_DEPTH) throw new Error(`${label}: function turns nested too deeply`);
    current = await (current as (request: R) => unknown)(request);
  }
  return current as Exclude<T, (request: R) => unknown>;
}

/**
 * Random hex id with a prefix, e.g. `msg_1bdc1c3734f3a254934ae31b`.
 *
 * @param prefix - `msg`, `toolu`, `req`, ...
 * @returns `<prefix>_<24 hex chars>`.
 */
export function randomId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString("hex")}`;
}

/**
 * Rough token estimate (≈ 4 characters per token), never below 1.
 *
 * @param value - Any JSON-serialisable value or string.
 * @returns Estimated token count.
 */
export function estimateTokens(value: unknown): number {
  if (value === undefined) return 1;
  const s = typeof value === "string" ? value : JSON.stringify(value);
  return Math.max(1, Math.ceil((s?.length ?? 0) / 4));
}

/**
 * Splits a string into up to `parts` non-empty chunks on code-point boundaries (so surrogate pairs stay
 * whole). An empty string yields `[""]`.
 *
 * @param s - The string.
 * @param parts - Desired number of chunks (default 3).
 * @returns The chunks; joined, they equal `s`.
 */
export function splitChunks(s: string, parts = 3): string[] {
  const chars = Array.from(s);
  if (chars.length === 0) return [""];
  const size = Math.max(1, Math.ceil(chars.length / parts));
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

const LEADING_BLOCK = /^\s*<([A-Za-z_][\w-]*)(?:\s[^>]*)?>[\s\S]*?<\/\1>/;
const TRAILING_BLOCK = /<([A-Za-z_][\w-]*)(?:\s[^>]*)?>[\s\S]*?<\/\1>\s*$/;

/** Tags whose content is the user's own text (CodeBuddy Code's `<user_query>`): kept, unwrapped. */
const USER_TEXT_TAGS: ReadonlySet<string> = new Set(["user_query"]);
const USER_TEXT_BLOCKS = /<([A-Za-z_][\w-]*)(?:\s[^>]*)?>([\s\S]*?)<\/\1>/g;

/** A block's replacement: nothing for an injected context block, itself for a user-text block. */
const dropInjected = (block: string, tag: string): string => (USER_TEXT_TAGS.has(tag) ? block : "");

/**
 * Removes the `<tag>…</tag>` blocks an agent wraps around a user prompt (Copilot's leading
 * `<current_datetime>`, Kilo's trailing `<environment_details>`, Gemini's `<session_context>`,
 * Qwen's and CodeBuddy's `<system-reminder>`) from the start and end of a text, and trims it. A block
 * that holds the prompt itself (CodeBuddy Code's `<user_query>…</user_query>`) is kept: when only such
 * blocks are left, their contents joined with `"\n"` are the text (CodeBuddy sends a prompt cancelled
 * before it ran and the next one as two blocks of one message).
 *
 * @param text - A user message text.
 * @returns The text without leading and trailing tag blocks; `""` when it was only context blocks.
 */
export function stripInjectedBlocks(text: string): string {
  let s = text;
  for (let i = 0; i < 32; i++) {
    const next = s.replace(LEADING_BLOCK, dropInjected).replace(TRAILING_BLOCK, dropInjected);
    if (next === s) break;
    s = next;
  }
  s = s.trim();
  const queries: string[] = [];
  const rest = s.replace(USER_TEXT_BLOCKS, (block, tag: string, inner: string) => {
    if (!USER_TEXT_TAGS.has(tag)) return block;
    queries.push(inner.trim());
    return "";
  });
  return queries.length > 0 && rest.trim() === "" ? queries.join("\n") : s;
}
