/**
 * Reading a stored conversation: `getSessionMessages`, `listSubagents`, `getSubagentMessages`.
 *
 * A transcript is not a plain list: every entry names its `parentUuid`, and a rewind, a retry or an
 * edited prompt leaves branches behind. The conversation is the chain from the newest message back
 * to the root — what the CLI itself loads on `--resume`.
 */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { SessionNotFoundError } from "../../../errors.js";
import { messagesOf } from "./conversation.js";
import {
  assertSessionId,
  findSession,
  findSessionOrUndefined,
  isMissing,
  projectsDirOf,
  readEntries,
  readSubagentMeta,
} from "./store.js";
import { listSubagentsInStore, sessionMessagesInStore, subagentMessagesInStore } from "./store-helpers.js";
import type { GetSessionMessagesOptions, SessionLocationOptions, SessionMessage } from "./types.js";

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
  return messagesOf(entries, false, options, {
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
  // The meta file is optional: older CLIs did not write it.
  const meta = (await readSubagentMeta(found.path.replace(/\.jsonl$/, ".meta.json"))) ?? {};
  const entries = await readEntries(found.path);
  return messagesOf(entries, true, options, {
    parentToolUseId: typeof meta.toolUseId === "string" ? meta.toolUseId : null,
    parentAgentId: typeof meta.parentAgentId === "string" ? meta.parentAgentId : null,
  });
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
