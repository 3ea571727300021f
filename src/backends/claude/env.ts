/**
 * The environment and Unix identity of the Claude Code process.
 */
import { readFileSync } from "node:fs";
import { InvalidOptionsError } from "../../errors.js";
import { buildChildEnv } from "../../internal/child-env.js";
import type { AgentOptions } from "../../options.js";

/**
 * The child's environment: `process.env` (unless `inheritEnv: false`), then `options.env` on top
 * (an `undefined` value removes the variable), then the variables that mark the caller as this SDK.
 *
 * `CLAUDE_CODE_ENTRYPOINT=sdk-ts` switches the CLI to its SDK system prompt and behaviour, as the
 * official TypeScript SDK does; it is set last because the CLI's SDK mode depends on it.
 */
export function buildClaudeEnv(
  options: Pick<AgentOptions, "env" | "inheritEnv" | "enableFileCheckpointing" | "toolConfig">,
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

/** A Unix identity for `child_process.spawn({ uid, gid })`. */
export interface UnixIdentity {
  uid: number;
  gid: number | undefined;
}

/**
 * Resolves `options.user` to the uid/gid to spawn the CLI with, reading `/etc/passwd` directly
 * (no native dependency). A numeric user is taken as a uid; its gid comes from `/etc/passwd` when
 * the uid is listed there, otherwise it is left to the OS. Throws `InvalidOptionsError` for a
 * user name that is not in `/etc/passwd`.
 *
 * @param passwdPath Where to read the user database; for tests.
 */
export function resolveUser(
  user: string | number | undefined,
  passwdPath = "/etc/passwd",
): UnixIdentity | undefined {
  if (user === undefined) return undefined;
  const numeric = typeof user === "number" ? user : /^\d+$/.test(user) ? Number(user) : undefined;
  const entries = readPasswd(passwdPath);
  if (numeric !== undefined) {
    if (!Number.isSafeInteger(numeric) || numeric < 0) {
      throw new InvalidOptionsError([`user: ${user} is not a valid uid`]);
    }
    return { uid: numeric, gid: entries.find((e) => e.uid === numeric)?.gid };
  }
  const entry = entries.find((e) => e.name === user);
  if (!entry) {
    const where = entries.length > 0 ? passwdPath : `${passwdPath} (unreadable)`;
    throw new InvalidOptionsError([
      `user: no Unix user named '${user}' in ${where}; pass an existing user name or a numeric uid`,
    ]);
  }
  return { uid: entry.uid, gid: entry.gid };
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
    entries.push({ name, uid: Number(uid), gid: Number(gid) });
  }
  return entries;
}
