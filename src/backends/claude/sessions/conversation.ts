/**
 * A transcript's conversation as messages: the `parentUuid` chain from the newest entry back to
 * the root, without meta entries. Shared by the transcripts on disk (`transcript.ts`) and those in a
 * `SessionStore` (`store-helpers.ts`).
 */
import type { ContentBlock, RawObject } from "../../../messages.js";
import { parseClaudeContentBlock } from "../message-parser.js";
import type { GetSessionMessagesOptions, SessionMessage } from "./types.js";

/** Entry types that take part in the conversation chain (the rest is bookkeeping). */
export const CHAIN_TYPES: ReadonlySet<string> = new Set([
  "user",
  "assistant",
  "attachment",
  "system",
  "progress",
]);

/**
 * The conversation: the chain of entries from the newest user/assistant/system entry back to the
 * root through `parentUuid`, oldest first. `sidechain` selects a subagent's entries instead of the
 * main thread's.
 */
export function conversationChain(entries: readonly RawObject[], sidechain: boolean): RawObject[] {
  const byUuid = new Map<string, RawObject>();
  let leaf: RawObject | undefined;
  for (const entry of entries) {
    if (typeof entry.uuid !== "string" || typeof entry.type !== "string" || !CHAIN_TYPES.has(entry.type))
      continue;
    if ((entry.isSidechain === true) !== sidechain) continue;
    byUuid.set(entry.uuid, entry);
    if (entry.type === "user" || entry.type === "assistant" || entry.type === "system") leaf = entry;
  }
  const chain: RawObject[] = [];
  const seen = new Set<string>();
  for (let at = leaf; at !== undefined; ) {
    const uuid = at.uuid as string;
    if (seen.has(uuid)) break; // A damaged file must not loop forever.
    seen.add(uuid);
    chain.push(at);
    at = typeof at.parentUuid === "string" ? byUuid.get(at.parentUuid) : undefined;
  }
  return chain.reverse();
}

/** The conversation of a main transcript's or a subagent transcript's entries, as messages. */
export function messagesOf(
  entries: readonly RawObject[],
  sidechain: boolean,
  options: GetSessionMessagesOptions,
  parents: { parentToolUseId: string | null; parentAgentId: string | null },
): SessionMessage[] {
  return toMessages(conversationChain(entries, sidechain), options, parents);
}

function toMessages(
  chain: readonly RawObject[],
  options: GetSessionMessagesOptions,
  parents: { parentToolUseId: string | null; parentAgentId: string | null },
): SessionMessage[] {
  const visible = chain.filter(
    (e) =>
      (e.type === "user" ||
        e.type === "assistant" ||
        (e.type === "system" && options.includeSystemMessages === true)) &&
      e.isMeta !== true &&
      e.teamName === undefined,
  );
  const offset = Math.max(0, options.offset ?? 0);
  const limit = options.limit !== undefined && options.limit > 0 ? options.limit : Number.POSITIVE_INFINITY;
  return visible.slice(offset, offset + limit).map((e) => toMessage(e, parents));
}

function toMessage(
  entry: RawObject,
  parents: { parentToolUseId: string | null; parentAgentId: string | null },
): SessionMessage {
  const message = entry.message;
  const out: SessionMessage = {
    type: entry.type as SessionMessage["type"],
    uuid: entry.uuid as string,
    sessionId: typeof entry.sessionId === "string" ? entry.sessionId : "",
    message,
    content: contentOf(entry),
    parentToolUseId: parents.parentToolUseId,
    parentAgentId: parents.parentAgentId,
    raw: entry,
  };
  if (typeof entry.timestamp === "string") out.timestamp = entry.timestamp;
  if (entry.isCompactSummary === true) out.isCompactSummary = true;
  if (entry.isCompactSummary === true || entry.isVisibleInTranscriptOnly === true) out.isMeta = true;
  if (entry.type === "user" && isLocalCommandRecord(out.content)) out.isCompletedLocalCommand = true;
  return out;
}

/** What the CLI writes for a local slash command: the command line, then its output. */
function isLocalCommandRecord(content: string | ContentBlock[]): boolean {
  return (
    typeof content === "string" && /^<(command-name|local-command-stdout|local-command-stderr)>/.test(content)
  );
}

function contentOf(entry: RawObject): string | ContentBlock[] {
  const message = entry.message;
  const content =
    typeof message === "object" && message !== null ? (message as RawObject).content : undefined;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map(parseClaudeContentBlock);
  // System entries keep their text in `content` at the top level.
  return typeof entry.content === "string" ? entry.content : [];
}
