/**
 * The session controls `query()` and `AgentSdkClient` offer, and the one table that says which
 * backend capability each needs: the engine gates on it at run time, the public types drop a
 * control the backend lacks at compile time when the backend is known statically.
 */
import type { Capabilities } from "../backends/backend.js";
import type {
  ACP_CAPABILITIES,
  CLAUDE_CAPABILITIES,
  CODEX_CAPABILITIES,
  CURSOR_CAPABILITIES,
} from "../backends/capabilities.js";
import type {
  AccountInfo,
  AgentInfo,
  ContextUsage,
  McpResourceContents,
  McpSetServersResult,
  ModelInfo,
  ReadFileResult,
  ReloadPluginsResult,
  SettingsFileSource,
  SlashCommand,
  UsageReport,
} from "../backends/claude/control-results.js";
import type { ReadFileOptions, ReloadPluginsOptions } from "../backends/claude/controls.js";
import type { McpServerConfig } from "../mcp/config.js";
import type { BackendKind, ClaudeSettings } from "../options.js";

/**
 * The Claude control methods of the official SDK's `Query`, on `Query` and `AgentSdkClient`
 * alike. Each needs the backend's `controlProtocol` capability: where the backend is known
 * statically and lacks it, the method is not there (a compile-time error); otherwise it throws
 * `UnsupportedFeatureError`. Each sends one control request (or reads the `initialize` answer) as
 * the official SDK 0.3.330 does.
 */
export interface QueryControls {
  /** Sets (or with `null` clears) the permission mode override of one MCP server's tools. */
  setMcpPermissionModeOverride(
    serverName: string,
    mode: "default" | "auto" | null,
  ): Promise<{ warning?: string }>;
  /** Applies settings to the session's flag-settings layer (`null` removes a key). */
  applyFlagSettings(settings: ClaudeSettings): Promise<void>;
  /** Writes settings to the local or user settings file. */
  updateSettings(source: SettingsFileSource, settings: Record<string, unknown>): Promise<void>;
  /** The CLI's initialize answer. */
  initializationResult(): Promise<Record<string, unknown>>;
  /** Sends the initialize request again and returns the new answer. */
  reinitialize(): Promise<Record<string, unknown>>;
  /** The slash commands (updated by `commands_changed`). */
  supportedCommands(): Promise<SlashCommand[]>;
  /** The models the session can switch to. */
  supportedModels(): Promise<ModelInfo[]>;
  /** The subagents available. */
  supportedAgents(): Promise<AgentInfo[]>;
  /** The account the CLI runs as. */
  accountInfo(): Promise<AccountInfo>;
  /** How the context window is used. */
  getContextUsage(options?: { detail?: "summary" | "full" }): Promise<ContextUsage>;
  /** Cost and rate limits (the official SDK's `usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET`). */
  getUsage(options?: { skipBehaviors?: boolean }): Promise<UsageReport>;
  /** A file as the CLI sees it, or `null` when it cannot be read. */
  readFile(path: string, options?: ReadFileOptions): Promise<ReadFileResult | null>;
  /** Reloads plugins (and their commands, agents, MCP servers). */
  reloadPlugins(options?: ReloadPluginsOptions): Promise<ReloadPluginsResult>;
  /** Reloads skills. */
  reloadSkills(): Promise<{ skills: SlashCommand[] }>;
  /** Reloads output styles. */
  reloadOutputStyles(): Promise<{ available_output_styles: string[] }>;
  /** Marks `path` as read at `mtime` (ms since the epoch). */
  seedReadState(path: string, mtime: number): Promise<void>;
  /**
   * Reconnects an MCP server: a stdio server is started again as a new process. Refused for an
   * unknown or disabled server (enable it with `toggleMcpServer` first) and for in-process servers.
   */
  reconnectMcpServer(serverName: string): Promise<void>;
  /**
   * Enables or disables an MCP server; `mcpServerStatus()` then reports it `disabled` (a stdio
   * server's process is stopped) or, enabled again, `connected` (started anew).
   */
  toggleMcpServer(serverName: string, enabled: boolean): Promise<void>;
  /**
   * Reads an MCP Apps UI resource (`ui://…`, typically a tool's `_meta.ui.resourceUri`) from an
   * MCP server the CLI connected to, without a model turn. Claude Code 2.1.330 refuses any other URI
   * scheme, in-process (SDK) servers (read those yourself), and unknown, disabled or unconnected
   * servers; its reason is the `ControlRequestError`'s message. The contents are third-party HTML:
   * render them sandboxed.
   */
  readMcpResource(serverName: string, uri: string): Promise<McpResourceContents>;
  /** Replaces the session's MCP servers (in-process ones included). */
  setMcpServers(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult>;
  /** Stops one background task by its `task_id`. */
  stopTask(taskId: string): Promise<void>;
  /**
   * Moves running foreground work (or only the tool call `toolUseId`) to the background, as Ctrl-B
   * does; the tool call returns at once and the turn goes on. With `toolUseId`: whether that task was
   * found and moved; without: `true` once the CLI acknowledged. Claude Code registers a foreground
   * Bash command as a task (`task_started` with `is_backgrounded: false`) only after it has run
   * for 2 s; before that there is nothing to move.
   */
  backgroundTasks(toolUseId?: string): Promise<boolean>;
}

/** The {@link QueryControls} methods, for objects that forward them. */
export const QUERY_CONTROL_METHODS = [
  "setMcpPermissionModeOverride",
  "applyFlagSettings",
  "updateSettings",
  "initializationResult",
  "reinitialize",
  "supportedCommands",
  "supportedModels",
  "supportedAgents",
  "accountInfo",
  "getContextUsage",
  "getUsage",
  "readFile",
  "reloadPlugins",
  "reloadSkills",
  "reloadOutputStyles",
  "seedReadState",
  "reconnectMcpServer",
  "toggleMcpServer",
  "readMcpResource",
  "setMcpServers",
  "stopTask",
  "backgroundTasks",
] as const satisfies readonly (keyof QueryControls)[];

/** The capability flags that are plain booleans (every one but `toolPolicy`). */
export type CapabilityFlag = {
  [K in keyof Capabilities]: Capabilities[K] extends boolean ? K : never;
}[keyof Capabilities];

/**
 * Which capability each gated control needs: the one table both the run-time check and the
 * compile-time types read. A control not listed needs none (`serverInfo`, `close`, …).
 */
export const CONTROL_CAPABILITY = {
  interrupt: "interrupt",
  setPermissionMode: "runtimeConfigChanges",
  setModel: "modelSwitching",
  setMaxThinkingTokens: "runtimeConfigChanges",
  rewindFiles: "controlProtocol",
  controlRequest: "controlProtocol",
  mcpServerStatus: "mcpStatus",
  getMcpStatus: "mcpStatus",
  streamInput: "persistentSession",
  ...(Object.fromEntries(QUERY_CONTROL_METHODS.map((name) => [name, "controlProtocol"])) as {
    [K in (typeof QUERY_CONTROL_METHODS)[number]]: "controlProtocol";
  }),
} as const satisfies Record<string, CapabilityFlag>;

/** A control gated on a capability. */
export type GatedControl = keyof typeof CONTROL_CAPABILITY;

/** Each backend's capabilities as literal types (the constants of `backends/capabilities.ts`). */
interface CapabilitiesByBackend {
  claude: typeof CLAUDE_CAPABILITIES;
  codex: typeof CODEX_CAPABILITIES;
  cursor: typeof CURSOR_CAPABILITIES;
  acp: typeof ACP_CAPABILITIES;
}

/** The gated controls some backend in `B` offers (for a union: any of them, checked at run time). */
type OfferedBy<B extends BackendKind> = B extends BackendKind
  ? {
      [K in GatedControl]: CapabilitiesByBackend[B][(typeof CONTROL_CAPABILITY)[K]] extends false ? never : K;
    }[GatedControl]
  : never;

/** The gated controls no backend in `B` offers: left out of the types of a query or client on `B`. */
export type MissingControls<B extends BackendKind> = Exclude<GatedControl, OfferedBy<B>>;

/**
 * `T` with the controls backend `B` lacks (for a union of backends: those none of them has) typed
 * `never`: calling one is a compile-time error, while the object still goes wherever a `T` is
 * expected (there the control is checked at run time). For Claude, and whenever no control is
 * missing, `T` itself.
 */
export type WithControlsOf<T, B extends BackendKind> = [MissingControls<B>] extends [never]
  ? T
  : T & { readonly [K in MissingControls<B> & keyof T]: never };
