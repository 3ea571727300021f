/**
 * The session helpers on a {@link SessionStore} instead of the local files (`{ sessionStore }`), as
 * the official SDK's helpers do it: a session is `store.load({ projectKey, sessionId })`, with
 * `projectKey` the CLI's folder name for `dir` (default: the current directory). Every store call
 * goes through `store-calls`: a failure or an answer that is not what the interface says is a
 * `SessionStoreError` naming the call.
 */
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { InvalidOptionsError, SessionNotFoundError } from "../../../errors.js";
import type { RawObject } from "../../../messages.js";
import { messagesOf } from "./conversation.js";
import { describe } from "./describe.js";
import { describeInBatches, HEAD_TAIL_BYTES, isProgrammaticEntrypoint, parseEntries } from "./store.js";
import {
  callStore,
  checkedEntries,
  checkedListing,
  checkedSubkeys,
  checkedSummaries,
  entriesAsJsonl,
  keyWhat,
} from "./store-calls.js";
import { projectKeyOf } from "./store-keys.js";
import type { SessionKey, SessionStore, SessionStoreEntry } from "./store-types.js";
import { infoOfSummary } from "./summary.js";
import type {
  GetSessionMessagesOptions,
  ListSessionsOptions,
  SessionInfo,
  SessionLocationOptions,
  SessionMessage,
} from "./types.js";

/** The key of a session's main transcript for these options. */
export function storeKey(sessionId: string, options: SessionLocationOptions): SessionKey {
  return { projectKey: projectKeyOf(options.dir ?? process.cwd()), sessionId };
}

function notInStore(sessionId: string, key: SessionKey, what = "Session"): SessionNotFoundError {
  return new SessionNotFoundError(sessionId, undefined, `sessionStore project ${key.projectKey}`, what);
}

/** `listSessions({ sessionStore })`: the store's sessions of the project, newest first. */
export async function listSessionsInStore(
  store: SessionStore,
  options: ListSessionsOptions,
): Promise<SessionInfo[]> {
  if (store.listSessionSummaries !== undefined && options.includeProgrammatic !== false) {
    return listFromSummaries(store, options);
  }
  if (store.listSessions === undefined) {
    throw new InvalidOptionsError([
      "sessionStore: listSessions() is not implemented by this store, so its sessions cannot be listed",
    ]);
  }
  const { projectKey } = storeKey("", options);
  const listed = await listingOf(store, projectKey);
  const sorted = [...listed].sort(
    (a, b) => b.mtime - a.mtime || (a.sessionId < b.sessionId ? 1 : a.sessionId > b.sessionId ? -1 : 0),
  );
  const offset = Math.max(0, options.offset ?? 0);
  const limit = options.limit !== undefined && options.limit > 0 ? options.limit : Number.POSITIVE_INFINITY;
  // Without a programmatic filter only the page is loaded; with one, every session must be looked at.
  const candidates = options.includeProgrammatic === false ? sorted : sorted.slice(offset, offset + limit);
  const described = await describeInBatches(candidates, ({ sessionId, mtime }) =>
    describeStored(store, projectKey, sessionId, mtime, options.includeProgrammatic === false),
  );
  return options.includeProgrammatic === false ? described.slice(offset, offset + limit) : described;
}

/**
 * Listing from `listSessionSummaries` in one call, as the official SDK does: a summary older than
 * the session's `listSessions` time, or a session without one, is described by loading it; a
 * summary of a session `listSessions` no longer has is left out.
 */
async function listFromSummaries(store: SessionStore, options: ListSessionsOptions): Promise<SessionInfo[]> {
  const { projectKey } = storeKey("", options);
  const dir = resolvedDir(options.dir);
  const what = `for project ${projectKey}`;
  const summaries = checkedSummaries(
    await callStore("listSessionSummaries", what, () =>
      (store.listSessionSummaries as NonNullable<SessionStore["listSessionSummaries"]>).call(
        store,
        projectKey,
      ),
    ),
    what,
  );
  const listed =
    store.listSessions === undefined
      ? undefined
      : new Map((await listingOf(store, projectKey)).map((s) => [s.sessionId, s.mtime] as const));
  // `info`: `undefined` = to be loaded; `null` = summarized with nothing to title it by (left out).
  const rows: { sessionId: string; mtime: number; info?: SessionInfo | null }[] = [];
  for (const summary of summaries) {
    const listedTime = listed?.get(summary.sessionId);
    if (listed !== undefined && listedTime === undefined) continue;
    if (listedTime !== undefined && summary.mtime < listedTime) {
      rows.push({ sessionId: summary.sessionId, mtime: listedTime });
    } else {
      rows.push({
        sessionId: summary.sessionId,
        mtime: summary.mtime,
        info: infoOfSummary(summary, dir) ?? null,
      });
    }
  }
  const summarized = new Set(summaries.map((s) => s.sessionId));
  for (const [sessionId, mtime] of listed ?? [])
    if (!summarized.has(sessionId)) rows.push({ sessionId, mtime });
  rows.sort((a, b) => b.mtime - a.mtime);
  const offset = Math.max(0, options.offset ?? 0);
  const limit = options.limit !== undefined && options.limit > 0 ? options.limit : Number.POSITIVE_INFINITY;
  const page = rows.slice(offset, offset + limit);
  const out: SessionInfo[] = [];
  for (const row of page) {
    if (row.info === null) continue;
    if (row.info !== undefined) {
      out.push(row.info);
      continue;
    }
    const info = await describeStored(store, projectKey, row.sessionId, row.mtime, false);
    if (info !== undefined) out.push(info);
  }
  return out;
}

/** `listSessions(projectKey)`, checked. */
async function listingOf(
  store: SessionStore,
  projectKey: string,
): Promise<{ sessionId: string; mtime: number }[]> {
  const what = `for project ${projectKey}`;
  return checkedListing(
    await callStore("listSessions", what, () =>
      (store.listSessions as NonNullable<SessionStore["listSessions"]>).call(store, projectKey),
    ),
    what,
  );
}

/** `load(key)`, checked: `null` when nothing is stored. */
async function loadChecked(store: SessionStore, key: SessionKey): Promise<SessionStoreEntry[] | null> {
  const what = keyWhat(key);
  return checkedEntries(await callStore("load", what, () => store.load(key)), what);
}

/**
 * One listed session, described by loading it. A session whose `load` fails (or answers what
 * cannot be read) is still listed, with an empty summary, as the official SDK lists it: one
 * unreadable session does not hide the others (reading it with `getSessionInfo` or
 * `getSessionMessages` reports the failure).
 */
async function describeStored(
  store: SessionStore,
  projectKey: string,
  sessionId: string,
  mtime: number,
  skipProgrammatic: boolean,
): Promise<SessionInfo | undefined> {
  const lastModified = Math.trunc(mtime);
  let info: SessionInfo | undefined;
  try {
    const entries = await loadChecked(store, { projectKey, sessionId });
    if (entries === null || entries.length === 0) return undefined;
    if (skipProgrammatic && isProgrammatic(entries)) return undefined;
    info = describeEntries(sessionId, entries, lastModified);
  } catch {
    return { sessionId, summary: "", lastModified };
  }
  return info === undefined ? undefined : { ...info, lastModified };
}

function resolvedDir(dir: string | undefined): string {
  return resolve(dir ?? process.cwd());
}

function isProgrammatic(entries: readonly SessionStoreEntry[]): boolean {
  return isProgrammaticEntrypoint(entries.find((e) => typeof e.entrypoint === "string")?.entrypoint);
}

/** `getSessionInfo(id, { sessionStore })`: modified at its last entry's time. */
export async function sessionInfoInStore(
  store: SessionStore,
  sessionId: string,
  options: SessionLocationOptions,
): Promise<SessionInfo | undefined> {
  const entries = await loadChecked(store, storeKey(sessionId, options));
  if (entries === null || entries.length === 0) return undefined;
  const timestamp = entries.at(-1)?.timestamp;
  const lastTime = typeof timestamp === "string" ? Date.parse(timestamp) : Number.NaN;
  return describeEntries(sessionId, entries, Number.isNaN(lastTime) ? Date.now() : lastTime);
}

/** A session's description from its entries, read as the JSONL file they would make. */
function describeEntries(
  sessionId: string,
  entries: readonly SessionStoreEntry[],
  mtimeMs: number,
): SessionInfo | undefined {
  const text = entriesAsJsonl(entries, `for session ${sessionId}`);
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= 2 * HEAD_TAIL_BYTES) {
    const all = parseEntries(text);
    return describe(sessionId, { head: all, tail: all, size: bytes.length, mtimeMs });
  }
  const head = bytes.subarray(0, HEAD_TAIL_BYTES).toString("utf8");
  const tail = bytes.subarray(bytes.length - HEAD_TAIL_BYTES).toString("utf8");
  return describe(sessionId, {
    head: parseEntries(head.slice(0, head.lastIndexOf("\n") + 1)),
    tail: parseEntries(tail.slice(tail.indexOf("\n") + 1)),
    size: bytes.length,
    mtimeMs,
  });
}

/** `getSessionMessages(id, { sessionStore })`. */
export async function sessionMessagesInStore(
  store: SessionStore,
  sessionId: string,
  options: GetSessionMessagesOptions,
): Promise<SessionMessage[]> {
  const entries = await loadChecked(store, storeKey(sessionId, options));
  if (entries === null || entries.length === 0) return [];
  return messagesOf(entries as RawObject[], false, options, { parentToolUseId: null, parentAgentId: null });
}

/** `listSubagents(id, { sessionStore })`: from the store's subpaths (needs `listSubkeys`). */
export async function listSubagentsInStore(
  store: SessionStore,
  sessionId: string,
  options: SessionLocationOptions,
): Promise<string[]> {
  const listSubkeys = requireListSubkeys(store);
  const key = storeKey(sessionId, options);
  const ids = new Set<string>();
  for (const subpath of await subkeysOf(store, listSubkeys, key)) {
    const name = subpath.split("/").at(-1) ?? "";
    if (subpath.startsWith("subagents/") && name.startsWith("agent-")) ids.add(name.slice("agent-".length));
  }
  return [...ids];
}

/** `getSubagentMessages(id, agentId, { sessionStore })`. */
export async function subagentMessagesInStore(
  store: SessionStore,
  sessionId: string,
  agentId: string,
  options: GetSessionMessagesOptions,
): Promise<SessionMessage[]> {
  const key = storeKey(sessionId, options);
  let subpath = `subagents/agent-${agentId}`;
  if (store.listSubkeys !== undefined) {
    // Nested subagents live deeper (`subagents/workflows/…/agent-<id>`).
    const found = (await subkeysOf(store, store.listSubkeys, key)).find(
      (s) => s.startsWith("subagents/") && s.split("/").at(-1) === `agent-${agentId}`,
    );
    if (found === undefined) throw notInStore(`${sessionId}/${agentId}`, key, "Subagent");
    subpath = found;
  }
  const entries = await loadChecked(store, { ...key, subpath });
  if (entries === null || entries.length === 0) {
    throw notInStore(`${sessionId}/${agentId}`, key, "Subagent");
  }
  const meta = entries.filter((e) => e.type === "agent_metadata").at(-1);
  return messagesOf(entries.filter((e) => e.type !== "agent_metadata") as RawObject[], true, options, {
    parentToolUseId: typeof meta?.toolUseId === "string" ? meta.toolUseId : null,
    parentAgentId: typeof meta?.parentAgentId === "string" ? meta.parentAgentId : null,
  });
}

/** `renameSession` / `tagSession` with a store: the same entry, appended to the store. */
export async function appendToStore(
  store: SessionStore,
  sessionId: string,
  entry: RawObject,
  options: SessionLocationOptions,
): Promise<void> {
  const key = storeKey(sessionId, options);
  await callStore("append", `for session ${sessionId}`, () =>
    store.append(key, [
      { ...entry, uuid: randomUUID(), timestamp: new Date().toISOString() } as SessionStoreEntry,
    ]),
  );
}

/** `deleteSession(id, { sessionStore })`: `store.delete` when the store has one, else nothing. */
export async function deleteInStore(
  store: SessionStore,
  sessionId: string,
  options: SessionLocationOptions,
): Promise<void> {
  const key = storeKey(sessionId, options);
  await callStore("delete", `for session ${sessionId}`, () => store.delete?.(key));
}

/** Loads a session's main transcript, or throws {@link SessionNotFoundError}. */
export async function loadOrThrow(
  store: SessionStore,
  sessionId: string,
  options: SessionLocationOptions,
): Promise<{ key: SessionKey; entries: SessionStoreEntry[] }> {
  const key = storeKey(sessionId, options);
  const entries = await loadChecked(store, key);
  if (entries === null || entries.length === 0) throw notInStore(sessionId, key);
  return { key, entries };
}

/** `listSubkeys(key)`, checked. */
async function subkeysOf(
  store: SessionStore,
  listSubkeys: NonNullable<SessionStore["listSubkeys"]>,
  key: SessionKey,
): Promise<string[]> {
  const what = `for session ${key.sessionId}`;
  return checkedSubkeys(await callStore("listSubkeys", what, () => listSubkeys.call(store, key)), what);
}

function requireListSubkeys(store: SessionStore): NonNullable<SessionStore["listSubkeys"]> {
  if (store.listSubkeys === undefined) {
    throw new InvalidOptionsError([
      "sessionStore: listSubkeys() is not implemented by this store, so its subagents cannot be listed",
    ]);
  }
  return store.listSubkeys;
}
