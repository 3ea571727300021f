/**
 * Reading a stored conversation: `getSessionMessages`, `listSubagents`, `getSubagentMessages`.
 *
 * A transcript is not a plain list: every entry names its `parentUuid`, and a rewind, a retry or an
 * edited prompt leaves branches behind. The conversation is the chain from the newest message back
 * to the root — what the CLI itself loads on `--resume`.
 */
import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { SessionNotFoundError } from "../../../errors.js";
import type { ContentBlock, RawObject } from "../../../messages.js";
import { parseClaudeContentBlock } from "../message-parser.js";
import {
  assertSessionId,
  findSession,
  findSessionOrUndefined,
  isMissing,
  projectsDirOf,
  readEntries,
} from "./store.js";
import { listSubagentsInStore, sessionMessagesInStore, subagentMessagesInStore } from "./store-helpers.js";
import type { GetSessionMessagesOptions, SessionLocationOptions, SessionMessage } from "./types.js";

/** Entry types that take part in the conversation chain (the rest is bookkeeping). */
export const CHAIN_TYPES: ReadonlySet<string> = new Set([
  "user",
  "assistant",
  "attachment",
  "system",
  "progress",
]);

/**
 * Reads a session's conversation (official `getSessionMessages`): its user and assistant messages
 * in order, following the `parentUuid` chain from the newest message, without meta entries
 * (system reminders, command caveats) or subagent messages. An unknown session gives `[]`, as in
 * the official SDK.
 *
 * @example
 * ```ts
 * for (const m of await getSessionMessages(sessionId)) console.log(m.type, m.content);
 * ```
 */
export async function getSessionMessages(
  sessionId: string,
  options: GetSessionMessagesOptions = {},
): Promise<SessionMessage[]> {
  assertSessionId(sessionId);
  if (options.sessionStore !== undefined)
    return sessionMessagesInStore(options.sessionStore, sessionId, options);
  const file = await findSessionOrUndefined(sessionId, options);
  if (file === undefined) return [];
  const entries = await readEntries(file.path);
  return toMessages(conversationChain(entries, false), options, {
    parentToolUseId: null,
    parentAgentId: null,
  });
}

/**
 * The ids of the subagents (`Task`/`Agent` tool runs) a session started, from the files the CLI
 * keeps in `<sessionId>/subagents/` (official `listSubagents`). An unknown session gives `[]`.
 */
export async function listSubagents(
  sessionId: string,
  options: SessionLocationOptions = {},
): Promise<string[]> {
  assertSessionId(sessionId);
  if (options.sessionStore !== undefined)
    return listSubagentsInStore(options.sessionStore, sessionId, options);
  const file = await findSessionOrUndefined(sessionId, options);
  if (file === undefined) return [];
  return (await subagentFiles(join(file.projectDir, sessionId, "subagents"))).map((f) => f.agentId);
}

/**
 * Reads one subagent's conversation (official `getSubagentMessages`). Each message carries the tool
 * call that started the subagent in `parentToolUseId` (and, for a nested subagent, the starting
 * agent in `parentAgentId`).
 *
 * @throws SessionNotFoundError when the session or the subagent transcript does not exist.
 */
export async function getSubagentMessages(
  sessionId: string,
  agentId: string,
  options: GetSessionMessagesOptions = {},
): Promise<SessionMessage[]> {
  assertSessionId(sessionId);
  if (options.sessionStore !== undefined) {
    return subagentMessagesInStore(options.sessionStore, sessionId, agentId, options);
  }
  const file = await findSession(sessionId, options);
  const found = (await subagentFiles(join(file.projectDir, sessionId, "subagents"))).find(
    (f) => f.agentId === agentId,
  );
  if (found === undefined) {
    throw new SessionNotFoundError(
      `${sessionId}/${agentId}`,
      options.dir,
      projectsDirOf(options),
      "Subagent",
    );
  }
  const meta = await readMeta(found.path.replace(/\.jsonl$/, ".meta.json"));
  const entries = await readEntries(found.path);
  return toMessages(conversationChain(entries, true), options, {
    parentToolUseId: typeof meta.toolUseId === "string" ? meta.toolUseId : null,
    parentAgentId: typeof meta.parentAgentId === "string" ? meta.parentAgentId : null,
  });
}

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

/** A subagent transcript file. */
interface SubagentFile {
  agentId: string;
  path: string;
}

/** `agent-<id>.jsonl` files under `dir`, nested folders included, sorted by id. */
async function subagentFiles(dir: string): Promise<SubagentFile[]> {
  const out: SubagentFile[] = [];
  const walk = async (at: string, depth: number): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(at, { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for (const entry of entries) {
      if (entry.isDirectory() && depth < MAX_DEPTH) await walk(join(at, entry.name), depth + 1);
      else if (entry.isFile() && entry.name.startsWith("agent-") && entry.name.endsWith(".jsonl")) {
        out.push({
          agentId: entry.name.slice("agent-".length, -".jsonl".length),
          path: join(at, entry.name),
        });
      }
    }
  };
  await walk(dir, 0);
  return out.sort((a, b) => (a.agentId < b.agentId ? -1 : a.agentId > b.agentId ? 1 : 0));
}

/** Nesting depth of subagent folders followed; a bound against symlink loops. */
const MAX_DEPTH = 8;

async function readMeta(path: string): Promise<RawObject> {
  try {
    const value: unknown = JSON.parse(await readFile(path, "utf8"));
    return typeof value === "object" && value !== null ? (value as RawObject) : {};
  } catch {
    return {}; // The meta file is optional: older CLIs did not write it.
  }
}
