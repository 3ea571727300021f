/**
 * Resuming a session from a {@link SessionStore}, as the official SDK does it: before the CLI starts,
 * the session is loaded from the store and written into a private temporary configuration
 * directory (`<tmp>/claude-resume-*`: `projects/<projectKey>/<sessionId>.jsonl`, the subagent
 * transcripts the store lists, and a copy of the few configuration files the CLI needs); the CLI
 * runs with `CLAUDE_CONFIG_DIR` pointing there and resumes with its own code. What it writes there
 * is mirrored to the store like any session; the directory is removed when the session ends.
 */
import { chown, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { SessionStoreError } from "../../errors.js";
import { abortErrorFor } from "../../internal/abort.js";
import type { AgentOptions } from "../../options.js";
import { resolveUser } from "./env.js";
import { isSessionId } from "./sessions/store.js";
import { projectKeyOf } from "./sessions/store-keys.js";
import type { SessionKey, SessionStore, SessionStoreEntry } from "./sessions/store-types.js";

/** Default `loadTimeoutMs`. */
export const DEFAULT_LOAD_TIMEOUT_MS = 60_000;

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
 * @throws SessionStoreError when a store call fails or exceeds `loadTimeoutMs`.
 */
export async function prepareStoreResume(
  options: AgentOptions,
  childEnv: Record<string, string>,
): Promise<StoreResume | undefined> {
  const store = options.sessionStore;
  if (store === undefined || (options.resume === undefined && !options.continueConversation))
    return undefined;
  const timeoutMs = options.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS;
  const call = <T>(operation: SessionStoreError["operation"], what: string, run: () => Promise<T>) =>
    bounded(operation, what, run, timeoutMs, options.signal);
  const projectKey = projectKeyOf(options.cwd ?? process.cwd());
  const nothing = async () => {};

  let sessionId = options.resume;
  if (sessionId === undefined) {
    const listed = await call("listSessions", `for project ${projectKey}`, async () =>
      // Validation made sure listSessions exists when continueConversation is used with a store.
      (store.listSessions as NonNullable<SessionStore["listSessions"]>).call(store, projectKey),
    );
    sessionId = [...(Array.isArray(listed) ? listed : [])].sort((a, b) => b.mtime - a.mtime)[0]?.sessionId;
    // An empty store: a new session, as `--continue` starts one when there is nothing to continue.
    if (sessionId === undefined) return { resume: undefined, cleanup: nothing };
  }
  if (!isSessionId(sessionId)) return { resume: sessionId, cleanup: nothing };

  const key: SessionKey = { projectKey, sessionId };
  const entries = await call("load", `for session ${sessionId}`, () => store.load(key));
  // Not in the store: the CLI resumes from its local files, if it has the session.
  if (!Array.isArray(entries) || entries.length === 0) return { resume: sessionId, cleanup: nothing };

  const configDir = await mkdtemp(join(tmpdir(), "claude-resume-"));
  const cleanup = once(() => rm(configDir, { recursive: true, force: true, maxRetries: 3 }));
  try {
    const projectDir = join(configDir, "projects", projectKey);
    await mkdir(projectDir, { recursive: true, mode: 0o700 });
    await writeJsonl(join(projectDir, `${sessionId}.jsonl`), entries);
    if (store.listSubkeys !== undefined) {
      await materializeSubagents(store, key, join(projectDir, sessionId), call);
    }
    await copyConfiguration(childEnv, configDir);
    // A CLI run as another user (`options.user`) must be able to read and write its directory.
    const identity = resolveUser(options.user);
    if (identity !== undefined) await chownTree(configDir, identity.uid, identity.gid ?? -1);
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { resume: sessionId, configDir, cleanup };
}

type BoundedCall = <T>(
  operation: SessionStoreError["operation"],
  what: string,
  run: () => Promise<T>,
) => Promise<T>;

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
  const subpaths = await call("listSubkeys", `for session ${key.sessionId}`, () =>
    listSubkeys.call(store, { projectKey: key.projectKey, sessionId: key.sessionId }),
  );
  for (const subpath of Array.isArray(subpaths) ? subpaths : []) {
    if (typeof subpath !== "string" || !isSafeSubpath(subpath, sessionDir)) continue;
    const entries = await call("load", `for session ${key.sessionId} subpath ${subpath}`, () =>
      store.load({ ...key, subpath }),
    );
    if (!Array.isArray(entries) || entries.length === 0) continue;
    const transcript = entries.filter((e) => e?.type !== "agent_metadata");
    const metadata = entries.filter((e) => e?.type === "agent_metadata").at(-1);
    const base = join(sessionDir, subpath);
    await mkdir(dirname(base), { recursive: true, mode: 0o700 });
    if (transcript.length > 0) await writeJsonl(`${base}.jsonl`, transcript);
    if (metadata !== undefined) {
      const { type: _type, ...meta } = metadata;
      await writeFile(`${base}.meta.json`, JSON.stringify(meta), { mode: 0o600 });
    }
  }
}

async function chownTree(path: string, uid: number, gid: number): Promise<void> {
  await chown(path, uid, gid);
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) await chownTree(child, uid, gid);
    else await chown(child, uid, gid);
  }
}

function isSafeSubpath(subpath: string, sessionDir: string): boolean {
  if (subpath === "" || isAbsolute(subpath) || subpath.includes("\0")) return false;
  if (subpath.split(/[\\/]/).includes("..")) return false;
  return resolve(sessionDir, `${subpath}.jsonl`).startsWith(sessionDir + sep);
}

async function writeJsonl(path: string, entries: readonly SessionStoreEntry[]): Promise<void> {
  await writeFile(path, entries.map((e) => `${JSON.stringify(e)}\n`).join(""), { mode: 0o600 });
}

/** Settings keys dropped from the copy: plugins live in the real directory, not the temporary one. */
const SETTINGS_DROPPED = ["enabledPlugins", "extraKnownMarketplaces", "additionalMarketplaces"];

/**
 * Copies what the CLI needs to run as it would in its own configuration directory: credentials
 * (without the OAuth refresh token, which only the real directory may rotate), the global state
 * file `.claude.json`, `.config.json` and the user settings (without plugins and without a
 * `CLAUDE_CONFIG_DIR` of their own). Absent files are skipped.
 */
async function copyConfiguration(childEnv: Record<string, string>, target: string): Promise<void> {
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

async function copyIfPresent(from: string, to: string, transform?: (text: string) => string): Promise<void> {
  let text: string;
  try {
    text = await readFile(from, "utf8");
  } catch {
    return;
  }
  await writeFile(to, transform ? transform(text) : text, { mode: 0o600 });
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

/** Runs one store call, failing with {@link SessionStoreError} after `timeoutMs` or on abort. */
async function bounded<T>(
  operation: SessionStoreError["operation"],
  what: string,
  run: () => Promise<T>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<T> {
  if (signal?.aborted) throw abortErrorFor(signal.reason);
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new SessionStoreError(
            operation,
            `SessionStore.${operation}() timed out after ${timeoutMs} ms ${what}`,
            {
              timedOut: true,
            },
          ),
        ),
      timeoutMs,
    );
    if (signal) {
      onAbort = () => reject(abortErrorFor(signal.reason));
      signal.addEventListener("abort", onAbort, { once: true });
    }
  });
  try {
    return await Promise.race([
      Promise.resolve()
        .then(run)
        .catch((error: unknown) => {
          throw new SessionStoreError(
            operation,
            `SessionStore.${operation}() failed ${what}: ${error instanceof Error ? error.message : String(error)}`,
            { cause: error },
          );
        }),
      limit,
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}

function once(run: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= run().catch(() => undefined);
    return done;
  };
}
