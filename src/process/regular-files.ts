/**
 * Reading and replacing files that someone else may have written: an agent's session folder, a
 * configuration directory, a recording. Such a path may have been swapped for a symbolic link (to a
 * file only this process may read or write), a FIFO (whose `open` blocks a thread-pool thread until
 * a writer comes) or a device. Here the last component is opened without following a link and
 * without blocking (`O_NOFOLLOW | O_NONBLOCK | O_NOCTTY`), and only a regular file is read; a file
 * is replaced by writing a new one beside it and renaming it over, which replaces a link rather than
 * writing through it, inside a folder that must be a real directory.
 */
import { randomUUID } from "node:crypto";
import { constants, type Stats } from "node:fs";
import { type FileHandle, lstat, mkdir, open, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { AgentSdkError } from "../errors.js";

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_NOCTTY = constants.O_NOCTTY ?? 0;

/** Flags that open an existing file for reading, never through a link, never blocking. */
export const READ_NO_FOLLOW = constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
/** The same for appending to an existing file (no `O_CREAT`: a file gone is not re-created). */
export const APPEND_NO_FOLLOW = constants.O_RDWR | constants.O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;

/** An open regular file and what `fstat` said of it. */
export interface OpenRegularFile {
  readonly handle: FileHandle;
  readonly stats: Stats;
}

/**
 * Opens `path` with `flags` (one of the `*_NO_FOLLOW` sets) when it is a regular file; `undefined`
 * when nothing is there, the last component is a symbolic link, or it is not a regular file (FIFO,
 * socket, device, directory). Other failures (permissions, I/O) are thrown.
 */
export async function openRegularFile(
  path: string,
  flags: number = READ_NO_FOLLOW,
): Promise<OpenRegularFile | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, flags);
  } catch (error) {
    if (isNotThere(error)) return undefined;
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (stats.isFile()) return { handle, stats };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  await handle.close().catch(() => undefined);
  return undefined;
}

/**
 * The text of `path` when it is a regular file of at most `maxBytes`; `undefined` when it is not
 * there, not a regular file, or larger. Other failures are thrown.
 */
export async function readRegularFile(
  path: string,
  maxBytes: number = Number.POSITIVE_INFINITY,
): Promise<string | undefined> {
  const opened = await openRegularFile(path);
  if (opened === undefined) return undefined;
  try {
    if (opened.stats.size > maxBytes) return undefined;
    const bytes = await opened.handle.readFile();
    // It grew after the fstat: still bounded by what was asked.
    return bytes.length > maxBytes ? undefined : bytes.toString("utf8");
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}

/** {@link readRegularFile} that answers `undefined` for every failure: for optional files. */
export async function readOptionalFile(path: string, maxBytes?: number): Promise<string | undefined> {
  try {
    return await readRegularFile(path, maxBytes);
  } catch {
    return undefined;
  }
}

/** What `lstat` says is at `path` (never following a link there); `undefined` when nothing is. */
export async function entryAt(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if (isNotThere(error)) return undefined;
    throw error;
  }
}

/**
 * Makes sure `dir` is a real directory (made, 0700, when absent; its parent must exist): a symbolic
 * link or anything else there is refused with an {@link AgentSdkError} naming it.
 */
export async function ensureRealDirectory(dir: string): Promise<void> {
  try {
    await mkdir(dir, { mode: 0o700 });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException | undefined)?.code !== "EEXIST") throw error;
  }
  const stats = await lstat(dir);
  if (!stats.isDirectory()) {
    throw new AgentSdkError(
      `refusing to write into ${dir}: ${describeEntry(stats)} is there, not a directory`,
    );
  }
}

/**
 * Replaces `path` with `text` whole: written to a new file beside it (exclusive, 0600), then renamed
 * over it, so a reader never sees half of it and a link at `path` is replaced, not written through.
 * Its folder is made (0700) when absent and must be a real directory.
 */
export async function replaceFile(path: string, text: string): Promise<void> {
  await ensureRealDirectory(dirname(path));
  const temporary = `${path}.tmp.${randomUUID()}`;
  try {
    await writeFile(temporary, text, { mode: 0o600, flag: "wx" });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** What kind of entry `stats` describes, for messages ("a symbolic link", "a FIFO", "a file", …). */
export function describeEntry(stats: Stats): string {
  if (stats.isSymbolicLink()) return "a symbolic link";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isDirectory()) return "a directory";
  if (stats.isFile()) return "a file";
  return "something else";
}

/** ENOENT and ENOTDIR (nothing there), ELOOP (a link where no link is followed). */
function isNotThere(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP";
}
