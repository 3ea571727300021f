/**
 * Changing stored sessions: `renameSession`, `tagSession`, `deleteSession`, `forkSession`.
 *
 * Titles and tags are appended to the transcript as the entries the CLI writes itself
 * (`{"type":"custom-title",…}`, `{"type":"tag",…}`); the newest one wins. Appending with
 * `O_APPEND` never rewrites what a running CLI is writing.
 */
import { randomUUID } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { InvalidOptionsError, SessionNotFoundError } from "../../../errors.js";
import type { RawObject } from "../../../messages.js";
import { APPEND_NO_FOLLOW, entryAt, openRegularFile, replaceFile } from "../../../process/regular-files.js";
import { CHAIN_TYPES } from "./conversation.js";
import { firstPromptOf } from "./first-prompt.js";
import { titleSidecarPath } from "./info.js";
import { assertSessionId, findSession, projectsDirOf, readEntries } from "./store.js";
import { callStore } from "./store-calls.js";
import { appendToStore, deleteInStore, loadOrThrow } from "./store-helpers.js";
import type { SessionStore, SessionStoreEntry } from "./store-types.js";
import type { ForkSessionOptions, ForkSessionResult, SessionLocationOptions } from "./types.js";

/**
 * Sets a session's title (official `renameSession`; the CLI's `/rename`). `listSessions` then shows
 * it as `customTitle` and `summary`.
 *
 * @throws InvalidOptionsError for a blank title; SessionNotFoundError for an unknown session.
 */
export async function renameSession(
  sessionId: string,
  title: string,
  options: SessionLocationOptions = {},
): Promise<void> {
  assertSessionId(sessionId);
  const trimmed = typeof title === "string" ? title.trim() : "";
  if (trimmed === "") throw new InvalidOptionsError(["title must be a non-empty string"]);
  const entry = { type: "custom-title", customTitle: trimmed, sessionId };
  if (options.sessionStore !== undefined)
    return appendToStore(options.sessionStore, sessionId, entry, options);
  const path = await appendEntry(sessionId, entry, options);
  // The CLI keeps its title in a file beside the transcript too; keep an existing one in step.
  // Replaced, not written through: the agent writes that folder, and may have put a link there.
  const sidecar = titleSidecarPath(path);
  if ((await entryAt(sidecar).catch(() => undefined))?.isFile()) {
    await replaceFile(sidecar, JSON.stringify({ customTitle: trimmed }));
  }
}

/**
 * Tags a session, or clears its tag with `null` (official `tagSession`).
 *
 * @throws InvalidOptionsError for a blank tag; SessionNotFoundError for an unknown session.
 */
export async function tagSession(
  sessionId: string,
  tag: string | null,
  options: SessionLocationOptions = {},
): Promise<void> {
  assertSessionId(sessionId);
  let value = "";
  if (tag !== null) {
    value = typeof tag === "string" ? tag.trim() : "";
    if (value === "") throw new InvalidOptionsError(["tag must be a non-empty string (null clears the tag)"]);
  }
  const entry = { type: "tag", tag: value, sessionId };
  if (options.sessionStore !== undefined)
    return appendToStore(options.sessionStore, sessionId, entry, options);
  await appendEntry(sessionId, entry, options);
}

/**
 * Deletes a session from this computer (official `deleteSession`): its transcript and its folder
 * of subagent transcripts and tool results. Nothing stored elsewhere is touched.
 *
 * @throws SessionNotFoundError for an unknown session.
 */
export async function deleteSession(sessionId: string, options: SessionLocationOptions = {}): Promise<void> {
  assertSessionId(sessionId);
  if (options.sessionStore !== undefined) return deleteInStore(options.sessionStore, sessionId, options);
  const file = await findSession(sessionId, options);
  await rm(file.path, { force: true });
  await rm(join(file.projectDir, sessionId), { recursive: true, force: true });
}

/**
 * Copies a session into a new one with fresh message ids (official `forkSession`), in the same
 * project folder, so `options.resume` continues the copy while the original stays as it was.
 * `upToMessageId` cuts the copy after that entry. File-history snapshots (what `rewindFiles`
 * restores) and subagent transcripts are not copied.
 *
 * @throws InvalidOptionsError when `upToMessageId` is not in the session or nothing is left to
 * copy; SessionNotFoundError for an unknown session.
 */
export async function forkSession(
  sessionId: string,
  options: ForkSessionOptions = {},
): Promise<ForkSessionResult> {
  assertSessionId(sessionId);
  if (options.sessionStore !== undefined) return forkInStore(options.sessionStore, sessionId, options);
  const file = await findSession(sessionId, options);
  const fork = forkEntries(await readEntries(file.path), sessionId, options);
  // `wx`: a fresh UUID never exists, and if it did, nothing is overwritten.
  await writeFile(
    join(file.projectDir, `${fork.sessionId}.jsonl`),
    `${fork.entries.map((e) => JSON.stringify(e)).join("\n")}\n`,
    { flag: "wx", mode: 0o600 },
  );
  return { sessionId: fork.sessionId };
}

/**
 * The entries of a fork of `entries` (a session's transcript): the conversation (up to
 * `upToMessageId`) with fresh uuids, the parent links remapped, and a title entry.
 *
 * @throws InvalidOptionsError when `upToMessageId` is not in the session or nothing is left to copy.
 */
export function forkEntries(
  entries: readonly RawObject[],
  sessionId: string,
  options: Pick<ForkSessionOptions, "upToMessageId" | "title">,
): { sessionId: string; entries: RawObject[] } {
  let transcript = entries.filter(
    (e) =>
      typeof e.uuid === "string" &&
      typeof e.type === "string" &&
      CHAIN_TYPES.has(e.type) &&
      e.isSidechain !== true,
  );
  if (options.upToMessageId !== undefined) {
    const end = transcript.findIndex((e) => e.uuid === options.upToMessageId);
    if (end < 0) {
      throw new InvalidOptionsError([
        `upToMessageId ${options.upToMessageId} is not a message of session ${sessionId}`,
      ]);
    }
    transcript = transcript.slice(0, end + 1);
  }
  if (transcript.length === 0)
    throw new InvalidOptionsError([`session ${sessionId} has no messages to fork`]);

  const forkId = randomUUID();
  const newUuids = new Map<string, string>();
  for (const e of transcript) newUuids.set(e.uuid as string, randomUUID());
  const remap = (value: unknown): string | null =>
    typeof value === "string" ? (newUuids.get(value) ?? null) : (value as null);
  const now = new Date().toISOString();
  const out: RawObject[] = [];
  for (const e of transcript) {
    const copy: RawObject = { ...e };
    copy.uuid = newUuids.get(e.uuid as string);
    copy.parentUuid = remap(e.parentUuid);
    if ("logicalParentUuid" in e) copy.logicalParentUuid = remap(e.logicalParentUuid);
    copy.sessionId = forkId;
    copy.isSidechain = false;
    // Links into the source session's bookkeeping that would dangle in the copy.
    delete copy.sourceToolAssistantUUID;
    delete copy.turnAttributionKey;
    delete copy.teamName;
    delete copy.agentName;
    copy.forkedFrom = { sessionId, messageUuid: e.uuid };
    out.push(copy);
  }
  const title = options.title?.trim() || `${titleOf(entries) ?? "Forked session"} (fork)`;
  out.push({
    type: "custom-title",
    sessionId: forkId,
    customTitle: title,
    uuid: randomUUID(),
    timestamp: now,
  });
  return { sessionId: forkId, entries: out };
}

/** `forkSession` with a store: the fork is appended to the store under its new id. */
async function forkInStore(
  store: SessionStore,
  sessionId: string,
  options: ForkSessionOptions,
): Promise<ForkSessionResult> {
  const { key, entries } = await loadOrThrow(store, sessionId, options);
  const fork = forkEntries(entries as RawObject[], sessionId, options);
  await callStore("append", `for session ${fork.sessionId} (a fork of ${sessionId})`, () =>
    store.append(
      { projectKey: key.projectKey, sessionId: fork.sessionId },
      fork.entries as SessionStoreEntry[],
    ),
  );
  return { sessionId: fork.sessionId };
}

function titleOf(entries: readonly RawObject[]): string | undefined {
  for (const [type, field] of [
    ["custom-title", "customTitle"],
    ["ai-title", "aiTitle"],
  ] as const) {
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i] as RawObject;
      const value = e[field];
      if (e.type === type && typeof value === "string" && value.trim() !== "") return value.trim();
    }
  }
  return firstPromptOf(entries as RawObject[]);
}

/** Appends one JSON entry to an existing, non-empty transcript; returns the transcript's path. */
async function appendEntry(
  sessionId: string,
  entry: RawObject,
  options: SessionLocationOptions,
): Promise<string> {
  const file = await findSession(sessionId, options);
  // O_APPEND without O_CREAT: a transcript deleted since it was found is not re-created; no-follow
  // and non-blocking: one swapped for a link or a FIFO since is not written through.
  const opened = await openRegularFile(file.path, APPEND_NO_FOLLOW);
  if (opened === undefined) throw new SessionNotFoundError(sessionId, options.dir, projectsDirOf(options));
  const { handle } = opened;
  try {
    // Never glue the entry onto a last line that lacks its newline.
    const { size } = await handle.stat();
    const last = Buffer.alloc(1);
    if (size > 0) await handle.read(last, 0, 1, size - 1);
    const separator = size > 0 && last[0] !== 0x0a ? "\n" : "";
    await handle.writeFile(`${separator}${JSON.stringify(entry)}\n`, "utf8");
  } finally {
    await handle.close();
  }
  return file.path;
}
