/**
 * What describes a session, from the two ends of its transcript (see `info.ts`): its title, first
 * and last prompt, branch, cwd, tag and creation time. Shared by the transcripts on disk and those
 * in a `SessionStore`.
 */
import type { RawObject } from "../../../messages.js";
import { attachmentLabelOf, firstPromptOf } from "./first-prompt.js";
import type { HeadTail } from "./store.js";
import type { SessionInfo } from "./types.js";

/**
 * Builds a {@link SessionInfo} from a transcript's two ends, or `undefined` for a subagent
 * transcript or a file without anything to title it by.
 */
export function describe(sessionId: string, ends: HeadTail, sidecarTitle?: string): SessionInfo | undefined {
  const { head, tail } = ends;
  if (head[0]?.isSidechain === true) return undefined;
  const customTitle =
    lastOfType(tail, "custom-title", "customTitle") ??
    sidecarTitle ??
    lastOfType(head, "custom-title", "customTitle") ??
    lastOfType(tail, "ai-title", "aiTitle") ??
    lastOfType(head, "ai-title", "aiTitle");
  const firstPrompt = firstPromptOf(head);
  const summary =
    customTitle ??
    lastOfType(tail, "last-prompt", "lastPrompt") ??
    lastOfType(tail, "summary", "summary") ??
    firstPrompt ??
    attachmentLabelOf(head);
  if (summary === undefined) return undefined;
  const info: SessionInfo = {
    sessionId,
    summary,
    lastModified: Math.trunc(ends.mtimeMs),
    fileSize: ends.size,
  };
  if (customTitle !== undefined) info.customTitle = customTitle;
  if (firstPrompt !== undefined) info.firstPrompt = firstPrompt;
  const gitBranch = lastString(tail, "gitBranch") ?? firstString(head, "gitBranch");
  if (gitBranch !== undefined) info.gitBranch = gitBranch;
  const cwd = lastOfType(tail, "relocated", "relocatedCwd") ?? firstString(head, "cwd");
  if (cwd !== undefined) info.cwd = cwd;
  // A tag entry with an empty tag clears it.
  const tag = lastTag(tail) ?? lastTag(head);
  if (tag !== undefined && tag !== "") info.tag = tag;
  const created = firstString(head, "timestamp");
  if (created !== undefined) {
    const ms = Date.parse(created);
    if (!Number.isNaN(ms)) info.createdAt = ms;
  }
  return info;
}

function lastTag(entries: RawObject[]): string | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i] as RawObject;
    if (e.type === "tag" && typeof e.tag === "string") return e.tag;
  }
  return undefined;
}

/** The `field` of the last entry of `type` with a non-empty string there. */
export function lastOfType(entries: RawObject[], type: string, field: string): string | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i] as RawObject;
    const value = e[field];
    if (e.type === type && typeof value === "string" && value.trim() !== "") return value.trim();
  }
  return undefined;
}

export function lastString(entries: RawObject[], field: string): string | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const value = (entries[i] as RawObject)[field];
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
}

export function firstString(entries: RawObject[], field: string): string | undefined {
  for (const e of entries) {
    const value = e[field];
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
}
