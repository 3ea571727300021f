/**
 * ACP `session/list`: the pages an agent answers, read as untrusted output (a malformed page is a
 * typed error, a malformed entry is left out, unknown fields are ignored), followed by their
 * cursors up to a limit.
 */
import { MessageParseError } from "../../errors.js";
import type { RawObject } from "../../messages.js";
import { isObject } from "../../wire/read.js";
import { describeValue } from "../../wire/safe-json.js";

/** One session an ACP agent lists (`SessionInfo` of `session/list`). */
export interface AcpSessionInfo {
  /** The session's id: pass it as `resume` (with `forkSession: true` to fork it). */
  sessionId: string;
  /** The working directory the session belongs to, as the agent reports it. */
  cwd: string;
  /** A human-readable title, when the agent gives one. */
  title?: string;
  /** When the session was last active (ISO 8601, as the agent wrote it), when the agent gives it. */
  updatedAt?: string;
}

/** What to list: the `session/list` filter and how many. */
export interface AcpListQuery {
  /** Only the sessions of this working directory (an absolute path); omitted: every session. */
  dir?: string | undefined;
  /** At most this many sessions. */
  limit: number;
}

/** Default of `limit`: at most this many sessions are read. */
export const DEFAULT_ACP_LIST_LIMIT = 1000;

/**
 * At most this many `session/list` pages are requested. An agent whose list goes on past it (a
 * cursor that never ends, pages without entries) fails the listing with a `MessageParseError`
 * instead of keeping it running unbounded.
 */
export const MAX_ACP_LIST_PAGES = 1000;

/** One `session/list` answer, read. */
export interface AcpListPage {
  sessions: AcpSessionInfo[];
  /** The cursor of the next page; `undefined` on the last. */
  nextCursor: string | undefined;
}

/**
 * Reads one `session/list` answer. Entries without a non-empty string `sessionId` and a string
 * `cwd` (both required by the protocol) are left out; `title` and `updatedAt` are kept when they
 * are strings; every other field is ignored.
 *
 * @throws MessageParseError when the answer has no `sessions` array, or a `nextCursor` that is
 *   neither a string nor absent / null.
 */
export function readListPage(result: RawObject, agent: string): AcpListPage {
  const { sessions, nextCursor } = result;
  if (!Array.isArray(sessions)) {
    throw new MessageParseError(
      `${agent} answered session/list without a sessions array (got ${describeValue(sessions)})`,
      result,
    );
  }
  if (nextCursor !== undefined && nextCursor !== null && typeof nextCursor !== "string") {
    throw new MessageParseError(
      `${agent} answered session/list with a nextCursor that is not a string (got ${describeValue(nextCursor)})`,
      result,
    );
  }
  const read: AcpSessionInfo[] = [];
  for (const entry of sessions) {
    const info = readSessionInfo(entry);
    if (info !== undefined) read.push(info);
  }
  return { sessions: read, nextCursor: typeof nextCursor === "string" ? nextCursor : undefined };
}

/** One `SessionInfo`, or `undefined` when it lacks what the protocol requires. */
function readSessionInfo(entry: unknown): AcpSessionInfo | undefined {
  if (!isObject(entry)) return undefined;
  const { sessionId, cwd, title, updatedAt } = entry;
  if (typeof sessionId !== "string" || sessionId === "" || typeof cwd !== "string") return undefined;
  return {
    sessionId,
    cwd,
    ...(typeof title === "string" ? { title } : {}),
    ...(typeof updatedAt === "string" ? { updatedAt } : {}),
  };
}

/**
 * Pages through `session/list` with `request` (one bounded request each): the first page, then
 * each `nextCursor`, until `query.limit` sessions are read or the agent has no more.
 *
 * @throws MessageParseError for a malformed page, a page whose `nextCursor` is the cursor it was
 *   asked for (the list would never end), or more than {@link MAX_ACP_LIST_PAGES} pages; whatever
 *   `request` throws.
 */
export async function pageSessions(
  request: (params: RawObject) => Promise<RawObject>,
  query: AcpListQuery,
  agent: string,
): Promise<AcpSessionInfo[]> {
  const listed: AcpSessionInfo[] = [];
  let cursor: string | undefined;
  for (let pages = 0; listed.length < query.limit; pages++) {
    if (pages === MAX_ACP_LIST_PAGES) {
      throw new MessageParseError(
        `${agent}'s session/list went on for more than ${MAX_ACP_LIST_PAGES} pages; listing stopped`,
        { pages, sessions: listed.length },
      );
    }
    const params: RawObject = {
      ...(query.dir !== undefined ? { cwd: query.dir } : {}),
      ...(cursor !== undefined ? { cursor } : {}),
    };
    const page = readListPage(await request(params), agent);
    listed.push(...page.sessions.slice(0, query.limit - listed.length));
    if (page.nextCursor === undefined) break;
    if (page.nextCursor === cursor) {
      // A longer cycle runs into MAX_ACP_LIST_PAGES.
      throw new MessageParseError(
        `${agent} answered session/list with the cursor it was asked for (${describeValue(cursor)}): its list would never end`,
        { nextCursor: cursor },
      );
    }
    cursor = page.nextCursor;
  }
  return listed;
}
