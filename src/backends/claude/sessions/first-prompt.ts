/**
 * The prompt a session is listed by, as the CLI and the official SDK show it: the first typed
 * prompt (newlines folded, cut to 200 UTF-16 units with an ellipsis), `! cmd` for a `!` shell
 * input, a slash command's name when nothing else was typed, and "Image" / "Document" for a
 * session that began with an attachment alone.
 */
import type { RawObject } from "../../../messages.js";

/** Longest prompt shown, in UTF-16 units, before an ellipsis. */
const PROMPT_CHARS = 200;
/** Text the CLI writes itself rather than a person: a tag, or an interruption note. */
const MARKUP = /^(?:\s*<[a-z][\w-]*[\s>]|\[Request interrupted by user[^\]]*\])/;

/**
 * The prompt a `user` entry holds as the CLI shows it in session lists, or `undefined`; a slash
 * command's name is remembered in `state.commandFallback` (used when no prompt is found).
 */
export function promptOf(entry: RawObject, state: { commandFallback: string }): string | undefined {
  if (entry.type !== "user" || entry.isMeta === true || entry.isCompactSummary === true) return undefined;
  const message = entry.message as RawObject | undefined;
  if (typeof message !== "object" || message === null) return undefined;
  const texts: string[] = [];
  if (typeof message.content === "string") texts.push(message.content);
  else if (Array.isArray(message.content)) {
    for (const block of message.content as unknown[]) {
      if (typeof block !== "object" || block === null) continue;
      const b = block as RawObject;
      if (b.type === "tool_result") return undefined;
      if (b.type === "text" && typeof b.text === "string") texts.push(b.text);
    }
  }
  for (const raw of texts) {
    let text = raw.replaceAll("\n", " ").trim();
    if (text === "") continue;
    const command = /<command-name>(.*?)<\/command-name>/.exec(text);
    if (command) {
      if (!state.commandFallback) state.commandFallback = command[1] ?? "";
      continue;
    }
    const bash = /<bash-input>([\s\S]*?)<\/bash-input>/.exec(text);
    if (bash) return `! ${(bash[1] ?? "").trim()}`;
    if (MARKUP.test(text)) continue;
    if (text.length > PROMPT_CHARS) text = `${cutUtf16(text, PROMPT_CHARS).trim()}…`;
    return text;
  }
  return undefined;
}

/** The first `length` UTF-16 units of `text`, without splitting a surrogate pair. */
function cutUtf16(text: string, length: number): string {
  const cut = text.slice(0, length);
  const last = cut.charCodeAt(length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/**
 * The first prompt of a transcript's head (see {@link promptOf}); the first slash command's name
 * when no prompt was typed.
 */
export function firstPromptOf(entries: readonly RawObject[]): string | undefined {
  const state = { commandFallback: "" };
  for (const entry of entries) {
    const prompt = promptOf(entry, state);
    if (prompt !== undefined) return prompt;
  }
  return state.commandFallback || undefined;
}

/**
 * "Image" or "Document" when the first prompt-like entry holding an attachment has one — the
 * label of a session that began with an attachment and no text.
 */
export function attachmentLabelOf(entries: readonly RawObject[]): string | undefined {
  for (const entry of entries) {
    if (entry.type !== "user" || entry.isMeta === true) continue;
    const content = (entry.message as RawObject | undefined)?.content;
    if (!Array.isArray(content)) continue;
    const types = new Set(content.map((block) => (block as RawObject | null)?.type));
    if (types.has("tool_result")) continue;
    if (types.has("image")) return "Image";
    if (types.has("document")) return "Document";
  }
  return undefined;
}
