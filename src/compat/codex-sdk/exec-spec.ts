/**
 * The official Codex SDK's options in the Codex backend's terms: a turn's `ThreadOptions`,
 * `CodexOptions` and `TurnOptions` become an `ExecCommandSpec` in the official SDK's layout, and
 * the backend's builder writes the `codex exec --experimental-json` line — the one that SDK
 * writes, except that nothing a caller gives can become a flag: thread ids must be UUIDs and follow
 * `--`, the thread's values are checked when the thread is made (see {@link threadOptionIssues}),
 * and a flag value that still starts with `-` is joined to its flag.
 */

import { type ConfigOverride, execCommandArgs } from "../../backends/codex/command.js";
import { CONFIG_KEYS, flattenConfig } from "../../backends/codex/config.js";
import { InvalidOptionsError } from "../../errors.js";
import { looksLikeFlag, NOT_A_FLAG, UUID_PATTERN } from "../../process/argv.js";
import type { CodexConfigObject, CyberAccessProgram, ThreadOptions } from "./options.js";

/** What one turn needs on its command line. */
export interface ExecTurnArgs {
  config?: CodexConfigObject | undefined;
  configOverrides?: string[] | undefined;
  baseUrl?: string | undefined;
  thread: ThreadOptions;
  threadId: string | null;
  outputSchemaFile?: string | undefined;
  cyberAccessProgram?: CyberAccessProgram | undefined;
  images: string[];
}

/** The arguments after the executable, from the backend's builder. */
export function execTurnArgs(turn: ExecTurnArgs): string[] {
  const t = turn.thread;
  if (turn.threadId) {
    const problem = threadIdIssue(turn.threadId);
    if (problem !== undefined) throw new InvalidOptionsError([problem]);
  }
  const config: ConfigOverride[] = [...flattenConfig(turn.config), ...(turn.configOverrides ?? [])];
  if (turn.baseUrl) config.push([CONFIG_KEYS.baseUrl, turn.baseUrl]);
  // The official SDK tests these for truth (an empty string is left out), not for presence.
  const given = (value: string | undefined) => value || undefined;
  return execCommandArgs({
    layout: "official-sdk",
    config,
    model: given(t.model),
    threadSource: t.threadSource,
    sandboxMode: given(t.sandboxMode),
    cwd: given(t.workingDirectory),
    addDirs: t.additionalDirectories,
    skipGitRepoCheck: t.skipGitRepoCheck === true,
    outputSchemaFile: given(turn.outputSchemaFile),
    cyberAccessProgram: turn.cyberAccessProgram,
    settings: threadSettings(t),
    images: turn.images,
    resume: turn.threadId || undefined,
  });
}

/** The thread's config settings, in the order the official SDK writes them. */
function threadSettings(t: ThreadOptions): ConfigOverride[] {
  const out: ConfigOverride[] = [];
  if (t.modelReasoningEffort) out.push([CONFIG_KEYS.reasoningEffort, t.modelReasoningEffort]);
  if (t.networkAccessEnabled !== undefined) out.push([CONFIG_KEYS.networkAccess, t.networkAccessEnabled]);
  const webSearch = webSearchMode(t);
  if (webSearch !== undefined) out.push([CONFIG_KEYS.webSearch, webSearch]);
  if (t.approvalPolicy) out.push([CONFIG_KEYS.approvalPolicy, t.approvalPolicy]);
  return out;
}

/** `web_search`: `webSearchMode`, else `webSearchEnabled` as `"live"` / `"disabled"`. */
export function webSearchMode(t: ThreadOptions): string | undefined {
  if (t.webSearchMode) return t.webSearchMode;
  if (t.webSearchEnabled === true) return "live";
  if (t.webSearchEnabled === false) return "disabled";
  return undefined;
}

/** Why `id` cannot be resumed (a Codex thread id is a UUID), or `undefined` when it can. */
export function threadIdIssue(id: unknown): string | undefined {
  if (typeof id === "string" && UUID_PATTERN.test(id)) return undefined;
  return `id: must be a Codex thread id, a UUID such as 01a2006c-d3d2-7562-819c-e668dc7cb903 (got ${
    typeof id === "string" ? JSON.stringify(id.slice(0, 80)) : typeof id
  })`;
}

/**
 * The thread options that would reach argv as an argument of their own starting with `-` (a
 * model, a directory, a thread source), as `path: message` strings; empty when none.
 */
export function threadOptionIssues(options: ThreadOptions): string[] {
  const values: [string, unknown][] = [
    ["model", options.model],
    ["threadSource", options.threadSource],
    ["sandboxMode", options.sandboxMode],
    ["workingDirectory", options.workingDirectory],
    ...(options.additionalDirectories ?? []).map((dir, i): [string, unknown] => [
      `additionalDirectories[${i}]`,
      dir,
    ]),
  ];
  return values
    .filter(([, value]) => typeof value === "string" && looksLikeFlag(value))
    .map(([path]) => `${path}: ${NOT_A_FLAG}`);
}
