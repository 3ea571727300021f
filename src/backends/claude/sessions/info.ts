/**
 * Describing stored sessions: `listSessions` and `getSessionInfo`.
 *
 * A transcript can be many megabytes; only its first and last 64 KiB are read. Everything that
 * describes a session is at one end: the first prompt, cwd and creation time at the head; titles,
 * tags, the last prompt and the branch are appended as the session goes on, so the newest are at
 * the tail.
 */
import { join } from "node:path";
import type { RawObject } from "../../../messages.js";
import { readOptionalFile } from "../../../process/regular-files.js";
import { archivedOf, readArchiveMark } from "./archive.js";
import { describe, firstString, lastOfType, lastString } from "./describe.js";
import {
  assertSessionId,
  describeInBatches,
  findSessionOrUndefined,
  type HeadTail,
  isProgrammaticEntrypoint,
  isSessionId,
  projectDirs,
  readdirOrEmpty,
  readHeadTail,
} from "./store.js";
import { listSessionsInStore, sessionInfoInStore } from "./store-helpers.js";
import type { ListSessionsOptions, SessionInfo, SessionLocationOptions } from "./types.js";

/**
 * Lists stored Claude Code sessions, newest first (official `listSessions`).
 *
 * With `dir`, the sessions of that project directory; without, of every project. Subagent
 * transcripts are not sessions and are not listed; files that hold no conversation (nothing to
 * title them by) are skipped. With `sessionStore`, the store's sessions; one whose `load` fails is
 * listed with an empty `summary` (as the official SDK lists it), and its own `getSessionInfo` reports
 * the failure.
 *
 * @example
 * ```ts
 * const recent = await listSessions({ dir: process.cwd(), limit: 10 });
 * for (const s of recent) console.log(s.sessionId, s.summary);
 * ```
 */
export async function listSessions(options: ListSessionsOptions = {}): Promise<SessionInfo[]> {
  if (options.sessionStore !== undefined) return listSessionsInStore(options.sessionStore, options);
  const files: { sessionId: string; path: string }[] = [];
  for (const projectDir of await projectDirs(options)) {
    for (const name of await readdirOrEmpty(projectDir)) {
      if (!name.endsWith(".jsonl")) continue;
      const sessionId = name.slice(0, -".jsonl".length);
      if (isSessionId(sessionId)) files.push({ sessionId, path: join(projectDir, name) });
    }
  }
  const described = await describeInBatches(files, ({ sessionId, path }) =>
    describeFile(sessionId, path, options),
  );
  // One session id in two project folders (a moved project): keep the newer.
  const byId = new Map<string, SessionInfo>();
  for (const info of described) {
    const seen = byId.get(info.sessionId);
    if (seen === undefined || info.lastModified > seen.lastModified) byId.set(info.sessionId, info);
  }
  // Newest first; on equal times the larger id first, as the official SDK orders them.
  const sorted = [...byId.values()].sort(
    (a, b) =>
      b.lastModified - a.lastModified || (a.sessionId < b.sessionId ? 1 : a.sessionId > b.sessionId ? -1 : 0),
  );
  const offset = Math.max(0, options.offset ?? 0);
  const limit = options.limit !== undefined && options.limit > 0 ? options.limit : Number.POSITIVE_INFINITY;
  return sorted.slice(offset, offset + limit);
}

/**
 * Describes one session (official `getSessionInfo`); `undefined` when it is not found or holds no
 * conversation. Reads only that session's file.
 */
export async function getSessionInfo(
  sessionId: string,
  options: SessionLocationOptions = {},
): Promise<SessionInfo | undefined> {
  assertSessionId(sessionId);
  if (options.sessionStore !== undefined) return sessionInfoInStore(options.sessionStore, sessionId, options);
  const file = await findSessionOrUndefined(sessionId, options);
  return file === undefined ? undefined : describeFile(sessionId, file.path, {});
}

async function describeFile(
  sessionId: string,
  path: string,
  options: ListSessionsOptions,
): Promise<SessionInfo | undefined> {
  let ends: HeadTail | undefined;
  try {
    ends = await readHeadTail(path);
  } catch {
    return undefined; // Unreadable: not a session this process can describe.
  }
  // Deleted between listing and reading, or not a regular file: not a session.
  if (ends === undefined || ends.size === 0) return undefined;
  if (options.includeProgrammatic === false) {
    const entrypoint = firstString(ends.head, "entrypoint") ?? lastString(ends.tail, "entrypoint");
    if (isProgrammaticEntrypoint(entrypoint)) return undefined;
  }
  const sidecar =
    lastOfType(ends.tail, "custom-title", "customTitle") === undefined
      ? await readTitleSidecar(path)
      : undefined;
  const info = describe(sessionId, ends, sidecar);
  if (info === undefined) return undefined;
  const archived = archivedOf(await readArchiveMark(path, sessionId), ends);
  if (archived !== undefined) info.archived = archived;
  return info;
}

/**
 * The title the CLI also keeps beside the transcript (`<sessionId>/custom-title.json`, written by
 * `/rename`), which outlives its entry scrolling out of the tail window.
 */
export async function readTitleSidecar(transcriptPath: string): Promise<string | undefined> {
  try {
    const text = await readOptionalFile(titleSidecarPath(transcriptPath), SIDECAR_MAX_BYTES);
    if (text === undefined) return undefined;
    const value: unknown = JSON.parse(text);
    const title = (value as RawObject | null)?.customTitle;
    return typeof title === "string" && title.trim() !== "" ? title.trim() : undefined;
  } catch {
    return undefined; // Absent or damaged: the transcript's entries decide.
  }
}

/** A title file larger than this is not one (the CLI writes a few dozen bytes). */
const SIDECAR_MAX_BYTES = 64 * 1024;

/** `<projectDir>/<sessionId>/custom-title.json` for `<projectDir>/<sessionId>.jsonl`. */
export function titleSidecarPath(transcriptPath: string): string {
  return join(transcriptPath.replace(/\.jsonl$/, ""), "custom-title.json");
}
