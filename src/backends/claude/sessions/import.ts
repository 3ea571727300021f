/**
 * `importSessionToStore`: copies a session from the CLI's local files into a {@link SessionStore}
 * (official helper of the same name), e.g. to move existing sessions to a remote store.
 */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { InvalidOptionsError } from "../../../errors.js";
import { assertSessionId, findSession, readEntries, readSubagentMeta } from "./store.js";
import { callStore, keyWhat } from "./store-calls.js";
import { projectKeyOf } from "./store-keys.js";
import type { SessionKey, SessionStore, SessionStoreEntry } from "./store-types.js";
import type { SessionLocationOptions } from "./types.js";

/** Options of {@link importSessionToStore} (official `ImportSessionToStoreOptions`). */
export interface ImportSessionToStoreOptions extends Omit<SessionLocationOptions, "sessionStore"> {
  /** Also import the subagent transcripts (and their metadata). Default `true`. */
  includeSubagents?: boolean;
  /** Most entries per `store.append()` call (a batch is also cut at 1 MiB). Default 500. */
  batchSize?: number;
}

const DEFAULT_BATCH_SIZE = 500;
const MAX_BATCH_BYTES = 1 << 20;

/**
 * Appends a local session's transcript — and, unless `includeSubagents` is `false`, each subagent
 * transcript with its metadata as a final `agent_metadata` entry, the way the CLI mirrors them —
 * to `store`, in batches. The key's `projectKey` is that of `dir` (default: the current
 * directory), as in the official SDK; resume it with `options.sessionStore` from that directory.
 * Lines that are not JSON are skipped. Appending twice appends twice: stores should treat `uuid`
 * as an idempotency key.
 *
 * @throws SessionNotFoundError when the session is not on disk; InvalidOptionsError for a bad id.
 */
export async function importSessionToStore(
  sessionId: string,
  store: SessionStore,
  options: ImportSessionToStoreOptions = {},
): Promise<void> {
  assertSessionId(sessionId);
  if (typeof store?.append !== "function") {
    throw new InvalidOptionsError(["store: must be a SessionStore with an append() method"]);
  }
  const file = await findSession(sessionId, options);
  const projectKey = projectKeyOf(options.dir ?? process.cwd());
  const batchSize =
    options.batchSize !== undefined && options.batchSize > 0 ? options.batchSize : DEFAULT_BATCH_SIZE;
  await appendFile(store, { projectKey, sessionId }, file.path, batchSize);
  if (options.includeSubagents === false) return;
  const sessionDir = join(file.projectDir, sessionId);
  for (const path of await jsonlFiles(join(sessionDir, "subagents"))) {
    const subpath = relative(sessionDir, path)
      .split(sep)
      .join("/")
      .replace(/\.jsonl$/, "");
    const key: SessionKey = { projectKey, sessionId, subpath };
    await appendFile(store, key, path, batchSize);
    const meta = await readSubagentMeta(path.replace(/\.jsonl$/, ".meta.json"));
    if (meta !== undefined) await appendBatch(store, key, [{ ...meta, type: "agent_metadata" }]);
  }
}

async function appendFile(
  store: SessionStore,
  key: SessionKey,
  path: string,
  batchSize: number,
): Promise<void> {
  const entries = (await readEntries(path)) as SessionStoreEntry[];
  let batch: SessionStoreEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    batch.push(entry);
    bytes += JSON.stringify(entry).length;
    if (batch.length >= batchSize || bytes >= MAX_BATCH_BYTES) {
      await appendBatch(store, key, batch);
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length > 0) await appendBatch(store, key, batch);
}

/** One `store.append`; a failure is a SessionStoreError naming the key. */
function appendBatch(store: SessionStore, key: SessionKey, batch: SessionStoreEntry[]): Promise<void> {
  return callStore("append", keyWhat(key), () => store.append(key, batch));
}

/** Every `.jsonl` file below `dir`, depth first, sorted for a stable order. */
async function jsonlFiles(dir: string): Promise<string[]> {
  let names: Dirent[];
  try {
    names = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const entry of names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await jsonlFiles(path)));
    else if (entry.isFile() && entry.name.endsWith(".jsonl")) out.push(path);
  }
  return out;
}
