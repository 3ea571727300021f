/**
 * `AgentOptions`: one plain object configures every backend. Fields a backend cannot honour are
 * rejected with `UnsupportedOptionsError` before anything is spawned.
 */
import type { HookMap } from "./hooks.js";
import type { InstallProgress } from "./install/installer.js";
import type { McpServerConfig } from "./mcp/config.js";
import type { CanUseTool, PermissionMode } from "./permissions.js";
import type { Transport } from "./transport/transport.js";

/** Which agent CLI drives the session. */
export type BackendKind = "claude" | "codex" | "cursor";

/** Reasoning effort. */
export type Effort = "low" | "medium" | "high" | "xhigh" | "max";

/** Thinking behaviour (Claude). `adaptive` lets the CLI decide; `disabled` sends a budget of 0. */
export type ThinkingConfig =
  | { type: "adaptive" }
  | { type: "enabled"; budgetTokens: number }
  | { type: "disabled" };

/** Which on-disk settings the CLI may load. Default: none (isolated). */
export type SettingSource = "user" | "project" | "local";

/** The system prompt: a full replacement, or Claude Code's preset with optional appended text. */
export type SystemPromptConfig = string | { type: "preset"; preset: "claude_code"; append?: string };

/** Which built-in tools exist: a list of names, or Claude Code's default set. */
export type ToolsConfig = string[] | { type: "preset"; preset: "claude_code" };

/** A subagent defined in code. */
export interface AgentDefinition {
  description: string;
  prompt: string;
  tools?: string[];
  model?: "sonnet" | "opus" | "haiku" | "inherit" | (string & {});
}

/** A local plugin directory. */
export interface PluginConfig {
  type: "local";
  path: string;
}

/** Sandbox settings, merged into the CLI's `--settings` JSON. */
export interface SandboxSettings {
  enabled?: boolean;
  autoAllowBashIfSandboxed?: boolean;
  excludedCommands?: string[];
  allowUnsandboxedCommands?: boolean;
  network?: {
    allowLocalBinding?: boolean;
    allowUnixSockets?: string[];
    allowAllUnixSockets?: boolean;
    httpProxyPort?: number;
    socksProxyPort?: number;
  };
  ignoreViolations?: { file?: string[]; network?: string[] };
  enableWeakerNestedSandbox?: boolean;
}

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
   * Default: `untrusted` when `canUseTool` is set, else the CLI's configuration. (Codex 0.169 no
   * longer accepts `on-failure`.)
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

/** Options for `query()` and `AgentSdkClient`. Every field is optional. */
export interface AgentOptions {
  // ── backend selection ──
  /** Which CLI to drive. Default `"claude"`. */
  backend?: BackendKind;
  /** Codex-specific options. */
  codex?: CodexOptions;
  /** Cursor-specific options. */
  cursor?: CursorOptions;

  // ── execution environment ──
  /** Path to the CLI binary; skips discovery. */
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
  /** Extra environment variables, layered over `process.env`; `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /** `false`: the CLI gets only `env` (plus the SDK's own variables), not `process.env`. Default `true`. */
  inheritEnv?: boolean;
  /** Run the CLI as this Unix user (name or uid). Needs the privileges to switch. */
  user?: string | number;
  /** Extra CLI flags: `{ "debug-to-stderr": null, foo: "bar" }` → `--debug-to-stderr --foo bar`. */
  extraArgs?: Record<string, string | null>;
  /** Cancels the whole query/session: the process is killed and iteration throws `AbortError`. */
  signal?: AbortSignal;
  /** Receives each stderr line of the CLI. */
  stderr?: (line: string) => void;
  /** Largest single JSON line accepted from the CLI, in bytes. Default 64 MiB. */
  maxBufferSize?: number;
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
  /** A custom transport (tests, remote runners). Replaces the subprocess. Claude only. */
  transport?: Transport;

  // ── model control ──
  model?: string;
  fallbackModel?: string;
  maxTurns?: number;
  maxBudgetUsd?: number;
  effort?: Effort;
  thinking?: ThinkingConfig;
  maxThinkingTokens?: number;
  betas?: string[];

  // ── tool control ──
  tools?: ToolsConfig;
  allowedTools?: string[];
  disallowedTools?: string[];
  permissionMode?: PermissionMode;
  /** Required (true) together with `permissionMode: "bypassPermissions"`. */
  allowDangerouslySkipPermissions?: boolean;
  permissionPromptToolName?: string;
  canUseTool?: CanUseTool;

  // ── MCP / plugins / context ──
  /** MCP servers by name, or a path to an MCP config JSON file. */
  mcpServers?: Record<string, McpServerConfig> | string;
  plugins?: PluginConfig[];
  addDirs?: string[];
  agents?: Record<string, AgentDefinition>;

  // ── session management ──
  continueConversation?: boolean;
  resume?: string;
  /** Resume only up to this message uuid. */
  resumeSessionAt?: string;
  forkSession?: boolean;
  settingSources?: SettingSource[];
  /** A settings JSON string, a settings object, or a path to a settings file. */
  settings?: string | Record<string, unknown>;
  sandbox?: SandboxSettings;
  enableFileCheckpointing?: boolean;

  // ── prompts, callbacks, output ──
  systemPrompt?: SystemPromptConfig;
  hooks?: HookMap;
  includePartialMessages?: boolean;
  outputFormat?: OutputFormat;
}
