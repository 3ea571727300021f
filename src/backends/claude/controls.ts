/**
 * The Claude control methods shared by `query()` and `AgentSdkClient`, each one control request
 * (or a read of the `initialize` answer) exactly as the official SDK 0.3.330 sends it. Backends
 * without the control protocol never get here: both callers gate on `capabilities` first.
 */

import type { McpServerConfig } from "../../mcp/config.js";
import type { ClaudeSettings, PluginConfig, ThinkingDisplay } from "../../options.js";
import type { Session } from "../backend.js";
import type {
  AccountInfo,
  AgentInfo,
  ContextUsage,
  InterruptResult,
  McpResourceContents,
  McpSetServersResult,
  ModelInfo,
  ReadFileResult,
  ReloadPluginsResult,
  SettingsFileSource,
  SlashCommand,
  UsageReport,
} from "./control-results.js";

/** A session that takes control requests. */
export type ControlSession = Session & Required<Pick<Session, "controlRequest">>;

/** Options of `reloadPlugins()`. */
export interface ReloadPluginsOptions {
  /** Hold the reload when it would invalidate the prompt cache (`held: true` in the answer). */
  holdOnCacheImpact?: boolean;
  /** Plugins to add before reloading. */
  addPlugins?: PluginConfig[];
  /** Refuse (error code `reload_plugins_busy`) instead of waiting while a turn runs. */
  refuseIfBusy?: boolean;
}

/** Options of `readFile()`. */
export interface ReadFileOptions {
  maxBytes?: number;
  encoding?: "utf-8" | "base64";
}

/**
 * The control methods a Claude session offers beyond the basic ones, implemented once for both
 * `Query` and `AgentSdkClient`. `session` resolves the session to talk to (and gates it).
 */
export class ClaudeControls {
  constructor(private readonly session: (feature: string) => Promise<ControlSession>) {}

  private async request(feature: string, request: { subtype: string; [key: string]: unknown }) {
    return (await this.session(feature)).controlRequest(request);
  }

  private async initialized(feature: string): Promise<Record<string, unknown>> {
    return (await this.session(feature)).serverInfo() ?? {};
  }

  /** Interrupts the turn; reports input still queued behind it (`cancelQueued` drops it). */
  async interrupt(options: { cancelQueued?: boolean } = {}): Promise<InterruptResult | undefined> {
    const answer = await this.request("interrupt", {
      subtype: "interrupt",
      ...(options.cancelQueued ? { cancel_queued: true } : {}),
    });
    if (!Array.isArray(answer.still_queued)) return undefined;
    return {
      still_queued: answer.still_queued.filter((id): id is string => typeof id === "string"),
      ...(Array.isArray(answer.cancelled)
        ? { cancelled: answer.cancelled.filter((id): id is string => typeof id === "string") }
        : {}),
    };
  }

  async setMcpPermissionModeOverride(
    serverName: string,
    mode: "default" | "auto" | null,
  ): Promise<{ warning?: string }> {
    return (await this.request("setMcpPermissionModeOverride", {
      subtype: "set_mcp_permission_mode_override",
      serverName,
      mode,
    })) as { warning?: string };
  }

  async setMaxThinkingTokens(
    tokens: number | null,
    display?: ThinkingDisplay | "highlights" | null,
  ): Promise<void> {
    await this.request("setMaxThinkingTokens", {
      subtype: "set_max_thinking_tokens",
      max_thinking_tokens: tokens,
      ...(display !== undefined ? { thinking_display: display } : {}),
    });
  }

  async applyFlagSettings(settings: ClaudeSettings): Promise<void> {
    await this.request("applyFlagSettings", { subtype: "apply_flag_settings", settings });
  }

  async updateSettings(source: SettingsFileSource, settings: Record<string, unknown>): Promise<void> {
    await this.request("updateSettings", { subtype: "update_settings", source, settings });
  }

  async initializationResult(): Promise<Record<string, unknown>> {
    return this.initialized("initializationResult");
  }

  async reinitialize(): Promise<Record<string, unknown>> {
    const session = await this.session("reinitialize");
    if (!session.reinitialize) throw new Error("this session cannot re-run its handshake");
    return session.reinitialize();
  }

  async supportedCommands(): Promise<SlashCommand[]> {
    return listOf<SlashCommand>((await this.initialized("supportedCommands")).commands);
  }

  async supportedModels(): Promise<ModelInfo[]> {
    return listOf<ModelInfo>((await this.initialized("supportedModels")).models);
  }

  async supportedAgents(): Promise<AgentInfo[]> {
    return listOf<AgentInfo>((await this.initialized("supportedAgents")).agents);
  }

  async accountInfo(): Promise<AccountInfo> {
    const account = (await this.initialized("accountInfo")).account;
    return typeof account === "object" && account !== null ? (account as AccountInfo) : {};
  }

  async getContextUsage(options: { detail?: "summary" | "full" } = {}): Promise<ContextUsage> {
    return (await this.request("getContextUsage", {
      subtype: "get_context_usage",
      ...options,
    })) as ContextUsage;
  }

  async getUsage(options: { skipBehaviors?: boolean } = {}): Promise<UsageReport> {
    return (await this.request("getUsage", {
      subtype: "get_usage",
      ...(options.skipBehaviors ? { skip_behaviors: true } : {}),
    })) as UsageReport;
  }

  /** A file as the CLI sees it, or `null` when the CLI cannot read it (as the official SDK answers). */
  async readFile(path: string, options: ReadFileOptions = {}): Promise<ReadFileResult | null> {
    const session = await this.session("readFile");
    try {
      return (await session.controlRequest({
        subtype: "read_file",
        path,
        ...(options.maxBytes !== undefined ? { max_bytes: options.maxBytes } : {}),
        ...(options.encoding !== undefined ? { encoding: options.encoding } : {}),
      })) as unknown as ReadFileResult;
    } catch {
      return null;
    }
  }

  async reloadPlugins(options: ReloadPluginsOptions = {}): Promise<ReloadPluginsResult> {
    return (await this.request("reloadPlugins", {
      subtype: "reload_plugins",
      ...(options.holdOnCacheImpact ? { hold_on_cache_impact: true } : {}),
      ...(options.addPlugins?.length ? { add_plugins: options.addPlugins } : {}),
      ...(options.refuseIfBusy ? { refuse_if_busy: true } : {}),
    })) as unknown as ReloadPluginsResult;
  }

  async reloadSkills(): Promise<{ skills: SlashCommand[] }> {
    return (await this.request("reloadSkills", { subtype: "reload_skills" })) as { skills: SlashCommand[] };
  }

  async reloadOutputStyles(): Promise<{ available_output_styles: string[] }> {
    return (await this.request("reloadOutputStyles", { subtype: "reload_output_styles" })) as {
      available_output_styles: string[];
    };
  }

  /** Tells the CLI a file was already read at `mtime` (ms), so edits need no fresh read. */
  async seedReadState(path: string, mtime: number): Promise<void> {
    await this.request("seedReadState", { subtype: "seed_read_state", path, mtime });
  }

  async reconnectMcpServer(serverName: string): Promise<void> {
    await this.request("reconnectMcpServer", { subtype: "mcp_reconnect", serverName });
  }

  async toggleMcpServer(serverName: string, enabled: boolean): Promise<void> {
    await this.request("toggleMcpServer", { subtype: "mcp_toggle", serverName, enabled });
  }

  async readMcpResource(serverName: string, uri: string): Promise<McpResourceContents> {
    return (await this.request("readMcpResource", {
      subtype: "mcp_read_resource",
      serverName,
      uri,
    })) as unknown as McpResourceContents;
  }

  /** Replaces the session's MCP servers (in-process ones included); reports what changed. */
  async setMcpServers(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult> {
    const session = await this.session("setMcpServers");
    if (!session.setMcpServers) throw new Error("this session cannot change its MCP servers");
    return session.setMcpServers(servers);
  }

  /** Stops one background task (a `task_id` from `task_started` / `background_tasks_changed`). */
  async stopTask(taskId: string): Promise<void> {
    await this.request("stopTask", { subtype: "stop_task", task_id: taskId });
  }

  /**
   * Moves the running foreground work (or the tool call `toolUseId`) to the background, as Ctrl-B
   * does in the terminal. Resolves to whether anything was backgrounded.
   */
  async backgroundTasks(toolUseId?: string): Promise<boolean> {
    const answer = await this.request("backgroundTasks", {
      subtype: "background_tasks",
      ...(toolUseId !== undefined ? { tool_use_id: toolUseId } : {}),
    });
    return typeof answer.backgrounded === "boolean" ? answer.backgrounded : true;
  }
}

function listOf<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}
