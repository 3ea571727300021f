/**
 * The backend abstraction: each agent CLI (Claude, Codex, Cursor) is a `Backend` that validates
 * options and opens `Session`s. The public `query()` and `AgentSdkClient` only talk to these.
 */

import type { McpServerConfig } from "../mcp/config.js";
import type { Message } from "../messages.js";
import type { ResolvedOptions } from "../options/resolved.js";
import type { BackendKind } from "../options.js";
import type { PermissionMode } from "../permissions.js";
import type { Prompt } from "../prompt.js";
import type { McpSetServersResult } from "./claude/control-results.js";
import type { ClaudeInitializeResponse, McpServerStatus, RewindFilesResult } from "./claude/control-types.js";

export type { RewindFilesResult };

/** What a backend can do. Client methods that need a missing capability throw `UnsupportedFeatureError`. */

/**
 * What `serverInfo()` returns once connected. Claude: the CLI's `initialize` answer (the fields of
 * {@link ClaudeInitializeResponse}: commands, agents, models, account, version, pid, …). Codex:
 * `threadId` and `mode` (`exec` | `app-server`) plus the app-server's initialize answer. Cursor:
 * `backend`, `cliPath`, `cliVersion`, `sessionId` (the chat id) and the last `init` event.
 */
export interface ServerInfo extends Partial<ClaudeInitializeResponse> {
  threadId?: string;
  mode?: string;
  backend?: string;
  cliPath?: string;
  cliVersion?: string;
  sessionId?: string;
  [field: string]: unknown;
}

/** One entry of Codex's `mcpServerStatus/list` (tools by name, `authStatus`). */
export interface CodexMcpServerStatus {
  name: string;
  tools?: Record<string, unknown>;
  authStatus?: string;
  [field: string]: unknown;
}

/** One entry of `mcpServerStatus()`: Claude's {@link McpServerStatus}, or Codex's entry. */
export type McpServerStatusEntry = McpServerStatus | CodexMcpServerStatus;

export interface Capabilities {
  /** Claude-style control_request/control_response in both directions. */
  controlProtocol: boolean;
  /** `canUseTool` is called for tool approvals. */
  toolApproval: boolean;
  /** SDK hook callbacks. */
  hooks: boolean;
  /** In-process (SDK) MCP servers. */
  sdkMcpRouting: boolean;
  /** One long-lived process serves all turns. */
  persistentSession: boolean;
  /**
   * The process can be started and through its handshake before the prompt is known (`startup()`,
   * `WarmPool`). False for a backend that runs one process per turn.
   */
  warmStart: boolean;
  /** A running turn can be interrupted. */
  interrupt: boolean;
  /** `setModel` / `setPermissionMode` while a session runs. */
  runtimeConfigChanges: boolean;
  /**
   * `setModel` for the following turns. Implied by `runtimeConfigChanges`; a backend may switch
   * models between turns without supporting other runtime changes (Codex).
   */
  modelSwitching: boolean;
  /** `getMcpStatus()`: the connection state of the session's MCP servers. */
  mcpStatus: boolean;
  /** Which tool calls `canUseTool` decides: see {@link ToolPolicyCoverage}. */
  toolPolicy: ToolPolicyCoverage;
}

/**
 * Which of the agent's tool calls reach `canUseTool`:
 * - `"every-call"`: every call (Claude, through a `PreToolUse` hook; bookkeeping tools and the
 *   `bypassPermissions` mode excepted, see `AgentOptions.canUseToolScope`);
 * - `"asked-calls"`: the calls the CLI decides to ask about — it runs others without asking (Codex:
 *   MCP tool calls, unless their server's approval mode is `prompt`; an ACP agent: what it runs
 *   itself without a permission request);
 * - `"none"`: the backend has no permission callback (Cursor's print mode).
 */
export type ToolPolicyCoverage = "every-call" | "asked-calls" | "none";

/** Options for rewinding files (Claude). */
export interface RewindFilesOptions {
  /** Report what would change without changing it. */
  dryRun?: boolean;
}

/** A live conversation with an agent. One per `query()` or `AgentSdkClient` connection. */
export interface Session {
  /** Sends one user turn (or streams every item of an AsyncIterable prompt). */
  send(prompt: Prompt, sessionId?: string): Promise<void>;
  /** Resolves once every user turn sent so far has produced its `result`, or the session ended. */
  idle(): Promise<void>;
  /**
   * Resolves once the oldest turn still waiting for its `result` has it, or the session ended
   * (never rejects); `undefined` when no turn waits. Where it exists, `AgentSdkClient.query()` after
   * `interrupt()` waits on it (bounded) before sending.
   */
  runningTurnSettled?(): Promise<void> | undefined;
  /** No more user input will come; the agent may finish and exit. */
  endInput(): Promise<void>;
  /**
   * Subscribes to the session's messages. A new subscription first receives every message no earlier
   * subscription has received, then everything after; concurrent subscriptions each see every message.
   * With `untilResult`, the subscription ends after the next `result`.
   */
  subscribe(opts?: { untilResult?: boolean }): AsyncGenerator<Message, void, undefined>;
  /**
   * Keeps the messages of the current turn that one subscription already took, so an `untilResult`
   * subscription started later still sees the turn from its start (bounded in count and size).
   * Costs memory and time per message, so it is off unless asked for: `AgentSdkClient` (where
   * `receiveMessages()` and `receiveResponse()` run side by side) asks right after opening.
   */
  retainTurns?(): void;
  /** The pid of the CLI process currently running, when the transport is a local process. */
  pid?(): number | undefined;
  /** Whether the session's process keeps the host alive (see `Transport.setKeepAlive`). */
  setKeepAlive?(keep: boolean): void;
  /** Whether the session can still take a prompt: its process runs and it was not closed. */
  isAlive?(): boolean;
  /**
   * Why the session ended, once `isAlive()` is false: the error its readers get (a `ProcessError`
   * for a process that died), or `undefined` when it ended cleanly or was closed without one.
   */
  endReason?(): unknown;
  /**
   * Resolves once the session has shut down, its process gone: closed, or ended by itself (a
   * crash included). Never rejects.
   */
  closed?(): Promise<void>;
  /**
   * Binds a spare Claude Code process (started with `--await-claim`) to a session: the
   * `claim_session` request with `fields`; resolves with the CLI's answer, whose `initialize`
   * snapshot then becomes {@link serverInfo}. Claude only.
   */
  claimSession?(fields: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** The backend's handshake answer (Claude: the `initialize` response), once connected. */
  serverInfo(): ServerInfo | undefined;
  interrupt(): Promise<void>;
  // The controls below are absent from a session whose backend lacks them: the engine
  // (`api/engine.ts`) refuses them with `UnsupportedFeatureError` from the backend's capabilities
  // first, and from their absence (a session mode without them, e.g. `codex exec`).
  /** Changes the permission mode (`runtimeConfigChanges`). */
  setPermissionMode?(mode: PermissionMode): Promise<void>;
  /** Switches the model for the following turns (`modelSwitching`). */
  setModel?(model?: string): Promise<void>;
  /** Changes the thinking budget (`runtimeConfigChanges`). */
  setMaxThinkingTokens?(tokens: number | null): Promise<void>;
  /** Restores files to their state at a user message (`controlProtocol`). */
  rewindFiles?(userMessageId: string, options?: RewindFilesOptions): Promise<RewindFilesResult>;
  /** The connection status of the session's MCP servers (`mcpStatus`). */
  mcpServerStatus?(): Promise<McpServerStatusEntry[]>;
  /** Runs the handshake again and returns the new answer (Claude only). */
  reinitialize?(): Promise<Record<string, unknown>>;
  /** Replaces the session's MCP servers, in-process ones included (Claude only). */
  setMcpServers?(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult>;
  /** Sends a raw control request and returns its response payload (`controlProtocol`: Claude). */
  controlRequest?(request: { subtype: string; [key: string]: unknown }): Promise<Record<string, unknown>>;
  /**
   * Ends the session: closes input, terminates the process (group), releases everything. Idempotent.
   * With `reason`, subscribers get it as an error after draining; without, they finish normally.
   */
  close(reason?: unknown): Promise<void>;
}

/** How a session is opened. */
export interface OpenSessionParams {
  options: ResolvedOptions;
  /**
   * One-shot semantics: the caller will send a single string/content prompt and input ends after
   * the first `result` (Codex/Cursor use this to pick their one-shot command).
   */
  oneShot: boolean;
  /** The first prompt, when it is known at open time (one-shot CLIs need it in argv). */
  initialPrompt?: Prompt;
}

/** An agent CLI integration. */
export interface Backend {
  readonly name: BackendKind;
  readonly capabilities: Capabilities;
  /** Throws `InvalidOptionsError` / `UnsupportedOptionsError` listing every problem. Spawns nothing. */
  validateOptions(options: ResolvedOptions): void;
  /**
   * Validates the options (as {@link validateOptions}, before anything is spawned), then spawns and
   * handshakes. The initial prompt, if given, is already sent when this resolves.
   */
  openSession(params: OpenSessionParams): Promise<Session>;
  /**
   * Runs the code a first session runs, without a process (in-memory stand-in), so V8 has compiled
   * it before the first real one. Called once, when the host is idle after import. @internal
   */
  warmUp?(): Promise<void>;
}
