/**
 * Public shapes of the Claude session helpers. Field names follow the official
 * `@anthropic-ai/claude-agent-sdk` helpers of the same name (`SDKSessionInfo`, `SessionMessage`,
 * `ListSessionsOptions`, …), in this SDK's camelCase where the official type is snake_case.
 */
import type { ContentBlock, RawObject } from "../../../messages.js";
import type { SessionStore } from "./store-types.js";

/** Where the helpers look: shared by every session helper. */
export interface SessionStoreOptions {
  /**
   * Claude Code's configuration directory, which holds `projects/`. Default:
   * `$CLAUDE_CONFIG_DIR`, else `~/.claude` — the same directory the CLI uses. Pass the `HOME`-side
   * directory of an isolated environment (e.g. `model.env().CLAUDE_CONFIG_DIR`) to read its sessions.
   */
  configDir?: string;
}

/** Options that name the project a session belongs to. */
export interface SessionLocationOptions extends SessionStoreOptions {
  /**
   * The project directory the session ran in (its `cwd`). When omitted every project directory is
   * searched. Symlinks are resolved, as the CLI does. With `sessionStore`, the project whose key is
   * used (default: the current directory).
   */
  dir?: string;
  /**
   * Read (and, for the helpers that change sessions, write) this store instead of the local files:
   * the sessions mirrored with `options.sessionStore`. Keys are `{ projectKey: encodeProjectDir(dir
   * ?? process.cwd()), sessionId }`. `archiveSession` / `unarchiveSession` reject it.
   */
  sessionStore?: SessionStore;
}

/** Options of {@link listSessions}. */
export interface ListSessionsOptions extends SessionLocationOptions {
  /** At most this many sessions (after `offset`). */
  limit?: number;
  /** Skip this many sessions of the sorted list. Default 0. */
  offset?: number;
  /**
   * With `dir` inside a git repository, also list the sessions of its other worktrees (found with
   * `git worktree list`). Default `true`, as in the official SDK.
   */
  includeWorktrees?: boolean;
  /**
   * Include sessions started by SDKs and `-p` runs (`entrypoint` `sdk-cli`, `sdk-ts`, `sdk-py`).
   * Default `true`; pass `false` for the sessions a person started in the terminal, like `/resume`.
   */
  includeProgrammatic?: boolean;
}

/** Metadata of one stored session (official `SDKSessionInfo`). */
export interface SessionInfo {
  /** The session's UUID; pass it to `options.resume`. */
  sessionId: string;
  /** Display title: the custom title, else the last prompt, a summary, or the first prompt. */
  summary: string;
  /** Last modification of the transcript file, ms since the epoch. */
  lastModified: number;
  /**
   * Size of the transcript file in bytes (with a `sessionStore`: of its entries as JSONL). Absent
   * for sessions listed from a store's `listSessionSummaries`, which do not know it.
   */
  fileSize?: number;
  /** Title set with {@link renameSession}, `/rename` or a fork. */
  customTitle?: string;
  /** First prompt a person (or SDK) typed in the session. */
  firstPrompt?: string;
  /** Git branch recorded last. */
  gitBranch?: string;
  /** Working directory of the session. */
  cwd?: string;
  /** Tag set with {@link tagSession}. */
  tag?: string;
  /** Time of the first entry, ms since the epoch. */
  createdAt?: number;
  /**
   * Set by {@link archiveSession}: `true` while archived; `false` once unarchived or after a prompt
   * was sent in the session. Absent when it never was archived, and for sessions read from a
   * `sessionStore`.
   */
  archived?: boolean;
}

/** Options of the helpers that change a session (official `SessionMutationOptions`). */
export type SessionMutationOptions = SessionLocationOptions;

/** Options of {@link getSessionMessages} and {@link getSubagentMessages}. */
export interface GetSessionMessagesOptions extends SessionLocationOptions {
  /** At most this many messages (after `offset`). */
  limit?: number;
  /** Skip this many messages from the start. Default 0. */
  offset?: number;
  /** Also return `system` entries (compact boundaries, notices). Default `false`. */
  includeSystemMessages?: boolean;
}

/** One conversation message read from a transcript (official `SessionMessage`). */
export interface SessionMessage {
  type: "user" | "assistant" | "system";
  uuid: string;
  /** The session the message belongs to (the parent session for a subagent's messages). */
  sessionId: string;
  /** The API message as stored (`{ role, content, … }`); absent on `system` entries. */
  message: unknown;
  /** `message.content` parsed into this SDK's content blocks (a string stays a string). */
  content: string | ContentBlock[];
  /** For a subagent's messages: the `Task`/`Agent` tool call that started it; else `null`. */
  parentToolUseId: string | null;
  /** For a nested subagent: the agent id of the subagent that started it; else `null`. */
  parentAgentId: string | null;
  /** ISO time the CLI wrote the entry. */
  timestamp?: string;
  /** The summary a compaction left in place of the earlier conversation. */
  isCompactSummary?: true;
  /** Shown to the model but not typed by anyone: a compaction summary or transcript-only note. */
  isMeta?: true;
  /** The record of a local slash command (`/compact`, `/cost`, …) and its output. */
  isCompletedLocalCommand?: true;
  /** The transcript entry as stored. */
  raw: RawObject;
}

/** Options of {@link forkSession}. */
export interface ForkSessionOptions extends SessionLocationOptions {
  /** Copy the conversation up to and including the entry with this `uuid` (see {@link SessionMessage.uuid}). */
  upToMessageId?: string;
  /** Title of the fork. Default: the source's title (or first prompt) followed by ` (fork)`. */
  title?: string;
}

/** Result of {@link forkSession}. */
export interface ForkSessionResult {
  /** The new session's UUID; resumable with `options.resume`. */
  sessionId: string;
}
