/**
 * `InMemorySessionStore`: a {@link SessionStore} kept in a `Map`, for tests and development (the
 * official SDK's class of the same name, with the same methods and test helpers).
 */
import type { SessionKey, SessionStore, SessionStoreEntry, SessionSummaryEntry } from "./store-types.js";
import { foldSessionSummary } from "./summary.js";

/**
 * A {@link SessionStore} in memory: everything is lost when the process exits. Entries are copied
 * on the way in and out (`structuredClone`), so neither side can change the other's.
 *
 * @example
 * ```ts
 * const store = new InMemorySessionStore();
 * for await (const m of query({ prompt: "hi", options: { sessionStore: store } })) void m;
 * console.log(store.size); // 1 session
 * ```
 */
export class InMemorySessionStore implements SessionStore {
  private readonly entries = new Map<string, SessionStoreEntry[]>();
  private readonly mtimes = new Map<string, number>();
  /** Summaries of the main transcripts, kept with {@link foldSessionSummary}. */
  private readonly summaries = new Map<string, SessionSummaryEntry>();
  private lastMtime = 0;

  /** Appends entries under `key`; its modification time becomes now (strictly increasing). */
  async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    const id = keyString(key);
    const stored = this.entries.get(id) ?? [];
    stored.push(...structuredClone(entries));
    this.entries.set(id, stored);
    this.lastMtime = Math.max(Date.now(), this.lastMtime + 1);
    this.mtimes.set(id, this.lastMtime);
    if (key.subpath === undefined) {
      this.summaries.set(
        id,
        foldSessionSummary(this.summaries.get(id), key, entries, { mtime: this.lastMtime }),
      );
    }
  }

  /** Everything appended under `key`, or `null` when nothing was. */
  async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
    const stored = this.entries.get(keyString(key));
    return stored === undefined ? null : structuredClone(stored);
  }

  /** The main transcripts of `projectKey` with their modification times. */
  async listSessions(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>> {
    const prefix = `${projectKey}/`;
    const out: Array<{ sessionId: string; mtime: number }> = [];
    for (const id of this.entries.keys()) {
      if (!id.startsWith(prefix)) continue;
      const rest = id.slice(prefix.length);
      if (!rest.includes("/")) out.push({ sessionId: rest, mtime: this.mtimes.get(id) ?? 0 });
    }
    return out;
  }

  /** The kept summaries of `projectKey`'s sessions (see {@link foldSessionSummary}). */
  async listSessionSummaries(projectKey: string): Promise<SessionSummaryEntry[]> {
    const prefix = `${projectKey}/`;
    return [...this.summaries]
      .filter(([id]) => id.startsWith(prefix))
      .map(([, summary]) => structuredClone(summary));
  }

  /** Deletes `key`; for a main transcript (no `subpath`) its subagent transcripts too. */
  async delete(key: SessionKey): Promise<void> {
    const id = keyString(key);
    this.entries.delete(id);
    this.mtimes.delete(id);
    if (key.subpath !== undefined) return;
    this.summaries.delete(id);
    for (const other of [...this.entries.keys()]) {
      if (other.startsWith(`${id}/`)) {
        this.entries.delete(other);
        this.mtimes.delete(other);
      }
    }
  }

  /** The subpaths stored under a session (e.g. `subagents/agent-<id>`). */
  async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    const prefix = `${key.projectKey}/${key.sessionId}/`;
    return [...this.entries.keys()]
      .filter((id) => id.startsWith(prefix))
      .map((id) => id.slice(prefix.length));
  }

  /** Test helper: the entries under `key` (a copy; empty when there are none). */
  getEntries(key: SessionKey): SessionStoreEntry[] {
    return structuredClone(this.entries.get(keyString(key)) ?? []);
  }

  /** Test helper: how many main transcripts are stored. */
  get size(): number {
    let count = 0;
    for (const id of this.entries.keys()) {
      const slash = id.indexOf("/");
      if (slash !== -1 && !id.slice(slash + 1).includes("/")) count += 1;
    }
    return count;
  }

  /** Test helper: forgets everything. */
  clear(): void {
    this.entries.clear();
    this.mtimes.clear();
    this.summaries.clear();
  }
}

function keyString(key: SessionKey): string {
  return key.subpath
    ? `${key.projectKey}/${key.sessionId}/${key.subpath}`
    : `${key.projectKey}/${key.sessionId}`;
}
