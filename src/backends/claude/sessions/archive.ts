/**
 * Archiving sessions: `archiveSession`, `unarchiveSession` and the `archived` field of
 * {@link SessionInfo}.
 *
 * The mark is a file beside the transcript, `<projectDir>/<sessionId>/archived.json`, holding
 * `{"archived":true|false,"at":"<ISO time>","by":"sdk"}` — the file the official SDK 0.3.330 writes
 * and claude 2.1.330 reads and writes too (`by: "cli"`: its session picker archives, and a prompt
 * arriving in an archived session makes it write `archived: false`; its retention sweep keeps the
 * file with the session). A prompt in the transcript newer than `at` counts as unarchiving even
 * where nothing rewrote the mark (e.g. a transcript written elsewhere), as in the official SDK.
 */
import { join } from "node:path";
import { InvalidOptionsError, SessionNotFoundError } from "../../../errors.js";
import type { RawObject } from "../../../messages.js";
import { readOptionalFile, replaceFile } from "../../../process/regular-files.js";
import { assertSessionId, findSessionFiles, type HeadTail, projectsDirOf } from "./store.js";
import type { SessionMutationOptions } from "./types.js";

/** Largest mark read; a bigger file is not one the SDK or the CLI wrote. */
const MARK_MAX_BYTES = 4096;

/**
 * Archives a session (official `archiveSession`): it stays on disk and `listSessions` still
 * returns it, with `archived: true`, until it is unarchived or a prompt is sent in it. Neither the
 * transcript nor a process running the session is touched.
 *
 * @throws SessionNotFoundError for an unknown session; InvalidOptionsError when `sessionStore` is
 * passed (the mark is a local file, which a store does not hold), as the official SDK does.
 */
export async function archiveSession(sessionId: string, options: SessionMutationOptions = {}): Promise<void> {
  await setArchived(sessionId, true, options);
}

/**
 * Unarchives a session (official `unarchiveSession`): `listSessions` then returns it with
 * `archived: false`.
 *
 * @throws SessionNotFoundError for an unknown session; InvalidOptionsError when `sessionStore` is
 * passed.
 */
export async function unarchiveSession(
  sessionId: string,
  options: SessionMutationOptions = {},
): Promise<void> {
  await setArchived(sessionId, false, options);
}

async function setArchived(
  sessionId: string,
  archived: boolean,
  options: SessionMutationOptions,
): Promise<void> {
  assertSessionId(sessionId);
  if (options.sessionStore !== undefined) {
    throw new InvalidOptionsError([
      "sessionStore: archiving is not supported with a sessionStore — a store holds transcript entries, and the archived mark is not one",
    ]);
  }
  const files = await findSessionFiles(sessionId, options);
  if (files.length === 0) throw new SessionNotFoundError(sessionId, options.dir, projectsDirOf(options));
  const mark = JSON.stringify({ archived, at: new Date().toISOString(), by: "sdk" });
  // Every copy of the session (a moved project can leave two) carries the mark, as in the official SDK.
  // Replaced whole (a reader never sees half a mark), in a real `<sessionId>` folder: the agent
  // writes these folders, and a link there is refused, not written through.
  await Promise.all(files.map((file) => replaceFile(markPath(file.path, sessionId), mark)));
}

/** `<projectDir>/<sessionId>/archived.json` for the transcript `<projectDir>/<sessionId>.jsonl`. */
export function markPath(transcriptPath: string, sessionId: string): string {
  return join(transcriptPath.slice(0, -`${sessionId}.jsonl`.length), sessionId, "archived.json");
}

/** A session's archive mark as read from disk. */
export interface ArchiveMark {
  archived: boolean;
  /** When it was set, ms since the epoch. */
  atMs: number;
}

/** Reads a session's mark; `undefined` when there is none or it is not one (too big, malformed). */
export async function readArchiveMark(
  transcriptPath: string,
  sessionId: string,
): Promise<ArchiveMark | undefined> {
  // No mark (or not a regular file of at most MARK_MAX_BYTES): the session was never archived.
  const text = await readOptionalFile(markPath(transcriptPath, sessionId), MARK_MAX_BYTES);
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as RawObject;
    // `at` must carry its zone (`Z` or an offset), as the official schema requires.
    if (typeof value.archived !== "boolean" || typeof value.at !== "string") return undefined;
    if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(value.at)) return undefined;
    const atMs = Date.parse(value.at);
    return Number.isNaN(atMs) ? undefined : { archived: value.archived, atMs };
  } catch {
    return undefined;
  }
}

/**
 * The `archived` field of a session: absent without a mark, `false` when unarchived, and `false`
 * too when a prompt was sent in the session after it was archived.
 */
export function archivedOf(mark: ArchiveMark | undefined, ends: HeadTail): boolean | undefined {
  if (mark?.archived !== true) return mark?.archived;
  const promptedSince = (entries: RawObject[]) =>
    entries.some((e) => {
      const at = promptTime(e);
      return at !== undefined && at > mark.atMs;
    });
  return !(promptedSince(ends.tail) || (ends.head !== ends.tail && promptedSince(ends.head)));
}

/** Entry flags that mean "not something a person sent". */
const NOT_TYPED_FLAGS = [
  "isCompactSummary",
  "isSidechain",
  "isVirtual",
  "isVisibleInTranscriptOnly",
  "isMeta",
  "textNotTyped",
  "handedOff",
  "queueSkipAttachments",
] as const;

/** Opening of text the CLI writes itself rather than a person (tags, interruption notes). */
const MARKUP = /^(?:\s*<[a-z][\w-]*[\s>]|\[Request interrupted by user[^\]]*\])/;

/**
 * When a prompt a person (or program) sent was written, for a `user` entry or a queued command;
 * `undefined` for anything else: tool results, meta entries, the CLI's own markup. The same test
 * the official SDK applies.
 */
function promptTime(entry: RawObject): number | undefined {
  if (typeof entry.timestamp !== "string") return undefined;
  let content: unknown;
  let origin: unknown;
  let isUser = false;
  if (entry.type === "user") {
    const message = entry.message as RawObject | undefined;
    if (typeof message !== "object" || message === null || !("content" in message)) return undefined;
    if (NOT_TYPED_FLAGS.some((flag) => entry[flag] !== undefined && entry[flag] !== false)) return undefined;
    content = message.content;
    origin = entry.origin;
    isUser = true;
  } else if (entry.type === "attachment") {
    if (entry.isSidechain !== undefined && entry.isSidechain !== false) return undefined;
    const attachment = entry.attachment as RawObject | undefined;
    if (attachment?.type !== "queued_command" || !("prompt" in attachment)) return undefined;
    if (attachment.isMeta !== undefined && attachment.isMeta !== false) return undefined;
    content = attachment.prompt;
    origin = attachment.origin;
  } else return undefined;
  if (origin !== undefined && (origin as RawObject | null)?.kind !== "human") return undefined;
  const blocks: RawObject[] =
    typeof content === "string"
      ? [{ type: "text", text: content }]
      : Array.isArray(content)
        ? content.filter((b): b is RawObject => typeof b === "object" && b !== null)
        : [];
  if (blocks.some((b) => b.type === "tool_result")) return undefined;
  const texts = blocks.map((b) => (typeof b.text === "string" ? b.text.trimStart() : ""));
  const typed =
    origin !== undefined
      ? texts.some((t) => t !== "") && !texts.some((t) => t.startsWith("<command-name>"))
      : (isUser && hasPromptText(blocks)) || texts.some((t) => t.startsWith("<command-message>"));
  if (!typed && !blocks.some((b) => b.type === "image" || b.type === "document")) return undefined;
  const at = Date.parse(entry.timestamp);
  return Number.isNaN(at) ? undefined : at;
}

/** Text a person typed: not empty, not a slash command's record, not the CLI's markup. */
function hasPromptText(blocks: RawObject[]): boolean {
  for (const block of blocks) {
    if (block.type !== "text" || typeof block.text !== "string") continue;
    const text = block.text.replaceAll("\n", " ").trim();
    if (text === "" || /<command-name>(.*?)<\/command-name>/.test(text)) continue;
    if (/<bash-input>([\s\S]*?)<\/bash-input>/.test(text)) return true;
    if (!MARKUP.test(text)) return true;
  }
  return false;
}
