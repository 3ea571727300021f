/**
 * `AgentOptions`: one plain object configures a session, typed per backend. A neutral core
 * ({@link CommonOptions}) means the same on every backend; each backend adds its own fields, valid
 * only with that `backend` ({@link ClaudeAgentOptions}, {@link CodexAgentOptions},
 * {@link CursorAgentOptions}, {@link AcpAgentOptions}), so a Claude-only option with
 * `backend: "codex"` is a compile-time error. Which backend honours which option is one table,
 * `OPTION_SUPPORT` (`options/support.ts`); JavaScript callers get the same refusals at run time
 * (`UnsupportedOptionsError`, before anything is spawned).
 */

import type { HookMap } from "./backends/claude/hooks.js";
import type { SessionStore, SessionStoreFlush } from "./backends/claude/sessions/store-types.js";
import type { ClaudeSettings } from "./backends/claude/settings.generated.js";
import type { InstallProgress } from "./install/installer.js";
import type { McpServerConfig } from "./mcp/config.js";
import type { ACP_AGENT_PRESETS } from "./options/acp-presets.js";
import type { BackendKind, CommonOptionName, OptionNamesOf } from "./options/support.js";
import type { CanUseTool, PermissionMode } from "./permissions.js";
import type { TelemetryOptions } from "./telemetry/types.js";
import type { RecordOptions } from "./transport/recording.js";
import type { SpawnClaudeCodeProcess } from "./transport/spawned-process.js";
import type { Transport } from "./transport/transport.js";

export type { ClaudeSettings } from "./backends/claude/settings.generated.js";

export type { BackendKind } from "./options/support.js";

/** Reasoning effort. */
export type Effort = "low" | "medium" | "high" | "xhigh" | "max";

/** How thinking is shown: `summarized` thinking text, or `omitted` (`--thinking-display`). */
export type ThinkingDisplay = "summarized" | "omitted";

/**
 * Thinking behaviour (Claude), passed as the official SDK does: `adaptive` → `--thinking=adaptive`;
 * `enabled` with `budgetTokens` → `--max-thinking-tokens N` (without: adaptive); `disabled` →
 * `--thinking=disabled`; `display` → `--thinking-display`.
 */
export type ThinkingConfig =
  | { type: "adaptive"; display?: ThinkingDisplay }
  | { type: "enabled"; budgetTokens?: number; display?: ThinkingDisplay }
  | { type: "disabled" };

/**
 * Which on-disk settings the CLI loads: `user` (`~/.claude/settings.json`), `project`
 * (`.claude/settings.json`, and CLAUDE.md), `local` (`.claude/settings.local.json`). Omitted: all
 * of them, like the official SDK and the bare CLI; `[]` loads none (isolation).
 */
export type SettingSource = "user" | "project" | "local";

/**
 * The system prompt, sent in the `initialize` request as the official SDK does: a string (or a list
 * of strings) replaces Claude Code's prompt; `{ type: "custom", prompt }` the same with `snapshot`;
 * `{ type: "preset", preset: "claude_code" }` keeps Claude Code's own prompt, with `append`ed text and
 * `excludeDynamicSections`. Omitted: an empty prompt (a bare agent, as in the official SDK).
 */
export type SystemPromptConfig =
  | string
  | string[]
  | { type: "custom"; prompt: string | string[]; snapshot?: boolean }
  | {
      type: "preset";
      preset: "claude_code";
      append?: string;
      excludeDynamicSections?: boolean;
      snapshot?: boolean;
    };

/** Which built-in tools exist: a list of names, or Claude Code's default set. */
export type ToolsConfig = string[] | { type: "preset"; preset: "claude_code" };

/** A permission mode as the CLI names it (see `PermissionMode`). */
export type AgentPermissionMode =
  | "default"
  | "acceptEdits"
  | "bypassPermissions"
  | "plan"
  | "dontAsk"
  | "auto";

/**
 * A subagent defined in code (sent in the `initialize` request). Every field of the official SDK
 * 0.3.330 is typed; fields this SDK does not know yet are passed to the CLI unchanged, with a
 * one-time warning.
 */
export interface AgentDefinition {
  /** When the main agent should use this subagent. */
  description: string;
  /** The subagent's system prompt. */
  prompt: string;
  /** Tools it may use; omitted: all of the parent's. */
  tools?: string[];
  /** Tools removed for it (`mcp__server` removes a whole MCP server). */
  disallowedTools?: string[];
  model?: "sonnet" | "opus" | "haiku" | "inherit" | (string & {});
  /** MCP servers: names of the parent's servers, or `{ name: config }` objects. */
  mcpServers?: (string | Record<string, unknown>)[];
  criticalSystemReminder_EXPERIMENTAL?: string;
  /** Skills it may use. */
  skills?: string[];
  /** A first user message sent to it. */
  initialPrompt?: string;
  maxTurns?: number;
  autoCompactWindow?: number;
  /** Always run it in the background. */
  background?: boolean;
  /** Leave CLAUDE.md out of its context. */
  omitClaudeMd?: boolean;
  memory?: "user" | "project" | "local";
  effort?: Effort | number;
  permissionMode?: AgentPermissionMode;
  observer?: string;
  observerMessage?: string;
  /** Fields of newer CLIs: passed through unchanged (with a one-time warning). */
  [field: string]: unknown;
}

/** A local plugin directory. */
export interface PluginConfig {
  type: "local";
  path: string;
  /** Load the plugin without its MCP servers (`--plugin-dir-no-mcp`). */
  skipMcpDiscovery?: boolean;
  /** Fields of newer CLIs: passed through unchanged (with a one-time warning). */
  [field: string]: unknown;
}

/** A credential file or variable the sandbox hides (`deny`) or masks (`mask`). */
export interface SandboxCredentialRule {
  mode: "deny" | "mask";
  extract?: string;
  onExtractNoMatch?: "deny" | "error" | "warn";
  decode?: "jwt";
  maskClaims?: string[];
  injectHosts?: string[];
  [field: string]: unknown;
}

/**
 * Sandbox settings, merged into the CLI's `--settings` JSON under `sandbox` the way the official SDK
 * merges them (see `resolveClaudeSettings`). Every field the official SDK 0.3.330 publishes is
 * typed; unknown fields are passed through with a one-time warning.
 */
export interface SandboxSettings {
  enabled?: boolean;
  /** Fail instead of running unsandboxed when the sandbox cannot start. Default `true` with `enabled: true`. */
  failIfUnavailable?: boolean;
  autoAllowBashIfSandboxed?: boolean;
  allowUnsandboxedCommands?: boolean;
  network?: {
    allowedDomains?: string[];
    deniedDomains?: string[];
    strictAllowlist?: boolean;
    allowManagedDomainsOnly?: boolean;
    allowUnixSockets?: string[];
    allowAllUnixSockets?: boolean;
    allowLocalBinding?: boolean;
    allowMachLookup?: string[];
    httpProxyPort?: number;
    socksProxyPort?: number;
    tlsTerminate?: { caCertPath?: string; caKeyPath?: string; [field: string]: unknown };
    [field: string]: unknown;
  };
  filesystem?: {
    allowWrite?: string[];
    denyWrite?: string[];
    denyRead?: string[];
    allowRead?: string[];
    allowManagedReadPathsOnly?: boolean;
    disabled?: boolean;
    [field: string]: unknown;
  };
  credentials?: {
    files?: (SandboxCredentialRule & { path: string; maskDuplicates?: boolean })[];
    envVars?: (SandboxCredentialRule & { name: string })[];
    allowPlaintextInject?: boolean;
    awsPairs?: { accessKeyIdVar: string; secretAccessKeyVar: string; sessionTokenVar?: string }[];
    sigv4?: {
      streaming?: "deny" | "passthrough";
      presigned?: "deny" | "passthrough";
      sigv4a?: "deny" | "passthrough";
    };
    [field: string]: unknown;
  };
  ignoreViolations?: Record<string, string[]>;
  enableWeakerNestedSandbox?: boolean;
  allowNestedUserNamespaces?: boolean;
  enableWeakerNetworkIsolation?: boolean;
  allowAppleEvents?: boolean;
  excludedCommands?: string[];
  ripgrep?: { command: string; args?: string[] };
  bwrapPath?: string;
  socatPath?: string;
  [field: string]: unknown;
}

/** Per-tool configuration of built-in tools (passed as environment variables, as the official SDK does). */
export interface ToolConfig {
  askUserQuestion?: {
    /** `CLAUDE_CODE_QUESTION_PREVIEW_FORMAT`. */
    previewFormat?: "markdown" | "html";
    /** `CLAUDE_CODE_QUESTION_EXTENDED=1`. */
    extendedQuestions?: boolean;
    /** `CLAUDE_CODE_QUESTION_OPTIONAL_DESCRIPTIONS=1`. */
    optionalDescriptions?: boolean;
  };
}

/** An MCP elicitation the CLI forwards (an MCP server asks the user for input). */
export interface ElicitationRequest {
  serverName: string;
  message: string;
  mode?: "form" | "url";
  url?: string;
  elicitationId?: string;
  requestedSchema?: Record<string, unknown>;
  title?: string;
  displayName?: string;
  description?: string;
  /** The control request as the CLI sent it. */
  raw: Record<string, unknown>;
}

/** The answer to an elicitation (MCP `ElicitResult`). */
export interface ElicitationResult {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
  [field: string]: unknown;
}

/**
 * Answers MCP elicitations. Without it they are declined. Returning `null` sends an empty answer,
 * so the CLI applies its default. Throwing sends an error answer.
 */
export type OnElicitation = (
  request: ElicitationRequest,
  context: { signal: AbortSignal; requestId: string },
) => Promise<ElicitationResult | null>;

/** A blocking dialog the CLI asks the host to render (`request_user_dialog`). */
export interface UserDialogRequest {
  dialogKind: string;
  payload: Record<string, unknown>;
  toolUseId?: string;
  /** The control request as the CLI sent it. */
  raw: Record<string, unknown>;
}

/** The answer to a dialog: `cancelled` lets the CLI apply the dialog's default. */
export type UserDialogResult = { behavior: "completed"; result: unknown } | { behavior: "cancelled" };

/**
 * Renders the dialogs declared in `supportedDialogKinds`. Without it, dialogs get no answer from this
 * SDK (another client may render them; the CLI's deadline bounds the wait), as in the official SDK.
 */
export type OnUserDialog = (
  request: UserDialogRequest,
  context: { signal: AbortSignal; requestId: string },
) => Promise<UserDialogResult | null>;

/** Structured output: the final answer must match this JSON schema. */
export interface OutputFormat {
  type: "json_schema";
  schema: Record<string, unknown>;
}

/** A Codex configuration value (TOML): a string, number, boolean, array or table of them. */
export type CodexConfigValue =
  | string
  | number
  | boolean
  | CodexConfigValue[]
  | { [key: string]: CodexConfigValue };

/** Codex-only options (see the Codex backend; verified against codex 0.169.0). */
export interface CodexOptions {
  /**
   * When Codex asks before running a command or applying a patch. `untrusted`: everything but
   * known-safe read-only commands; `on-request`: when the model asks to leave the sandbox; `never`:
   * never (what the sandbox blocks fails). Requests go to `canUseTool`; without it they are declined.
   *
   * Default: `untrusted` when `canUseTool` is set. Otherwise it depends on how the query runs: a
   * one-shot `codex exec` run (no callback, no streaming) always runs as `never` — exec cannot ask,
   * and a configured `untrusted` would make it exit — while an `AgentSdkClient` or streamed query
   * (`codex app-server`) uses the CLI's configuration (`config.toml`). Setting `untrusted` or
   * `on-request` on a one-shot query moves it to the app-server. (Codex 0.169 no longer accepts
   * `on-failure`.)
   */
  approvalPolicy?: "untrusted" | "on-request" | "never";
  /** What model-generated commands may touch (`--sandbox`). Default: the CLI's configuration. */
  sandboxMode?: "read-only" | "workspace-write" | "danger-full-access";
  /** `model_reasoning_effort`. The shared `effort` sets it too (`max` excepted); set only one. */
  reasoningEffort?: "minimal" | "low" | "medium" | "high" | "xhigh";
  /** Network access for commands in the `workspace-write` sandbox. */
  networkAccess?: boolean;
  /**
   * Extra configuration overrides, each passed as `-c key=value` with the value TOML-encoded:
   * `{ "shell_environment_policy.inherit": "all", "tools.web_search": true }`. Applied last.
   */
  config?: Record<string, CodexConfigValue>;
  /** Pass `--skip-git-repo-check` to `codex exec`, so it runs outside a Git repository. Default true. */
  skipGitRepoCheck?: boolean;
}

/** Cursor-only options (see the Cursor backend). */
export interface CursorOptions {
  /** `--force`: run every tool without asking (print mode has no permission callback). */
  forceApprove?: boolean;
  /** `--mode plan|ask`: read-only planning or question answering instead of the agent. */
  mode?: "plan" | "ask";
  /** `--trust`: trust the workspace without the interactive prompt. */
  trustWorkspace?: boolean;
  /** `--sandbox enabled|disabled`: Cursor's own command sandbox (not Claude's `sandbox` settings). */
  sandbox?: "enabled" | "disabled";
  /** Sets `CURSOR_API_KEY` in the CLI's environment (never in argv). Default: the env var, else the local login. */
  apiKey?: string;
  /** `--stream-partial-output`: text deltas as `stream_event`s. Default: `includePartialMessages`. */
  partialOutput?: boolean;
}

/** The agents the ACP backend knows how to start (see `AcpOptions.agent`). */
export type AcpAgentPreset = (typeof ACP_AGENT_PRESETS)[number];

/**
 * ACP-only options (the `acp` backend drives any agent that speaks the Agent Client Protocol over
 * stdio). Name a preset, or give the command; `cliPath` also sets the executable.
 */
export interface AcpOptions {
  /**
   * A known agent: the backend finds its executable (the native binary where the npm package has
   * one, so signals reach it) and passes its ACP flags. Pointing the agent at a model is the
   * agent's own configuration (environment, config files); see `code-agent-sdk/testing`.
   */
  agent?: AcpAgentPreset;
  /** The agent's executable (path or name on `PATH`). Overrides the preset's; required without one. */
  command?: string;
  /** Arguments of the agent's ACP mode. Default: the preset's (e.g. `["--acp"]`); none without a preset. */
  args?: string[];
  /**
   * Serve the agent's `fs/read_text_file` and `fs/write_text_file` requests, confined to the
   * session's working directory (every path component checked without following a link out;
   * regular files only; each write put to `canUseTool` first, toolName `"fs/write_text_file"`).
   * `false`: the capability is not advertised and such requests are refused. Default `true`.
   */
  clientFs?: boolean;
  /**
   * Serve the agent's `terminal/*` requests: commands run in the session's working directory (or
   * below it), in their own process group, killed when released or when the session ends.
   * `false`: the capability is not advertised and such requests are refused. Default `true`.
   * Each command is put to `canUseTool` first (toolName `"terminal/create"`, see docs/acp.md).
   */
  terminal?: boolean;
  /**
   * Most terminals one session has at once (not yet released by the agent); a `terminal/create`
   * beyond it is refused (JSON-RPC error, `data.reason: "terminal-limit"`). Default 16.
   */
  maxTerminals?: number;
  /** A session mode to switch to right after the session starts (`session/set_mode`), e.g. `"default"`. */
  mode?: string;
  /** An `authenticate` method id to call before the session starts (when the agent asks for one). */
  authMethod?: string;
}

/**
 * Every option of every backend, each documented once. Not public as such: each backend's option
 * type picks the fields `OPTION_SUPPORT` lists for it (the TSDoc travels with the pick).
 */
interface OptionFields {
  // ── backend selection ──
  /** Which CLI to drive. Default `"claude"`. `"acp"`: any Agent Client Protocol agent (see `acp`). */
  backend?: BackendKind;
  /** Codex-specific options. */
  codex?: CodexOptions;
  /** Cursor-specific options. */
  cursor?: CursorOptions;
  /** ACP-specific options: which agent, and what the client side serves. */
  acp?: AcpOptions;

  // ── execution environment ──
  /** Path to the CLI binary; skips discovery. Official SDK: `pathToClaudeCodeExecutable`. */
  cliPath?: string;
  /**
   * When discovery finds no CLI, install it into the per-user cache (`installCli`) and use it:
   * `true` for the latest version, or `{ version, cacheDir }`. Claude and Codex only; off by
   * default — nothing is ever installed unasked or globally. Ignored when `cliPath` is set.
   */
  autoInstallCli?: boolean | { version?: string; cacheDir?: string };
  /** Progress of an automatic install. Without it, the install is announced with `process.emitWarning`. */
  onCliInstallProgress?: (event: InstallProgress) => void;
  /** Working directory of the agent. Default: `process.cwd()`. */
  cwd?: string;
  /**
   * Extra environment variables, layered over `process.env`; `undefined` removes one. (The official
   * SDK's `env` replaces `process.env` instead; here that is `inheritEnv: false`.)
   */
  env?: Record<string, string | undefined>;
  /** `false`: the CLI gets only `env` (plus the SDK's own variables), not `process.env`. Default `true`. */
  inheritEnv?: boolean;
  /**
   * OpenTelemetry spans and metrics of the run (`invoke_agent` per turn, `execute_tool` per tool
   * call, the GenAI client metrics), and the CLI's own telemetry joined to them: see
   * {@link TelemetryOptions}. Without it, a run is instrumented only when the host registered a
   * global tracer or meter provider. Not taken from queue jobs.
   */
  telemetry?: TelemetryOptions;
  /**
   * Run the CLI as this Unix user: a name or a uid listed in `/etc/passwd` (its primary group
   * comes from there), or `{ uid, gid }` for ids that are not listed. A uid that is not listed is
   * refused without a `gid`, never left with this process's group. The CLI gets no supplementary
   * groups (Node's spawn drops them). Needs the privileges to switch.
   */
  user?: string | number | { uid: number; gid: number };
  /** Extra CLI flags: `{ "debug-to-stderr": null, foo: "bar" }` → `--debug-to-stderr --foo bar`. */
  extraArgs?: Record<string, string | null>;
  /**
   * Cancels the whole query/session: the process is killed and iteration throws `AbortError`.
   * Official SDK: `abortController` (pass `controller.signal` here).
   */
  signal?: AbortSignal;
  /** Receives each stderr line of the CLI (the official SDK passes chunks). */
  stderr?: (line: string) => void;
  /** Largest single JSON line accepted from the CLI, in bytes. Default 64 MiB. */
  maxBufferSize?: number;
  /**
   * Backpressure: while more than this many bytes of CLI output wait for the session's reader,
   * the CLI's stdout is paused (the CLI then blocks on its full pipe), so a slow consumer holds a
   * bounded amount of memory. Reading goes on past it while one of our control requests awaits its
   * answer, and in small peeks (a pipe chunk every 50 ms, up to a quarter of this per pause) so a
   * request the CLI sends behind its paused output is still answered. Default 16 MiB.
   */
  highWaterMark?: number;
  /** Paused stdout resumes once no more than this many bytes wait. Default half of `highWaterMark`. */
  lowWaterMark?: number;
  /**
   * A reader of the session (e.g. a `receiveMessages()` iterator nobody reads any more) that falls
   * more than this many bytes of output behind the furthest reader is dropped: its next `next()`
   * rejects with `ReaderOverflowError`, and the session and other readers go on. Default 64 MiB.
   */
  maxReaderLagBytes?: number;
  /**
   * Timeout for each control request, in milliseconds. Default 60 000. At most 2^31−1 (Node's
   * longest timer); `Infinity` means no timeout.
   */
  controlTimeoutMs?: number;
  /**
   * Grace period between SIGTERM and SIGKILL on close, in milliseconds. Default 2 000. At most
   * 2^31−1; `Infinity` is rejected, because `close()` must end.
   */
  closeGraceMs?: number;
  /**
   * After input has ended (one-shot `query()`), how long the CLI may stay silent without exiting
   * before its process group is terminated and the iteration finishes, in milliseconds. Guards
   * against CLIs kept alive by a grandchild holding their output. Default 30 000. At most 2^31−1;
   * `Infinity` means no limit.
   */
  exitTimeoutMs?: number;
  /**
   * How long a `canUseTool`, hook or in-process MCP tool callback may take before the CLI gets an
   * error answer (and the callback's signal aborts), in milliseconds. Default 600 000 (10 minutes).
   * At most 2^31−1; `Infinity` means no limit (the callback still ends with the session).
   */
  callbackTimeoutMs?: number;
  /**
   * How long input stays open after the last `result` while background tasks the CLI reported
   * (a `run_in_background` command, a background subagent) still run, in milliseconds; then input
   * closes anyway and the CLI decides what happens to them. Default 600 000 (10 minutes, the
   * official SDK's ceiling). Claude only.
   */
  backgroundTaskTimeoutMs?: number;
  /**
   * A custom transport (tests, remote runners, `ReplayTransport` from `code-agent-sdk/testing`).
   * Replaces the subprocess; no CLI is looked for. Claude and Codex. (To start the CLI yourself and
   * keep the SDK's framing, use `spawnClaudeCodeProcess`.)
   */
  transport?: Transport;
  /**
   * Starts the CLI yourself (in a container, a VM, over SSH): called with the command, argv, cwd
   * and environment the SDK would use; returns a process-like object (a `ChildProcess` is one).
   * Closing the session sends it SIGTERM, then SIGKILL after `closeGraceMs`. Not with `transport`.
   * Claude only.
   */
  spawnClaudeCodeProcess?: SpawnClaudeCodeProcess;
  /** `--debug`: verbose debug logging of the CLI (to `debugFile`, or stderr → `stderr`). Claude only. */
  debug?: boolean;
  /** `--debug-file <path>`: write the CLI's debug log there (implies `debug`). Claude only. */
  debugFile?: string;
  /**
   * `--project-config-root <dir>`: the trusted checkout `cwd` is a worktree of; project settings,
   * `.mcp.json`, `.claude/` and `CLAUDE_PROJECT_DIR` come from there. Absolute path. Claude only.
   */
  projectConfigRoot?: string;
  /**
   * Records the session's wire traffic (both directions, timestamped, secrets redacted) to a JSONL
   * file, for `ReplayTransport`: a path, or `{ path, redact }` with more values to redact. Claude and
   * Codex.
   */
  record?: string | RecordOptions;

  // ── model control ──
  /** `--model`. */
  model?: string;
  /** `--fallback-model` (a comma-separated list is tried in order); must differ from `model`. */
  fallbackModel?: string;
  /** `--max-turns`. */
  maxTurns?: number;
  /** `--max-budget-usd`. */
  maxBudgetUsd?: number;
  /**
   * The most tokens (input plus output, as the run's usage reports them) the run may spend; the
   * run ends once it is spent. Portable: the SDK counts where a CLI has no budget of its own. A
   * backend that cannot enforce it yet refuses it (`UnsupportedOptionsError`).
   */
  maxBudgetTokens?: number;
  /**
   * The longest the whole run (a one-shot `query()`, or one turn of a client) may take, in
   * milliseconds; then it is interrupted and ends with an error. Portable: the SDK enforces it on
   * every backend that accepts it. A backend that cannot enforce it yet refuses it
   * (`UnsupportedOptionsError`).
   */
  timeoutMs?: number;
  /** `--task-budget <total>`: a token budget for the whole task, which the model paces itself by. Claude only. */
  taskBudget?: { total: number };
  /** `--effort`. */
  effort?: Effort;
  /** See {@link ThinkingConfig}. Takes precedence over `maxThinkingTokens`. */
  thinking?: ThinkingConfig;
  /** Without `thinking`: `0` → `--thinking=disabled`, else `--max-thinking-tokens N`. */
  maxThinkingTokens?: number;
  /** `--betas`, one flag per beta (2.1.330 does not split a comma-joined list). */
  betas?: string[];

  // ── tool control ──
  /** `--tools`: the built-in tools that exist (`[]`: none; the preset: Claude Code's default set). */
  tools?: ToolsConfig;
  /** `--allowedTools`: rules allowed without asking. */
  allowedTools?: string[];
  /** `--disallowedTools`: tools removed from the model's context. */
  disallowedTools?: string[];
  /**
   * Tool-name aliases resolved before a model's `tool_use` is run, e.g. `{ Bash:
   * "mcp__workspace__bash" }` (`initialize.toolAliases`). Claude only.
   */
  toolAliases?: Record<string, string>;
  /** Per-tool configuration of built-in tools (environment variables). Claude only. */
  toolConfig?: ToolConfig;
  /** `--permission-mode`. */
  permissionMode?: PermissionMode;
  /** Required (true) together with `permissionMode: "bypassPermissions"`. */
  allowDangerouslySkipPermissions?: boolean;
  /** `--permission-prompt-tool <mcp tool>`: an MCP tool answers permission prompts. Not with `canUseTool`. */
  permissionPromptToolName?: string;
  /** `--permission-prompts host|none`: who renders permission prompts. Claude only. */
  permissionPrompts?: "host" | "none";
  /** Replaces the plan-mode instructions (`initialize.planModeInstructions`). Claude only. */
  planModeInstructions?: string;
  /**
   * The tool policy: decides tool calls in-process (`--permission-prompt-tool stdio`). On Claude it
   * is asked about every tool call the agent makes (see {@link ClaudeAgentOptions.canUseToolScope}), on
   * the other backends about every call the CLI puts to it (`capabilities.toolPolicy` says which).
   */
  canUseTool?: CanUseTool;
  /**
   * Which tool calls `canUseTool` decides on Claude. `"every-call"` (the default): every call,
   * including those Claude Code would run without asking (a `Read` in the workspace, `ls`, calls a
   * hook or a settings file allows) — an internal `PreToolUse` hook answers `"ask"`, so the CLI puts
   * the call to `canUseTool`. Not asked: Claude Code's bookkeeping tools (`CLAUDE_BOOKKEEPING_TOOLS`:
   * `StructuredOutput`, `TodoWrite`, `ToolSearch`), any call while the permission mode is
   * `bypassPermissions`, and calls an allow rule given here (`allowedTools`, a `settings` object's
   * `permissions.allow`) plainly matches: a bare tool name, an MCP server, `Bash(cmd)` or
   * `Bash(prefix:*)` for a command without shell operators, quotes or substitutions.
   * `context.suggestions` is then empty (the CLI makes none for a hook's ask). `"asked-calls"`: only
   * the calls the CLI itself would ask about, with its suggestions, as in the official SDK (the compat
   * entry point's semantics). Claude only; without `canUseTool` it has no effect.
   */
  canUseToolScope?: "every-call" | "asked-calls";
  /**
   * Before a resumed session's first turn (`resume`, `continueConversation`), ask the CLI for the
   * running total it restored (one `get_usage` control request), so that turn's `totalCostUsd` is
   * its own cost. Default `true`; `false` sends nothing (the compat entry point's choice, as the
   * official SDK) and that turn's `totalCostUsd` is `null`. Claude only.
   */
  resumedCostBaseline?: boolean;
  /** Answers MCP elicitations (`elicitation` control requests); without it they are declined. Claude only. */
  onElicitation?: OnElicitation;
  /** Renders the CLI's blocking dialogs (`request_user_dialog`) of `supportedDialogKinds`. Claude only. */
  onUserDialog?: OnUserDialog;
  /** Dialog kinds `onUserDialog` renders (`initialize.supportedDialogKinds`); needs `onUserDialog`. Claude only. */
  supportedDialogKinds?: string[];
  /**
   * This host stops background tasks one by one (`stopTask()`), so an interrupt spares them
   * (`initialize.perTaskStopAffordance`). Claude only.
   */
  perTaskStopAffordance?: boolean;

  // ── MCP / plugins / context ──
  /** MCP servers by name, or a path to an MCP config JSON file. */
  mcpServers?: Record<string, McpServerConfig> | string;
  /**
   * How MCP server configs reach the CLI: `argv` (`--mcp-config`, the default) or `initialize`
   * (in the initialize request with `--await-initialize`, so env and headers stay off the command
   * line). Claude only.
   */
  mcpServersDelivery?: "argv" | "initialize";
  /** `--strict-mcp-config`: only the MCP servers given here, none from settings files. Claude only. */
  strictMcpConfig?: boolean;
  /** Local plugins: `--plugin-dir` (or `--plugin-dir-no-mcp` with `skipMcpDiscovery`). */
  plugins?: PluginConfig[];
  /** `argv` (the default) or `initialize` (the list in the initialize request, `--await-initialize`). Claude only. */
  pluginDelivery?: "argv" | "initialize";
  /** `--add-dir`, once per directory. Official SDK: `additionalDirectories`. */
  addDirs?: string[];
  /** Subagents by name (`initialize.agents`). */
  agents?: Record<string, AgentDefinition>;
  /** `--agent <name>`: run the main thread as this agent (from `agents` or settings). Claude only. */
  agent?: string;
  /**
   * Skills to enable: `"all"`, or names. Adds `Skill` / `Skill(name)` to `allowedTools` and sends
   * the list in `initialize.skills`, as the official SDK does. Omitted: the CLI's defaults. Claude only.
   */
  skills?: string[] | "all";

  // ── session management ──
  /** `--continue`: the most recent conversation in `cwd`. Official SDK: `continue`. */
  continueConversation?: boolean;
  /** `--resume <session id>`. */
  resume?: string;
  /** `--resume-session-at <uuid>`: resume only up to this message. */
  resumeSessionAt?: string;
  /**
   * `--resume-drops-turn <prompt uuid>`: with `resumeSessionAt`, the turn the truncation discards;
   * the CLI refuses the resume when more would be dropped. Claude only.
   */
  resumeDropsTurn?: string;
  /**
   * With `resume`: a resumed session continues under a new id, leaving the resumed one as it was.
   * Claude: `--fork-session`. ACP: `session/fork` instead of `session/load`, where the agent
   * declares `sessionCapabilities.fork` (`UnsupportedFeatureError` where it does not); the `init`
   * message and the results carry the new id. Without `resume`: no effect.
   */
  forkSession?: boolean;
  /** `--session-id <uuid>`: use this id for the new session. Claude only. */
  sessionId?: string;
  /** `false` → `--no-session-persistence`: nothing is written to `~/.claude/projects`. Claude only. */
  persistSession?: boolean;
  /**
   * Mirror the session's transcripts (subagents' included) to this store as the CLI writes them
   * (`--session-mirror`; see "Sessions in your own store" in docs/sessions.md). The CLI still writes its
   * local files; the store receives a copy. With `resume` (or `continueConversation`) the session
   * is loaded from the store, when it has it, before the CLI starts. Failed appends arrive as
   * `system` messages with subtype `mirror_error`. Cannot be combined with `persistSession: false`
   * or `enableFileCheckpointing`; `continueConversation` needs `store.listSessions`. Claude only.
   */
  sessionStore?: SessionStore;
  /**
   * How entries reach `sessionStore.append`: `'batched'` (default; about every 100 ms, at the end of
   * each turn, or once 500 entries / 1 MiB are pending) or `'eager'` (one append per CLI frame).
   * Claude only.
   */
  sessionStoreFlush?: SessionStoreFlush;
  /**
   * Longest wait, in ms, for each `sessionStore.load()` / `listSubkeys()` / `listSessions()` call of
   * a resume from the store; then the query fails with a `SessionStoreError`. Default 60 000.
   * Claude only.
   */
  loadTimeoutMs?: number;
  /** The session's title (`initialize.title`). Claude only. */
  title?: string;
  /**
   * `--setting-sources`: which settings files the CLI loads. Omitted: the flag is not passed, so
   * the CLI loads user, project and local settings (and CLAUDE.md), as the official SDK and the bare
   * CLI do. `[]`: none.
   */
  settingSources?: SettingSource[];
  /**
   * A settings JSON string, a settings object, or a path to a settings file (`--settings`). Every
   * field of the CLI's settings schema is typed (see {@link ClaudeSettings}); a field this SDK does
   * not know is passed through unchanged, with a one-time warning.
   */
  settings?: string | ClaudeSettings;
  /**
   * Policy-tier settings from the embedding application (`--managed-settings <json>`); the CLI
   * keeps only their restrictive parts. Claude only.
   */
  managedSettings?: ClaudeSettings;
  /** Sandbox settings, merged into `--settings` (see {@link SandboxSettings}). */
  sandbox?: SandboxSettings;
  /** Checkpoint files so `rewindFiles()` works (`CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING`). */
  enableFileCheckpointing?: boolean;

  // ── prompts, callbacks, output ──
  /** See {@link SystemPromptConfig}. */
  systemPrompt?: SystemPromptConfig;
  /** Hook callbacks by event (`initialize.hooks`). */
  hooks?: HookMap;
  /** `--include-hook-events`: `hook_started` / `hook_progress` / `hook_response` messages for every event. Claude only. */
  includeHookEvents?: boolean;
  /** `--include-partial-messages`: `stream_event` messages while the model streams. */
  includePartialMessages?: boolean;
  /** Forward subagents' text and thinking as messages with `parent_tool_use_id` (`initialize`). Claude only. */
  forwardSubagentText?: boolean;
  /** A `prompt_suggestion` message after each turn (`initialize.promptSuggestions`). Claude only. */
  promptSuggestions?: boolean;
  /** Periodic progress summaries of running subagents on `task_progress` (`initialize`). Claude only. */
  agentProgressSummaries?: boolean;
  /**
   * Send every user message with `client_composed: true`: no `@path` expansion, no slash commands.
   * Claude only.
   */
  verbatimPrompts?: boolean;
  /**
   * Structured output (`--json-schema`, and `initialize.jsonSchema`, as the official SDK sends it).
   * A `$schema` other than draft-07 (e.g. `z.toJSONSchema()`'s 2020-12) is removed first: the CLI's
   * validator only knows draft-07 and refuses the rest.
   */
  outputFormat?: OutputFormat;

  // ── official SDK options that cannot apply here (rejected with the reason) ──
  /** Rejected: the CLI is the native binary, run directly; there is no JavaScript runtime to pick. */
  executable?: never;
  /** Rejected: see `executable`. */
  executableArgs?: never;
}

/**
 * The neutral core: options that mean the same on every backend (working directory, environment,
 * the CLI's path and extra flags, cancellation, stderr, buffer and timing bounds, resuming,
 * partial messages, telemetry) and the portable limits the SDK enforces where a CLI has none
 * (`maxTurns`, `maxBudgetUsd`, `maxBudgetTokens`, `timeoutMs`). Code that works with any backend
 * takes this type.
 */
export interface CommonOptions extends Pick<OptionFields, Exclude<CommonOptionName, "backend">> {
  /** Which CLI to drive. Default `"claude"`. `"acp"`: any Agent Client Protocol agent (see `acp`). */
  backend?: BackendKind;
}

/** The fields only `B` has, beyond the neutral core. */
type OwnFields<B extends BackendKind> = Pick<OptionFields, Exclude<OptionNamesOf<B>, CommonOptionName>>;

/** Options of the Claude Code backend (the default: `backend` may be omitted). */
export interface ClaudeAgentOptions extends CommonOptions, OwnFields<"claude"> {
  /** Claude Code (the default). */
  backend?: "claude";
}

/** Options of the Codex backend: the neutral core, the Codex section `codex`, and what Codex maps. */
export interface CodexAgentOptions extends CommonOptions, OwnFields<"codex"> {
  /** The Codex CLI (`codex exec`, or `codex app-server` for streamed and interactive sessions). */
  backend: "codex";
}

/** Options of the Cursor backend: the neutral core, the Cursor section `cursor`, and `model`. */
export interface CursorAgentOptions extends CommonOptions, OwnFields<"cursor"> {
  /** The Cursor agent CLI (print mode). */
  backend: "cursor";
}

/** Options of the ACP backend: the neutral core, the ACP section `acp`, tool policy and MCP servers. */
export interface AcpAgentOptions extends CommonOptions, OwnFields<"acp"> {
  /** Any agent that speaks the Agent Client Protocol over stdio (see `acp`). */
  backend: "acp";
}

/**
 * Options for `query()` and `AgentSdkClient`: one of the per-backend option types, chosen by
 * `backend` (omitted: Claude). Every field is optional but `backend` off Claude.
 */
export type AgentOptions = ClaudeAgentOptions | CodexAgentOptions | CursorAgentOptions | AcpAgentOptions;

/** The option type of backend `B`. */
export type OptionsFor<B extends BackendKind> = {
  claude: ClaudeAgentOptions;
  codex: CodexAgentOptions;
  cursor: CursorAgentOptions;
  acp: AcpAgentOptions;
}[B];

/** The backend an options type selects: its `backend`, or `"claude"` when it has none. */
export type BackendOf<O> = O extends { backend: infer B extends BackendKind } ? B : "claude";
