/**
 * The shapes of an external session store (official `SessionStore`, `SessionKey`, …), which receives
 * a copy of every transcript line Claude Code writes (`options.sessionStore`) and can give a
 * session back for `options.resume`. Names and contracts follow `@anthropic-ai/claude-agent-sdk`
 * 0.3.330, so an adapter written for it works here unchanged.
 */

/**
 * Identifies a session transcript, or one of its subagent transcripts, in a {@link SessionStore}.
 * The CLI's on-disk path `<configDir>/projects/<projectKey>/<sessionId>.jsonl` gives the key of a
 * main transcript; `<sessionId>/<subpath>.jsonl` beside it gives a subagent's.
 */
export interface SessionKey {
  /**
   * The project the session belongs to: the CLI's folder name for its working directory (see
   * `encodeProjectDir`; paths longer than 200 characters are cut and get a hash). Multi-tenant
   * stores may prefix or map it, as long as `load` answers the key `append` was given.
   */
  projectKey: string;
  /** The session's UUID. */
  sessionId: string;
  /**
   * Absent for the main transcript. For a subagent transcript the path below the session's folder
   * without `.jsonl`, e.g. `subagents/agent-<agentId>`. Never the empty string. Opaque to stores:
   * use it as a key suffix.
   */
  subpath?: string;
}

/**
 * One JSONL transcript line as a {@link SessionStore} sees it. The full shape is Claude Code's
 * own transcript format (user/assistant messages, titles, tags, mode changes, …); stores should
 * treat entries as JSON blobs that must survive `JSON.stringify`/`JSON.parse` unchanged.
 */
export interface SessionStoreEntry {
  /** The entry's kind (`user`, `assistant`, `custom-title`, …). */
  type: string;
  /** Stable id of most entries; a store may use it to ignore duplicates. */
  uuid?: string;
  /** ISO time the CLI wrote the entry, on most entries. */
  timestamp?: string;
  [key: string]: unknown;
}

/**
 * Incrementally kept summary of one session in a store (official `SessionSummaryEntry`), returned by
 * {@link SessionStore.listSessionSummaries}.
 */
export interface SessionSummaryEntry {
  /** The session's UUID. */
  sessionId: string;
  /**
   * Storage write time, ms since the epoch, from the same clock as `listSessions().mtime` (not
   * derived from entry timestamps).
   */
  mtime: number;
  /** State owned by the SDK: persist it verbatim, never interpret it. */
  data: Record<string, unknown>;
}

/**
 * Adapter that receives a copy of session transcripts (official `SessionStore`). The CLI still
 * writes its local files under `CLAUDE_CONFIG_DIR`; the store gets every line as well.
 *
 * Nothing is ever deleted from a store except by `deleteSession({ sessionStore })` when `delete`
 * is implemented; retention is the store's business.
 */
export interface SessionStore {
  /**
   * Receives a batch of transcript lines, after the CLI has written them locally. Called in order
   * for one query; batches arrive about every 100 ms during a turn (`sessionStoreFlush: 'batched'`)
   * or one per CLI frame (`'eager'`). A rejection is retried (3 attempts in all, short backoff); a
   * call that has not settled after 60 s is not retried, since it may still land. After the last
   * failure the batch is dropped and the query yields a `system` message with subtype
   * `mirror_error`. Treat `uuid` as an idempotency key where there is one.
   */
  append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void>;
  /**
   * The whole transcript stored under `key`, for `options.resume` (read once, before the CLI is
   * started, and written to a temporary file the CLI resumes from), or `null` when nothing was
   * ever stored there. Entries must be deep-equal to the appended ones; byte equality is not needed.
   */
  load(key: SessionKey): Promise<SessionStoreEntry[] | null>;
  /**
   * Sessions stored for a project, with their modification time (integer ms since the epoch).
   * Optional: without it, `listSessions({ sessionStore })` and `options.continue` throw.
   */
  listSessions?(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>>;
  /**
   * Summaries of every session of a project in one call, kept up to date inside `append` (see
   * the official `foldSessionSummary`). Optional: without it, `listSessions({ sessionStore })`
   * loads each session.
   */
  listSessionSummaries?(projectKey: string): Promise<SessionSummaryEntry[]>;
  /** Deletes a session. Optional: without it `deleteSession({ sessionStore })` does nothing. */
  delete?(key: SessionKey): Promise<void>;
  /**
   * The subpaths stored under a session (its subagent transcripts). Optional: without it a resume
   * from the store restores the main transcript only.
   */
  listSubkeys?(key: { projectKey: string; sessionId: string }): Promise<string[]>;
}

/**
 * How transcript lines reach {@link SessionStore.append} (official `SessionStoreFlush`):
 * `'batched'` (default) collects them and appends about every 100 ms, at the end of a turn, or
 * when enough are pending; `'eager'` appends each frame the CLI sends as its own batch.
 */
export type SessionStoreFlush = "batched" | "eager";
