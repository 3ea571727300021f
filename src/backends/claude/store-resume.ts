/**
 * Resuming a session from a {@link SessionStore}, as the official SDK does it: before the CLI starts,
 * the session is loaded from the store and written into a private temporary configuration
 * directory (`<tmp>/claude-resume-*`: `projects/<projectKey>/<sessionId>.jsonl`, the subagent
 * transcripts the store lists, and a copy of the few configuration files the CLI needs); the CLI
 * runs with `CLAUDE_CONFIG_DIR` pointing there and resumes with its own code. What it writes there
 * is mirrored to the store like any session; the directory is removed when the session ends, and
 * when the host exits (or dies of an unhandled SIGINT/SIGTERM/SIGHUP) first: it holds a copy of
 * the access token. One left by a host that could run no hook (SIGKILL) is removed by the next
 * resume on the machine that runs as the same user (its name holds the host's pid).
 *
 * With `options.user` (a root host running the CLI as another user) the directory is built by
 * root inside its private (0700, root-owned) top directory, then handed over bottom-up with
 * no-follow `lchown`, the top directory last: until that last call the user cannot reach any path
 * below it, so no entry root changes can have been swapped for a symlink. Once handed over, the
 * tree is the user's: root never walks it again — it is removed by `rm` run as that user.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, rmdirSync, rmSync } from "node:fs";
import { lchown, lstat, mkdir, mkdtemp, readdir, realpath, rm, rmdir, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { InvalidOptionsError } from "../../errors.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import { atHostExit } from "../../process/group-registry.js";
import { type OpenRegularFile, openRegularFile } from "../../process/regular-files.js";
import { ownDirPrefix, reclaimStaleDirs } from "../../process/stale-dirs.js";
import { resolveUser, type UnixIdentity } from "./env.js";
import { isSessionId } from "./sessions/store.js";
import {
  callStore,
  checkedEntries,
  checkedListing,
  checkedSubkeys,
  DEFAULT_STORE_CALL_TIMEOUT_MS,
  entriesAsJsonl,
  type StoreOperation,
} from "./sessions/store-calls.js";
import { projectKeyOf } from "./sessions/store-keys.js";
import type { SessionKey, SessionStore } from "./sessions/store-types.js";

/** The temporary directories are `<tmp>/claude-resume-<host tag>-<host pid>-XXXXXX`. */
const RESUME_DIR_PREFIX = "claude-resume";

/** Default `loadTimeoutMs`. */
export const DEFAULT_LOAD_TIMEOUT_MS = DEFAULT_STORE_CALL_TIMEOUT_MS;

/** What a resume from the store changes about the session. */
export interface StoreResume {
  /** The session to resume (`continueConversation` resolved to the store's newest), if any. */
  resume: string | undefined;
  /** The temporary `CLAUDE_CONFIG_DIR` the CLI must run with, when the session was materialized. */
  configDir?: string;
  /** Removes the temporary directory; safe to call more than once. */
  cleanup(): Promise<void>;
}

/**
 * Prepares `options.resume` / `options.continueConversation` from `options.sessionStore`;
 * `undefined` when there is nothing to do (no store, or neither option).
 *
 * @param childEnv The environment the CLI would run with (its `CLAUDE_CONFIG_DIR` / `HOME` say
 *   where the configuration files to copy are).
 * @throws SessionStoreError when a store call fails (with any value), exceeds `loadTimeoutMs`, or
 *   answers what the `SessionStore` interface does not allow (entries that are not JSON objects…).
 * @throws InvalidOptionsError for an `options.user` that cannot be resolved, or a temporary
 *   directory other users could change when the tree is for another user.
 */
export async function prepareStoreResume(
  options: ResolvedOptions,
  childEnv: Record<string, string>,
): Promise<StoreResume | undefined> {
  const store = options.sessionStore;
  if (store === undefined || (options.resume === undefined && !options.continueConversation))
    return undefined;
  const timeoutMs = options.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS;
  const call = <T>(operation: StoreOperation, what: string, run: () => Promise<T>) =>
    callStore(operation, what, run, { timeoutMs, signal: options.signal });
  const projectKey = projectKeyOf(options.cwd ?? process.cwd());
  const nothing = async () => {};

  let sessionId = options.resume;
  if (sessionId === undefined) {
    const what = `for project ${projectKey}`;
    const listed = checkedListing(
      await call("listSessions", what, async () =>
        // Validation made sure listSessions exists when continueConversation is used with a store.
        (store.listSessions as NonNullable<SessionStore["listSessions"]>).call(store, projectKey),
      ),
      what,
    );
    sessionId = listed.sort((a, b) => b.mtime - a.mtime)[0]?.sessionId;
    // An empty store: a new session, as `--continue` starts one when there is nothing to continue.
    if (sessionId === undefined) return { resume: undefined, cleanup: nothing };
  }
  if (!isSessionId(sessionId)) return { resume: sessionId, cleanup: nothing };

  const key: SessionKey = { projectKey, sessionId };
  const what = `for session ${sessionId}`;
  const entries = checkedEntries(await call("load", what, () => store.load(key)), what);
  // Not in the store: the CLI resumes from its local files, if it has the session.
  if (entries === null || entries.length === 0) return { resume: sessionId, cleanup: nothing };
  const transcript = entriesAsJsonl(entries, what);

  // A CLI run as another user (`options.user`) must be able to read and write its directory.
  const identity = resolveUser(options.user);
  if (identity !== undefined) await checkTemporaryRoot();
  // Those of hosts that died without their exit hook (SIGKILL) hold a copy of the token: removed first.
  reclaimStaleDirs(tmpdir(), RESUME_DIR_PREFIX);
  const configDir = await mkdtemp(join(tmpdir(), ownDirPrefix(RESUME_DIR_PREFIX)));
  const removal = new Removal(configDir);
  // The directory holds a copy of the access token: a host that goes away removes it too.
  const forgetAtExit = atHostExit(() => removal.removeSync());
  const cleanup = once(async () => {
    forgetAtExit();
    await removal.remove();
  });
  try {
    const projectDir = join(configDir, "projects", projectKey);
    await mkdir(projectDir, { recursive: true, mode: 0o700 });
    await writePrivate(join(projectDir, `${sessionId}.jsonl`), transcript);
    if (store.listSubkeys !== undefined) {
      await materializeSubagents(store, key, join(projectDir, sessionId), call);
    }
    await copyConfiguration(childEnv, configDir, identity);
    if (identity !== undefined) {
      await handOver(configDir, identity);
      removal.handedTo(identity);
    }
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { resume: sessionId, configDir, cleanup };
}

type BoundedCall = <T>(operation: StoreOperation, what: string, run: () => Promise<T>) => Promise<T>;

/**
 * Writes each subpath the store lists below the session's folder: its `agent_metadata` entries
 * become `<subpath>.meta.json` (the last one, as the CLI mirrors its metadata file), the rest
 * `<subpath>.jsonl`. Subpaths that would leave the folder are skipped.
 */
async function materializeSubagents(
  store: SessionStore,
  key: SessionKey,
  sessionDir: string,
  call: BoundedCall,
): Promise<void> {
  const listSubkeys = store.listSubkeys as NonNullable<SessionStore["listSubkeys"]>;
  const listWhat = `for session ${key.sessionId}`;
  const subpaths = checkedSubkeys(
    await call("listSubkeys", listWhat, () =>
      listSubkeys.call(store, { projectKey: key.projectKey, sessionId: key.sessionId }),
    ),
    listWhat,
  );
  for (const subpath of subpaths) {
    if (!isSafeSubpath(subpath, sessionDir)) continue;
    const what = `for session ${key.sessionId} subpath ${subpath}`;
    const entries = checkedEntries(await call("load", what, () => store.load({ ...key, subpath })), what);
    if (entries === null || entries.length === 0) continue;
    const transcript = entries.filter((e) => e.type !== "agent_metadata");
    const metadata = entries.filter((e) => e.type === "agent_metadata").at(-1);
    const base = join(sessionDir, subpath);
    await mkdir(dirname(base), { recursive: true, mode: 0o700 });
    if (transcript.length > 0) await writePrivate(`${base}.jsonl`, entriesAsJsonl(transcript, what));
    if (metadata !== undefined) {
      const { type: _type, ...meta } = metadata;
      await writePrivate(`${base}.meta.json`, entriesAsJsonl([meta], what).trimEnd());
    }
  }
}

/**
 * Gives the tree at `top` to `identity`: every entry bottom-up with `lchown` (a symlink is never
 * followed), `top` itself last. Safe only while `top` is root's and private (0700, as `mkdtemp`
 * made it), so nobody else can reach a path below it until the last call.
 */
async function handOver(top: string, identity: UnixIdentity): Promise<void> {
  for (const entry of await readdir(top, { withFileTypes: true })) {
    const path = join(top, entry.name);
    if (entry.isDirectory()) await handOver(path, identity);
    else await lchown(path, identity.uid, identity.gid);
  }
  await lchown(top, identity.uid, identity.gid);
}

/**
 * The temporary directory a tree for another user is built in must not let others replace our
 * top directory by a symlink (its path is used again after it is made): it must be ours or root's,
 * and either writable by nobody else or sticky (as `/tmp` is).
 */
async function checkTemporaryRoot(): Promise<void> {
  const root = await realpath(tmpdir());
  const info = await lstat(root);
  const ownerOk = info.uid === 0 || info.uid === process.geteuid?.();
  const othersWrite = (info.mode & 0o022) !== 0;
  const sticky = (info.mode & 0o1000) !== 0;
  if (!ownerOk || (othersWrite && !sticky)) {
    throw new InvalidOptionsError([
      `user: the temporary directory ${root} can be changed by other users (owner uid ${info.uid}, ` +
        `mode ${(info.mode & 0o7777).toString(8)}); a resume from a session store for another user ` +
        "needs a TMPDIR that is root's and not writable by others, or sticky",
    ]);
  }
}

/** How long removing the directory as its user may take. */
const REMOVE_TIMEOUT_MS = 30_000;

/**
 * Removes the temporary directory: as this process while it is ours; once handed over, its content
 * by `rm` run as its user (root never walks a tree another user controls: a directory swapped for
 * a symlink mid-walk would make it delete elsewhere), then the empty top directory by this process
 * (`rmdir` follows no symlink and removes nothing but an empty directory; the user may not be
 * allowed to remove it from a temporary directory that is not sticky).
 */
class Removal {
  private owner: UnixIdentity | undefined;
  constructor(private readonly dir: string) {}

  handedTo(identity: UnixIdentity): void {
    this.owner = identity;
  }

  async remove(): Promise<void> {
    const owner = this.owner;
    if (owner === undefined) {
      await rm(this.dir, { recursive: true, force: true, maxRetries: 3 });
      return;
    }
    const rmPath = rmBinary();
    if (rmPath === undefined) return;
    await new Promise<void>((done) => {
      const child = spawn(rmPath, ["-rf", "--", this.dir], {
        uid: owner.uid,
        gid: owner.gid,
        stdio: "ignore",
        timeout: REMOVE_TIMEOUT_MS,
        killSignal: "SIGKILL",
      });
      child.on("error", () => done());
      child.on("close", () => done());
    });
    await rmdir(this.dir).catch(() => undefined);
  }

  /** {@link remove}, synchronously (for the host's exit). */
  removeSync(): void {
    const owner = this.owner;
    if (owner === undefined) {
      rmSync(this.dir, { recursive: true, force: true, maxRetries: 3 });
      return;
    }
    const rmPath = rmBinary();
    if (rmPath === undefined) return;
    spawnSync(rmPath, ["-rf", "--", this.dir], {
      uid: owner.uid,
      gid: owner.gid,
      stdio: "ignore",
      timeout: REMOVE_TIMEOUT_MS,
      killSignal: "SIGKILL",
    });
    try {
      rmdirSync(this.dir);
    } catch {
      // Gone already, or not empty: nothing more is safe to do.
    }
  }
}

function rmBinary(): string | undefined {
  return ["/bin/rm", "/usr/bin/rm"].find((path) => existsSync(path));
}

function isSafeSubpath(subpath: string, sessionDir: string): boolean {
  if (subpath === "" || isAbsolute(subpath) || subpath.includes("\0")) return false;
  if (subpath.split(/[\\/]/).includes("..")) return false;
  return resolve(sessionDir, `${subpath}.jsonl`).startsWith(sessionDir + sep);
}

/** Creates a file of ours: exclusive (never through something already at `path`), 0600. */
async function writePrivate(path: string, text: string): Promise<void> {
  await writeFile(path, text, { mode: 0o600, flag: "wx" });
}

/** Settings keys dropped from the copy: plugins live in the real directory, not the temporary one. */
const SETTINGS_DROPPED = ["enabledPlugins", "extraKnownMarketplaces", "additionalMarketplaces"];

/**
 * Copies what the CLI needs to run as it would in its own configuration directory: credentials
 * (without the OAuth refresh token, which only the real directory may rotate), the global state
 * file `.claude.json`, `.config.json` and the user settings (without plugins and without a
 * `CLAUDE_CONFIG_DIR` of their own). Absent files are skipped.
 *
 * The source directory may be the CLI user's: this process (perhaps root) reads each file only when
 * it is a regular file reached without following a link (a FIFO does not block it) and, for a CLI
 * run as `identity`, owned by that user or by this process, so the copy handed to that user never
 * holds what only this process could read.
 */
async function copyConfiguration(
  childEnv: Record<string, string>,
  target: string,
  identity: UnixIdentity | undefined,
): Promise<void> {
  const owners = identity === undefined ? undefined : new Set([identity.uid, process.geteuid?.()]);
  const copyIfPresent = (from: string, to: string, transform?: (text: string) => string) =>
    copyRegularFile(from, to, owners, transform);
  const home = nonEmpty(childEnv.HOME) ?? homedir();
  const explicit = nonEmpty(childEnv.CLAUDE_CONFIG_DIR);
  const source = explicit !== undefined ? resolve(explicit) : join(home, ".claude");
  await copyIfPresent(
    join(source, ".credentials.json"),
    join(target, ".credentials.json"),
    withoutRefreshToken,
  );
  // The CLI keeps `.claude.json` in CLAUDE_CONFIG_DIR when that is set, else in the home directory.
  await copyIfPresent(
    join(explicit !== undefined ? source : home, ".claude.json"),
    join(target, ".claude.json"),
  );
  await copyIfPresent(join(source, ".config.json"), join(target, ".config.json"));
  await copyIfPresent(join(source, "settings.json"), join(target, "settings.json"), settingsForCopy);
}

/** A configuration file larger than this is not copied (`.claude.json` is a few hundred KB). */
const CONFIG_FILE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Copies `from` to a new private file `to` when `from` is a regular file (no-follow, non-blocking)
 * of at most {@link CONFIG_FILE_MAX_BYTES} owned by one of `owners` (any owner without them);
 * anything else there, or nothing, is skipped.
 */
async function copyRegularFile(
  from: string,
  to: string,
  owners: ReadonlySet<number | undefined> | undefined,
  transform?: (text: string) => string,
): Promise<void> {
  let opened: OpenRegularFile | undefined;
  try {
    opened = await openRegularFile(from);
  } catch {
    return; // Unreadable (permissions, I/O): the CLI runs without it, as without an absent file.
  }
  if (opened === undefined) return;
  let text: string;
  try {
    const { stats, handle } = opened;
    if (stats.size > CONFIG_FILE_MAX_BYTES || (owners !== undefined && !owners.has(stats.uid))) return;
    text = (await handle.readFile()).toString("utf8");
  } catch {
    return;
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
  await writePrivate(to, transform ? transform(text) : text);
}

function withoutRefreshToken(text: string): string {
  return editJson(text, (value) => {
    let changed = false;
    for (const name of ["claudeAiOauth", "hybridOauth"]) {
      const oauth = value[name] as Record<string, unknown> | undefined;
      if (isObject(oauth) && "refreshToken" in oauth) {
        delete oauth.refreshToken;
        changed = true;
      }
    }
    return changed;
  });
}

function settingsForCopy(text: string): string {
  return editJson(text, (value) => {
    let changed = false;
    for (const key of SETTINGS_DROPPED) {
      if (Object.hasOwn(value, key)) {
        delete value[key];
        changed = true;
      }
    }
    const env = value.env;
    if (isObject(env) && Object.hasOwn(env, "CLAUDE_CONFIG_DIR")) {
      delete env.CLAUDE_CONFIG_DIR;
      changed = true;
    }
    return changed;
  });
}

/** Applies `edit` to a JSON object's text; text that is not a JSON object is copied as it is. */
function editJson(text: string, edit: (value: Record<string, unknown>) => boolean): string {
  try {
    const value: unknown = JSON.parse(text);
    if (!isObject(value)) return text;
    return edit(value) ? JSON.stringify(value) : text;
  } catch {
    return text;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value !== "" ? value : undefined;
}

function once(run: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= run().catch(() => undefined);
    return done;
  };
}
