/**
 * Where Claude Code 2.1.330 keeps sessions, and how to read its files.
 *
 * Layout (as the CLI writes it): `<configDir>/projects/<encoded cwd>/<sessionId>.jsonl` is the
 * transcript, one JSON entry per line; `<sessionId>/subagents/agent-<agentId>.jsonl` (possibly in
 * nested folders) and `agent-<agentId>.meta.json` hold each subagent's transcript and its origin.
 */
import { execFile } from "node:child_process";
import { type FileHandle, readdir, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { InvalidOptionsError, SessionNotFoundError } from "../../../errors.js";
import type { RawObject } from "../../../messages.js";
import { entryAt, openRegularFile, readOptionalFile } from "../../../process/regular-files.js";
import { describeValue } from "../../../wire/safe-json.js";
import type { SessionLocationOptions, SessionStoreOptions } from "./types.js";

/** The CLI caps an encoded project directory name at this length, then appends a hash. */
const MAX_ENCODED_LENGTH = 200;

/** Bytes read from each end of a transcript to describe it without reading it whole. */
export const HEAD_TAIL_BYTES = 64 * 1024;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Entry points of sessions started by a program rather than a person. */
const PROGRAMMATIC_ENTRYPOINTS = new Set(["sdk-cli", "sdk-ts", "sdk-py"]);

/** Whether a session's `entrypoint` says a program started it (`includeProgrammatic: false`). */
export function isProgrammaticEntrypoint(entrypoint: unknown): boolean {
  return typeof entrypoint === "string" && PROGRAMMATIC_ENTRYPOINTS.has(entrypoint);
}

/** Sessions described at once while listing: bounds open file handles and store calls. */
const LISTING_CONCURRENCY = 16;

/**
 * `describeOne` applied to every item, at most {@link LISTING_CONCURRENCY} at a time, in order;
 * the `undefined` answers (nothing to list) are left out.
 */
export async function describeInBatches<T, R>(
  items: readonly T[],
  describeOne: (item: T) => Promise<R | undefined>,
): Promise<R[]> {
  const described: R[] = [];
  for (let i = 0; i < items.length; i += LISTING_CONCURRENCY) {
    const batch = await Promise.all(items.slice(i, i + LISTING_CONCURRENCY).map(describeOne));
    for (const item of batch) if (item !== undefined) described.push(item);
  }
  return described;
}

/** True when `text` is a UUID, the only form of session id the CLI stores. */
export function isSessionId(text: unknown): text is string {
  return typeof text === "string" && UUID_RE.test(text);
}

/** Throws {@link InvalidOptionsError} unless `sessionId` is a UUID (it becomes a file name). */
export function assertSessionId(sessionId: unknown, what = "sessionId"): asserts sessionId is string {
  if (!isSessionId(sessionId)) {
    throw new InvalidOptionsError([`${what} must be a session UUID, got ${describeValue(sessionId)}`]);
  }
}

/** The configuration directory: `options.configDir`, `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function configDirOf(options: SessionStoreOptions = {}): string {
  const dir = options.configDir ?? process.env.CLAUDE_CONFIG_DIR;
  return dir !== undefined && dir !== "" ? resolve(dir) : join(homedir(), ".claude");
}

/** `<configDir>/projects`. */
export function projectsDirOf(options: SessionStoreOptions = {}): string {
  return join(configDirOf(options), "projects");
}

/**
 * The folder name the CLI gives a project directory: every character other than ASCII letters and
 * digits becomes `-`; names longer than 200 characters are cut and get a hash of the full path.
 */
export function encodeProjectDir(path: string): string {
  const encoded = path.replace(/[^a-zA-Z0-9]/g, "-");
  if (encoded.length <= MAX_ENCODED_LENGTH) return encoded;
  return `${encoded.slice(0, MAX_ENCODED_LENGTH)}-${Math.abs(javaStringHash(path)).toString(36)}`;
}

function javaStringHash(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (hash * 31 + text.charCodeAt(i)) | 0;
  return hash;
}

/**
 * Folders under `projects/` that may hold sessions of `dir` — and, unless `includeWorktrees` is
 * `false`, of every other git worktree of its repository — or every project folder without `dir`.
 */
export async function projectDirs(
  options: SessionLocationOptions & { includeWorktrees?: boolean } = {},
): Promise<string[]> {
  if (options.dir !== undefined && typeof options.dir !== "string")
    throw new InvalidOptionsError([`dir must be a directory path, got ${describeValue(options.dir)}`]);
  const root = projectsDirOf(options);
  const names = await readdirOrEmpty(root);
  if (options.dir === undefined) return names.filter((n) => !n.startsWith(".")).map((n) => join(root, n));
  const absolute = resolve(options.dir);
  const paths = new Set([absolute, await realpath(absolute).catch(() => absolute)]);
  if (options.includeWorktrees !== false) for (const path of await gitWorktrees(absolute)) paths.add(path);
  const wanted = [...paths].map(encodeProjectDir);
  const out: string[] = [];
  for (const name of names) {
    // A long name's hash may come from another runtime's hash function: match on the cut prefix.
    const matches = wanted.some(
      (w) =>
        name === w || (w.length > MAX_ENCODED_LENGTH && name.startsWith(w.slice(0, MAX_ENCODED_LENGTH + 1))),
    );
    if (matches) out.push(join(root, name));
  }
  return out;
}

/** How long `git worktree list` may take before the helpers go on without worktrees. */
const GIT_TIMEOUT_MS = 5000;

/**
 * The paths of every worktree of the git repository `dir` is in; `[]` when `dir` is not in one or
 * git is not installed (worktrees are an extra, never a reason to fail).
 */
export function gitWorktrees(dir: string): Promise<string[]> {
  return new Promise((done) => {
    execFile(
      "git",
      ["-C", dir, "worktree", "list", "--porcelain"],
      {
        timeout: GIT_TIMEOUT_MS,
        killSignal: "SIGKILL",
        windowsHide: true,
        encoding: "utf8",
        maxBuffer: 1 << 20,
      },
      (error, stdout) => {
        if (error) return done([]);
        done(
          stdout
            .split("\n")
            .filter((line) => line.startsWith("worktree "))
            .map((line) => line.slice("worktree ".length)),
        );
      },
    );
  });
}

/** A located transcript. */
export interface SessionFile {
  /** `<projectDir>/<sessionId>.jsonl`. */
  path: string;
  /** The project folder holding it. */
  projectDir: string;
}

/**
 * Finds a session's transcript (a non-empty `<sessionId>.jsonl`).
 *
 * @throws SessionNotFoundError when no project folder has it.
 */
export async function findSession(
  sessionId: string,
  options: SessionLocationOptions = {},
): Promise<SessionFile> {
  const found = await findSessionOrUndefined(sessionId, options);
  if (found === undefined) throw new SessionNotFoundError(sessionId, options.dir, projectsDirOf(options));
  return found;
}

/** {@link findSession} that answers `undefined` instead of throwing. */
export async function findSessionOrUndefined(
  sessionId: string,
  options: SessionLocationOptions = {},
): Promise<SessionFile | undefined> {
  return (await findSessionFiles(sessionId, options, 1))[0];
}

/**
 * Every transcript of a session (one per project folder that has it — a moved project can leave
 * two), at most `max` of them. The agent writes these folders: a transcript is a regular file in a
 * real project directory, never reached through a symbolic link (a link there is not a session).
 */
export async function findSessionFiles(
  sessionId: string,
  options: SessionLocationOptions = {},
  max = Number.POSITIVE_INFINITY,
): Promise<SessionFile[]> {
  assertSessionId(sessionId);
  const found: SessionFile[] = [];
  for (const projectDir of await projectDirs(options)) {
    const path = join(projectDir, `${sessionId}.jsonl`);
    const folder = await entryAt(projectDir).catch(() => undefined);
    if (!folder?.isDirectory()) continue;
    const info = await entryAt(path).catch(() => undefined);
    if (info?.isFile() && info.size > 0) found.push({ path, projectDir });
    if (found.length >= max) break;
  }
  return found;
}

/** Names in a directory; an absent directory has none. Other failures propagate. */
export async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

/** True for the errors that mean "there is no such file". */
export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/**
 * Parses JSONL text leniently: blank, malformed and non-object lines are skipped (a transcript the
 * CLI is still writing may end in half a line).
 */
export function parseEntries(text: string): RawObject[] {
  const out: RawObject[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    if (end > start) {
      const entry = parseLine(text.slice(start, end));
      if (entry !== undefined) out.push(entry);
    }
    start = end + 1;
  }
  return out;
}

function parseLine(line: string): RawObject | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as RawObject)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every entry of a transcript file; none when it is gone or is not a regular file any more (opened
 * no-follow and non-blocking: a link or FIFO swapped in after it was found is not read).
 */
export async function readEntries(path: string): Promise<RawObject[]> {
  const opened = await openRegularFile(path);
  if (opened === undefined) return [];
  try {
    return parseEntries((await opened.handle.readFile()).toString("utf8"));
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}

/** The first and last {@link HEAD_TAIL_BYTES} of a file, cut to whole lines, plus its stat. */
export interface HeadTail {
  head: RawObject[];
  tail: RawObject[];
  size: number;
  mtimeMs: number;
}

/**
 * Reads both ends of a transcript: enough to describe it, bounded whatever its size; `undefined`
 * when it is not there or not a regular file (a link, a FIFO: opened no-follow, non-blocking).
 */
export async function readHeadTail(path: string): Promise<HeadTail | undefined> {
  const opened = await openRegularFile(path);
  if (opened === undefined) return undefined;
  const { handle, stats: info } = opened;
  try {
    const size = info.size;
    // Whole milliseconds as a Date holds them (what the official SDK reports), not the float.
    const mtimeMs = info.mtime.getTime();
    if (size <= 2 * HEAD_TAIL_BYTES) {
      const all = parseEntries((await handle.readFile()).toString("utf8"));
      return { head: all, tail: all, size, mtimeMs };
    }
    const head = Buffer.alloc(HEAD_TAIL_BYTES);
    const tail = Buffer.alloc(HEAD_TAIL_BYTES);
    await readFully(handle, head, 0);
    await readFully(handle, tail, size - HEAD_TAIL_BYTES);
    const headText = head.toString("utf8");
    const tailText = tail.toString("utf8");
    // A line cut by the window is dropped rather than misparsed.
    return {
      head: parseEntries(headText.slice(0, headText.lastIndexOf("\n") + 1)),
      tail: parseEntries(tailText.slice(tailText.indexOf("\n") + 1)),
      size,
      mtimeMs,
    };
  } finally {
    await handle.close();
  }
}

async function readFully(handle: FileHandle, buffer: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < buffer.length) {
    const { bytesRead } = await handle.read(buffer, done, buffer.length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
}

/** A subagent's meta file larger than this is not one (the CLI writes a few hundred bytes). */
const META_MAX_BYTES = 1024 * 1024;

/**
 * A subagent transcript's `.meta.json` (its agent type, the tool use that started it): the JSON
 * object, or `undefined` when there is none, it is not a regular file, or it is not a JSON object.
 */
export async function readSubagentMeta(path: string): Promise<RawObject | undefined> {
  let text: string | undefined;
  try {
    text = await readOptionalFile(path, META_MAX_BYTES);
  } catch {
    return undefined;
  }
  return text === undefined ? undefined : parseLine(text);
}
