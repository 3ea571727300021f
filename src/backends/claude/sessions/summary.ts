/**
 * `foldSessionSummary`: the incrementally kept session summary a {@link SessionStore} may offer
 * through `listSessionSummaries`, in the official SDK's format, so stores written for either SDK
 * serve both.
 */
import type { RawObject } from "../../../messages.js";
import { promptOf } from "./first-prompt.js";
import type { SessionKey, SessionStoreEntry, SessionSummaryEntry } from "./store-types.js";
import type { SessionInfo } from "./types.js";

/** Entry fields copied into the summary on every appearance (last wins), by summary field. */
const LAST_WINS: Record<string, string> = {
  customTitle: "customTitle",
  aiTitle: "aiTitle",
  lastPrompt: "lastPrompt",
  summary: "summaryHint",
  gitBranch: "gitBranch",
};

/**
 * Folds a batch of appended entries into the running summary of `key` (official
 * `foldSessionSummary`). Call it inside `SessionStore.append` and persist the result verbatim.
 * Set-once fields (`isSidechain`, `createdAt`, `cwd`, the first prompt) freeze on first sight;
 * titles, the last prompt, the branch and the tag follow the newest entry. Pure: concurrency is the
 * store's business.
 *
 * @param options.mtime The storage write time of this append (same clock as `listSessions`); when
 *   omitted the previous summary's is kept.
 */
export function foldSessionSummary(
  prev: SessionSummaryEntry | undefined,
  key: SessionKey,
  entries: SessionStoreEntry[],
  options: { mtime?: number } = {},
): SessionSummaryEntry {
  const mtime = options.mtime ?? prev?.mtime ?? 0;
  const out: SessionSummaryEntry =
    prev !== undefined
      ? { sessionId: prev.sessionId, mtime, data: { ...prev.data } }
      : { sessionId: key.sessionId, mtime, data: {} };
  const data = out.data;
  for (const entry of entries) {
    const time = typeof entry.timestamp === "string" ? Date.parse(entry.timestamp) : Number.NaN;
    if (data.isSidechain === undefined) data.isSidechain = entry.isSidechain === true;
    if (data.createdAt === undefined && !Number.isNaN(time)) data.createdAt = time;
    if (data.cwd === undefined && typeof entry.cwd === "string" && entry.cwd !== "") data.cwd = entry.cwd;
    foldFirstPrompt(data, entry);
    for (const [field, target] of Object.entries(LAST_WINS)) {
      const value = entry[field];
      if (typeof value === "string") data[target] = value;
    }
    if (entry.type === "tag") {
      if (typeof entry.tag === "string" && entry.tag !== "") data.tag = entry.tag;
      else delete data.tag;
    }
    if (entry.type === "relocated" && typeof entry.relocatedCwd === "string" && entry.relocatedCwd !== "") {
      data.cwd = entry.relocatedCwd;
    }
  }
  return out;
}

function foldFirstPrompt(data: Record<string, unknown>, entry: RawObject): void {
  if (data.firstPromptLocked === true) return;
  const state = { commandFallback: typeof data.commandFallback === "string" ? data.commandFallback : "" };
  const prompt = promptOf(entry, state);
  if (state.commandFallback !== "" && !data.commandFallback) data.commandFallback = state.commandFallback;
  if (prompt !== undefined) {
    data.firstPrompt = prompt;
    data.firstPromptLocked = true;
  }
}

/**
 * A {@link SessionInfo} from a summary (no `fileSize`: the summary does not know it, as in the
 * official SDK), or `undefined` for a subagent transcript or a session without anything to title
 * it by. `cwd` falls back to `dir`.
 */
export function infoOfSummary(
  summary: SessionSummaryEntry,
  dir: string | undefined,
): SessionInfo | undefined {
  const data = summary.data;
  if (data.isSidechain === true) return undefined;
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  const firstPrompt = text(data.firstPromptLocked === true ? data.firstPrompt : data.commandFallback);
  const customTitle = text(data.customTitle) ?? text(data.aiTitle);
  const title = customTitle ?? text(data.lastPrompt) ?? text(data.summaryHint) ?? firstPrompt;
  if (title === undefined) return undefined;
  const info: SessionInfo = { sessionId: summary.sessionId, summary: title, lastModified: summary.mtime };
  if (customTitle !== undefined) info.customTitle = customTitle;
  if (firstPrompt !== undefined) info.firstPrompt = firstPrompt;
  const gitBranch = text(data.gitBranch);
  if (gitBranch !== undefined) info.gitBranch = gitBranch;
  const cwd = text(data.cwd) ?? dir;
  if (cwd !== undefined) info.cwd = cwd;
  const tag = text(data.tag);
  if (tag !== undefined) info.tag = tag;
  if (typeof data.createdAt === "number") info.createdAt = data.createdAt;
  return info;
}
