/**
 * The environment and Unix identity of the Claude Code process.
 */
import { readFileSync } from "node:fs";
import { InvalidOptionsError } from "../../errors.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import { buildChildEnv } from "../../process/child-env.js";

/**
 * The child's environment: `process.env` (unless `inheritEnv: false`), then `options.env` on top
 * (an `undefined` value removes the variable), then the variables that mark the caller as this SDK.
 *
 * `CLAUDE_CODE_ENTRYPOINT=sdk-ts` switches the CLI to its SDK system prompt and behaviour, as the
 * official TypeScript SDK does; it is set last because the CLI's SDK mode depends on it.
 */
export function buildClaudeEnv(
  options: Pick<ResolvedOptions, "env" | "inheritEnv" | "enableFileCheckpointing" | "toolConfig">,
  sdkVersion: string,
): Record<string, string> {
  const env = buildChildEnv(options);
  env.CLAUDE_CODE_ENTRYPOINT = "sdk-ts";
  env.CLAUDE_AGENT_SDK_VERSION = sdkVersion;
  // `rewind_files` only works when the CLI checkpoints files from the start of the session.
  if (options.enableFileCheckpointing) env.CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING = "true";
  // `toolConfig` reaches the CLI as variables, as the official SDK passes it.
  const question = options.toolConfig?.askUserQuestion;
  if (question?.previewFormat) env.CLAUDE_CODE_QUESTION_PREVIEW_FORMAT = question.previewFormat;
  if (question?.extendedQuestions) env.CLAUDE_CODE_QUESTION_EXTENDED = "1";
  if (question?.optionalDescriptions) env.CLAUDE_CODE_QUESTION_OPTIONAL_DESCRIPTIONS = "1";
  return env;
}

/** A Unix identity for `child_process.spawn({ uid, gid })`: both ids, always. */
export interface UnixIdentity {
  uid: number;
  gid: number;
}

/** The largest id `child_process.spawn` takes (it checks uid and gid as int32). */
const MAX_ID = 2 ** 31 - 1;

/**
 * Resolves `options.user` to the uid and gid to spawn the CLI with, reading `/etc/passwd` directly
 * (no native dependency):
 * - a user name: its uid and primary gid from `/etc/passwd`;
 * - a numeric uid (number or digit string): its primary gid from `/etc/passwd`; a uid that is not
 *   listed there has no known group, so it is refused rather than left with this process's group
 *   (gid 0 for a root host);
 * - `{ uid, gid }`: both taken as given, listed or not.
 *
 * The CLI then runs with that uid and gid and no supplementary groups: Node's `spawn` drops them
 * when it switches ids and has no `initgroups()`, so the user's other groups do not apply.
 *
 * @param passwdPath Where to read the user database; for tests.
 * @throws InvalidOptionsError for an unknown name, an unlisted uid without a gid, or an id out of
 *   range.
 */
export function resolveUser(
  user: string | number | { uid: number; gid: number } | undefined,
  passwdPath = "/etc/passwd",
): UnixIdentity | undefined {
  if (user === undefined) return undefined;
  if (typeof user === "object" && user !== null) {
    const { uid, gid } = user as { uid: unknown; gid: unknown };
    const problems = [...idProblems("user.uid", uid), ...idProblems("user.gid", gid)];
    if (problems.length > 0) throw new InvalidOptionsError(problems);
    return { uid: uid as number, gid: gid as number };
  }
  if (typeof user !== "string" && typeof user !== "number") {
    throw new InvalidOptionsError(["user: expected a user name, a uid or { uid, gid }"]);
  }
  const numeric = typeof user === "number" ? user : /^\d+$/.test(user) ? Number(user) : undefined;
  const entries = readPasswd(passwdPath);
  const where = entries.length > 0 ? passwdPath : `${passwdPath} (unreadable)`;
  if (numeric !== undefined) {
    const problems = idProblems("user", numeric);
    if (problems.length > 0) throw new InvalidOptionsError(problems);
    const entry = entries.find((e) => e.uid === numeric);
    if (entry === undefined) {
      throw new InvalidOptionsError([
        `user: uid ${numeric} is not in ${where}, so its group is unknown; ` +
          `pass { uid: ${numeric}, gid: <its group id> } (the CLI would otherwise keep this process's group)`,
      ]);
    }
    return { uid: numeric, gid: entry.gid };
  }
  const entry = entries.find((e) => e.name === user);
  if (!entry) {
    throw new InvalidOptionsError([
      `user: no Unix user named '${user}' in ${where}; pass an existing user name, a listed uid or { uid, gid }`,
    ]);
  }
  return { uid: entry.uid, gid: entry.gid };
}

function idProblems(path: string, id: unknown): string[] {
  return Number.isSafeInteger(id) && (id as number) >= 0 && (id as number) <= MAX_ID
    ? []
    : [`${path}: expected an integer id from 0 to ${MAX_ID}`];
}

interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
}

function readPasswd(path: string): PasswdEntry[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    // No passwd file (containers, non-Unix): numeric uids still work, names cannot be resolved.
    return [];
  }
  const entries: PasswdEntry[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const [name, , uid, gid] = line.split(":");
    if (!name || !uid || !gid || !/^\d+$/.test(uid) || !/^\d+$/.test(gid)) continue;
    const entry = { name, uid: Number(uid), gid: Number(gid) };
    if (entry.uid <= MAX_ID && entry.gid <= MAX_ID) entries.push(entry);
  }
  return entries;
}
