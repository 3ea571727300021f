/**
 * `listSessions` of `code-agent-sdk/acp`: the sessions an ACP agent knows, read with its own
 * `session/list` from a process started for the purpose and always stopped before the call returns.
 */
import { isAbsolute } from "node:path";
import { InvalidOptionsError } from "../../errors.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import type { AcpAgentOptions } from "../../options.js";
import { abortErrorFor, signalOptionIssue } from "../../signals/abort.js";
import { isObject } from "../../wire/read.js";
import { newAcpSession } from "./backend.js";
import { type AcpSessionInfo, DEFAULT_ACP_LIST_LIMIT } from "./session-list.js";
import { validateAcpOptions } from "./validate.js";

/** The options of an ACP agent's process that {@link listSessions} takes, as `query()` reads them. */
type AcpSpawnOptionName =
  | "acp"
  | "cliPath"
  | "cwd"
  | "env"
  | "inheritEnv"
  | "extraArgs"
  | "signal"
  | "stderr"
  | "maxBufferSize"
  | "controlTimeoutMs"
  | "closeGraceMs";

const SPAWN_OPTIONS: ReadonlySet<string> = new Set<AcpSpawnOptionName>([
  "acp",
  "cliPath",
  "cwd",
  "env",
  "inheritEnv",
  "extraArgs",
  "signal",
  "stderr",
  "maxBufferSize",
  "controlTimeoutMs",
  "closeGraceMs",
]);

/**
 * Options of {@link listSessions}: which agent to start and how (the same fields, with the same
 * meaning, as for `query({ backend: "acp", … })`), and what to list.
 */
export interface AcpListSessionsOptions extends Pick<AcpAgentOptions, AcpSpawnOptionName> {
  /**
   * Only the sessions whose working directory is this absolute path (`session/list`'s `cwd`
   * filter). Omitted: every session the agent lists. (`cwd` is where the agent process runs.)
   */
  dir?: string;
  /** At most this many sessions (a positive integer). Default 1000 ({@link DEFAULT_ACP_LIST_LIMIT}). */
  limit?: number;
}

/**
 * Lists the sessions an ACP agent knows, through its `session/list` (a stable part of ACP that an
 * agent declares with `sessionCapabilities.list` in its `initialize` answer). Starts the agent,
 * runs `initialize`, requests page after page (following `nextCursor`) until `limit` sessions are
 * read or the agent has no more, and stops the agent's process group before it returns or throws:
 * also when it fails, times out or `signal` aborts it. Each page is a request bounded by
 * `controlTimeoutMs` (default 60 s).
 *
 * The answer is read as untrusted output: entries without a string `sessionId` and `cwd` (both
 * required by the protocol) are left out, fields other than `title` and `updatedAt` are ignored,
 * and a page that is not a `session/list` answer fails the call. The sessions come in the
 * agent's order. Pass a `sessionId` to `query()` as `resume` (with `forkSession: true` to fork it).
 *
 * @example
 * ```ts
 * import { listSessions } from "code-agent-sdk/acp";
 * const sessions = await listSessions({ acp: { agent: "codex-acp" }, dir: process.cwd(), limit: 10 });
 * for (const s of sessions) console.log(s.sessionId, s.title ?? "", s.updatedAt ?? "");
 * ```
 *
 * @throws InvalidOptionsError for invalid options (an unknown one, a relative `dir`, a `limit`
 *   that is not a positive integer, no agent named).
 * @throws UnsupportedFeatureError when the agent does not declare `sessionCapabilities.list`.
 * @throws CliNotFoundError when the agent's executable is not found.
 * @throws ControlTimeoutError when `initialize` or a page gets no answer within `controlTimeoutMs`.
 * @throws ControlRequestError when the agent answers `session/list` with an error.
 * @throws MessageParseError when a page is not a `session/list` answer, or the pages never end.
 * @throws ProcessError when the agent exits before it answers.
 * @throws AbortError when `signal` aborts.
 */
export async function listSessions(options: AcpListSessionsOptions): Promise<AcpSessionInfo[]> {
  const { spawn, dir, limit } = readListOptions(options);
  if (spawn.signal?.aborted) throw abortErrorFor(spawn.signal.reason);
  const session = newAcpSession(spawn);
  try {
    await session.handshake();
    return await session.listSessions({ dir, limit });
  } catch (error) {
    // Aborted: whatever the pending request failed with, the abort is why.
    if (spawn.signal?.aborted) throw abortErrorFor(spawn.signal.reason);
    throw error;
  } finally {
    await session.close();
  }
}

/**
 * The validated options, split into the agent's (as the ACP backend reads them) and the listing's.
 * @throws InvalidOptionsError listing every problem; UnsupportedOptionsError as the backend does.
 */
function readListOptions(options: unknown): {
  spawn: ResolvedOptions;
  dir: string | undefined;
  limit: number;
} {
  if (!isObject(options)) {
    throw new InvalidOptionsError(["options: must be an object naming the agent (acp.agent or acp.command)"]);
  }
  const issues: string[] = [];
  const spawn: Record<string, unknown> = { backend: "acp" };
  for (const [key, value] of Object.entries(options)) {
    if (key === "dir" || key === "limit") continue;
    if (SPAWN_OPTIONS.has(key)) spawn[key] = value;
    else
      issues.push(
        `${key}: not an option of listSessions (it takes ${[...SPAWN_OPTIONS, "dir", "limit"].join(", ")})`,
      );
  }
  const { dir, limit } = options;
  if (dir !== undefined && (typeof dir !== "string" || !isAbsolute(dir))) {
    issues.push("dir: must be an absolute path (the working directory whose sessions to list)");
  }
  if (limit !== undefined && !(typeof limit === "number" && Number.isSafeInteger(limit) && limit > 0)) {
    issues.push("limit: must be a positive integer");
  }
  const signalIssue = signalOptionIssue(spawn.signal);
  if (signalIssue !== undefined) issues.push(signalIssue);
  if (issues.length > 0) throw new InvalidOptionsError(issues);
  validateAcpOptions(spawn);
  return {
    spawn: spawn as ResolvedOptions,
    dir: dir as string | undefined,
    limit: (limit as number | undefined) ?? DEFAULT_ACP_LIST_LIMIT,
  };
}
