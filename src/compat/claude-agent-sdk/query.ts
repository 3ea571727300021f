/**
 * The official `query()` on this SDK's engine: the same options, the same `Query` methods, and the
 * CLI's wire messages yielded as the official SDK yields them.
 */

import { UnsupportedOptionsError } from "../../errors.js";
import type { Message } from "../../messages.js";
import type { Prompt, StreamedUserInput, WireUserMessage } from "../../prompt.js";
import { type Query as CoreQuery, query as coreQuery } from "../../query.js";
import { checkSignalOption } from "../../signals/abort.js";
import type { ClaimOptions as CoreClaimOptions } from "../../warm/claim.js";
import { prewarm as corePrewarm } from "../../warm/spare.js";
import { startup as coreStartup } from "../../warm/warm-session.js";
import { withOfficialMessage } from "./errors.js";
import { mapMcpServers, toAgentOptions, warnShadowedCanUseTool } from "./options.js";
import type {
  AccountInfo,
  AgentInfo,
  ClaimOptions,
  McpServerConfig,
  McpServerStatus,
  McpSetServersResult,
  ModelInfo,
  Options,
  Query,
  RewindFilesResult,
  SDKControlInitializeResponse,
  SDKControlInterruptResponse,
  SDKControlResponsePayload,
  SDKMessage,
  SDKUserMessage,
  SdkPluginConfig,
  SlashCommand,
  SpareProcess,
  WarmQuery,
} from "./types.js";

/**
 * Runs Claude Code on a prompt and streams its wire messages. Options are checked here, before any
 * process is spawned: an option this engine cannot honour throws `UnsupportedOptionsError` naming it.
 * The CLI is started at once (as the official SDK does), so control methods work before iteration.
 *
 * @example
 * for await (const message of query({ prompt: "What is 2 + 2?" })) {
 *   if (message.type === "result" && message.subtype === "success") console.log(message.result);
 * }
 */
export function query(params: { prompt: string | AsyncIterable<SDKUserMessage>; options?: Options }): Query {
  checkAbortController(params.options);
  const agentOptions = toAgentOptions(params.options);
  warnShadowedCanUseTool(params.options);
  try {
    return compatQuery(params.prompt, (prompt) => coreQuery({ prompt, options: agentOptions }));
  } catch (error) {
    throw withOfficialMessage(error);
  }
}

/** The official prompt run by `run` (a cold query, or one on a warm process), as a compat Query. */
function compatQuery(
  prompt: string | AsyncIterable<SDKUserMessage>,
  run: (prompt: Prompt) => CoreQuery,
): Query {
  if (typeof prompt !== "string") {
    return new CompatQuery(run(prompt as AsyncIterable<StreamedUserInput>));
  }
  const turn = new SingleTurn(prompt);
  return new CompatQuery(run(turn.input()), turn);
}

/**
 * Starts Claude Code and finishes its `initialize` handshake before the prompt is known, as the
 * official `startup()` does; `query()` on the returned handle then writes the prompt to a ready
 * process. Options are checked before anything is spawned. As with the official SDK the process
 * waits for its prompt until `close()` (no idle timeout), but it does not keep the host alive and
 * ends with it.
 *
 * @param params.initializeTimeoutMs The most time to wait for the process to start and answer
 *   `initialize` (default 60 000 ms); the promise then rejects and the process is ended.
 * @example
 * const warm = await startup({ options: { model: "sonnet" } });
 * // … later, when the prompt is known:
 * for await (const message of warm.query("What is 2 + 2?")) console.log(message.type);
 */
export async function startup(
  params: { options?: Options; initializeTimeoutMs?: number } = {},
): Promise<WarmQuery> {
  const warm = await coreStartup(coreStartParams(params));
  return {
    query: (prompt) => compatQuery(prompt, (input) => warm.query(input)),
    close: () => {
      void warm.close().catch(() => undefined);
    },
    [Symbol.asyncDispose]: () => warm.close(),
  };
}

/**
 * Starts a spare Claude Code process parked in a private directory (`--await-claim`) before the
 * session it will serve is known, as the official alpha `prewarm()` does; `claim()` later binds it
 * to a folder and sends the prompt. Options are checked before anything is spawned. The spare
 * waits until claimed or closed (no idle timeout), without keeping the host alive.
 *
 * @param params.initializeTimeoutMs The most time to wait for the process to start and answer
 *   `initialize` (default 60 000 ms).
 * @example
 * const spare = await prewarm({ options: { model: "sonnet" } });
 * // … later, when a user opens a folder:
 * const q = spare.claim({ prompt: "What is in this repository?", options: { cwd: folder } });
 * spare.claimed.catch((error: Error) => console.error("not claimed:", error.message));
 * for await (const message of q) console.log(message.type);
 */
export async function prewarm(
  params: { options?: Options; initializeTimeoutMs?: number } = {},
): Promise<SpareProcess> {
  const spare = await corePrewarm(coreStartParams(params));
  let claimedQuery: Query | undefined;
  return {
    claimed: spare.claimed,
    exited: spare.exited,
    claim: ({ prompt, options }) => {
      const claimOptions = coreClaimOptions(options);
      claimedQuery = compatQuery(prompt, (input) => spare.claim(input, claimOptions));
      return claimedQuery;
    },
    close: () => {
      if (claimedQuery !== undefined) claimedQuery.close();
      else void spare.close().catch(() => undefined);
    },
    [Symbol.asyncDispose]: async () => {
      if (claimedQuery !== undefined) claimedQuery.close();
      else await spare.close();
      await spare.exited;
    },
  };
}

/**
 * The official `startup()` / `prewarm()` arguments as the core's: the process waits until used or
 * closed (no idle timeout), as the official one does.
 */
function coreStartParams(params: { options?: Options; initializeTimeoutMs?: number }): {
  options: ReturnType<typeof toAgentOptions>;
  idleTimeoutMs: number;
  timeoutMs?: number;
} {
  checkAbortController(params.options);
  const options = toAgentOptions(params.options);
  warnShadowedCanUseTool(params.options);
  return {
    options,
    idleTimeoutMs: Number.POSITIVE_INFINITY,
    ...(params.initializeTimeoutMs !== undefined ? { timeoutMs: params.initializeTimeoutMs } : {}),
  };
}

/**
 * `abortController` must be an `AbortController`: one without a signal would be dropped (aborting
 * it would do nothing), and a non-signal would fail inside Node with a bare `TypeError`.
 *
 * @throws InvalidOptionsError naming `abortController.signal`.
 */
function checkAbortController(options: Options | undefined): void {
  const controller: unknown = options?.abortController;
  if (controller === undefined) return;
  let signal: unknown = null;
  try {
    signal = (controller as { signal?: unknown }).signal ?? null;
  } catch {
    // null, or a proxy whose traps throw: no signal.
  }
  checkSignalOption(signal, "abortController.signal");
}

/** The official claim options as the core's; what this engine cannot send at a claim is refused. */
function coreClaimOptions(options: ClaimOptions): CoreClaimOptions {
  const { settings, agents, ...supported } = options;
  const refused = [
    ...(settings !== undefined ? ["settings"] : []),
    ...(agents !== undefined ? ["agents"] : []),
  ];
  if (refused.length > 0)
    throw new UnsupportedOptionsError("claude (SpareProcess.claim)", refused, {
      settings: "give settings to prewarm() in Options.settings",
      agents: "give agents to prewarm() in Options.agents",
    });
  return supported;
}

/**
 * A string prompt as the official SDK writes it to the CLI: one user message with a text block, no
 * uuid (a uuid would make the CLI report `command_lifecycle` frames the official SDK never yields).
 * Input stays open until the caller asks for the message after the turn's result, so control
 * methods still work while the result is handled (as with the official SDK).
 */
class SingleTurn {
  private release!: () => void;
  private readonly released = new Promise<void>((resolve) => {
    this.release = resolve;
  });

  constructor(private readonly text: string) {}

  /** Ends the input (idempotent). */
  end(): void {
    this.release();
  }

  async *input(): AsyncGenerator<WireUserMessage> {
    yield {
      type: "user",
      session_id: "",
      message: { role: "user", content: [{ type: "text", text: this.text }] },
      parent_tool_use_id: null,
    };
    await this.released;
  }
}

const DONE: IteratorResult<SDKMessage, void> = Object.freeze({ done: true, value: undefined });

/** Whether the official SDK hands a wire frame to its caller (it keeps some to itself). */
function isYielded(raw: Record<string, unknown>): boolean {
  return !(raw.type === "system" && raw.subtype === "session_state_changed" && raw.sdk_host_only === true);
}

/** The text the official SDK puts in its "returned an error result" error. */
function errorResultText(raw: Record<string, unknown>): string | undefined {
  if (raw.is_error !== true) return undefined;
  if (raw.subtype === "success") return typeof raw.result === "string" ? raw.result : undefined;
  const errors = Array.isArray(raw.errors) ? (raw.errors as unknown[]) : [];
  return errors
    .map((e) => String(e).trim())
    .filter(Boolean)
    .join("; ");
}

class CompatQuery implements Query {
  /** The first message, requested at construction so the CLI starts at once. */
  private first: Promise<IteratorResult<Message, void>> | undefined;
  /** Text of the last error result, while nothing but more results followed it. */
  private lastErrorText: string | undefined;
  private finished = false;
  /** The last message yielded was a result. */
  private afterResult = false;

  constructor(
    private readonly core: CoreQuery,
    private readonly turn?: SingleTurn,
  ) {
    this.first = core.next();
    // Reported to the first next(); not an unhandled rejection if nobody iterates.
    this.first.catch(() => undefined);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.core.close();
  }

  async next(): Promise<IteratorResult<SDKMessage, void>> {
    if (this.finished) return DONE;
    if (this.afterResult) this.turn?.end();
    for (;;) {
      const pending = this.first ?? this.core.next();
      this.first = undefined;
      let step: IteratorResult<Message, void>;
      try {
        step = await pending;
      } catch (error) {
        this.finished = true;
        throw withOfficialMessage(error);
      }
      if (step.done) {
        this.finished = true;
        // Claude Code exits 1 after a last turn that failed; the official SDK turns that exit into
        // this error, after yielding the result.
        if (this.lastErrorText !== undefined) {
          throw new Error(`Claude Code returned an error result: ${this.lastErrorText}`);
        }
        return DONE;
      }
      const raw = step.value.raw;
      if (!isYielded(raw)) continue;
      this.afterResult = raw.type === "result";
      if (raw.type === "result") this.lastErrorText = errorResultText(raw) || undefined;
      else if (
        !(
          raw.type === "system" &&
          (raw.subtype === "session_writes_lost" || raw.subtype === "plugin_install")
        )
      ) {
        this.lastErrorText = undefined;
      }
      return { done: false, value: raw as SDKMessage };
    }
  }

  async return(): Promise<IteratorResult<SDKMessage, void>> {
    this.finished = true;
    this.turn?.end();
    this.first = undefined;
    await this.core.return();
    return DONE;
  }

  async throw(error: unknown): Promise<IteratorResult<SDKMessage, void>> {
    this.finished = true;
    this.turn?.end();
    await this.core.close();
    throw error;
  }

  close(): void {
    this.finished = true;
    this.turn?.end();
    void this.core.close();
  }

  private request(subtype: string, fields: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return this.core.controlRequest({ subtype, ...fields });
  }

  private async initialization(): Promise<SDKControlInitializeResponse> {
    return ((await this.core.serverInfo()) ?? {}) as SDKControlInitializeResponse;
  }

  async interrupt(): Promise<SDKControlInterruptResponse | undefined> {
    const response = await this.request("interrupt");
    const queued = response.still_queued;
    if (!Array.isArray(queued)) return undefined;
    const cancelled = response.cancelled;
    return {
      still_queued: queued.filter((q): q is string => typeof q === "string"),
      ...(Array.isArray(cancelled)
        ? { cancelled: cancelled.filter((c): c is string => typeof c === "string") }
        : {}),
    };
  }

  async setPermissionMode(mode: Parameters<Query["setPermissionMode"]>[0]): Promise<void> {
    await this.request("set_permission_mode", { mode });
  }

  async setModel(model?: string): Promise<void> {
    await this.request("set_model", { model });
  }

  async setMaxThinkingTokens(
    maxThinkingTokens: number | null,
    thinkingDisplay?: "summarized" | "omitted" | "highlights" | null,
  ): Promise<void> {
    await this.request("set_max_thinking_tokens", {
      max_thinking_tokens: maxThinkingTokens,
      ...(thinkingDisplay !== undefined ? { thinking_display: thinkingDisplay } : {}),
    });
  }

  initializationResult(): Promise<SDKControlInitializeResponse> {
    return this.initialization();
  }

  async supportedCommands(): Promise<SlashCommand[]> {
    return (await this.initialization()).commands;
  }

  async supportedModels(): Promise<ModelInfo[]> {
    return (await this.initialization()).models;
  }

  async supportedAgents(): Promise<AgentInfo[]> {
    return (await this.initialization()).agents;
  }

  async accountInfo(): Promise<AccountInfo> {
    return (await this.initialization()).account;
  }

  async mcpServerStatus(): Promise<McpServerStatus[]> {
    return (await this.request("mcp_status")).mcpServers as McpServerStatus[];
  }

  async rewindFiles(userMessageId: string, options?: { dryRun?: boolean }): Promise<RewindFilesResult> {
    return (await this.request("rewind_files", {
      user_message_id: userMessageId,
      ...(options?.dryRun !== undefined ? { dry_run: options.dryRun } : {}),
    })) as RewindFilesResult;
  }

  async reconnectMcpServer(serverName: string): Promise<void> {
    await this.request("mcp_reconnect", { serverName });
  }

  async toggleMcpServer(serverName: string, enabled: boolean): Promise<void> {
    await this.request("mcp_toggle", { serverName, enabled });
  }

  async stopTask(taskId: string): Promise<void> {
    await this.request("stop_task", { task_id: taskId });
  }

  async getContextUsage(opts?: { detail?: "summary" | "full" }): Promise<SDKControlResponsePayload> {
    return this.request("get_context_usage", { ...opts });
  }

  async backgroundTasks(toolUseId?: string): Promise<boolean> {
    const response = await this.request("background_tasks", { tool_use_id: toolUseId });
    return (response.backgrounded as boolean | undefined) ?? true;
  }

  async readMcpResource(serverName: string, uri: string): Promise<SDKControlResponsePayload> {
    return this.request("mcp_read_resource", { serverName, uri });
  }

  async applyFlagSettings(settings: Record<string, unknown>): Promise<void> {
    await this.request("apply_flag_settings", { settings });
  }

  async updateSettings(
    source: "localSettings" | "userSettings",
    settings: Record<string, unknown>,
  ): Promise<void> {
    await this.request("update_settings", { source, settings });
  }

  async reloadPlugins(options?: {
    holdOnCacheImpact?: boolean;
    addPlugins?: SdkPluginConfig[];
    refuseIfBusy?: boolean;
  }): Promise<SDKControlResponsePayload> {
    return this.request("reload_plugins", {
      ...(options?.holdOnCacheImpact ? { hold_on_cache_impact: true } : {}),
      ...(options?.addPlugins?.length ? { add_plugins: options.addPlugins } : {}),
      ...(options?.refuseIfBusy ? { refuse_if_busy: true } : {}),
    });
  }

  async reloadSkills(): Promise<SDKControlResponsePayload> {
    return this.request("reload_skills");
  }

  async reloadOutputStyles(): Promise<SDKControlResponsePayload> {
    return this.request("reload_output_styles");
  }

  async setMcpPermissionModeOverride(
    serverName: string,
    mode: "default" | "auto" | null,
  ): Promise<{ warning?: string }> {
    return ((await this.request("set_mcp_permission_mode_override", { serverName, mode })) ?? {}) as {
      warning?: string;
    };
  }

  async seedReadState(path: string, mtime: number): Promise<void> {
    await this.request("seed_read_state", { path, mtime });
  }

  async reinitialize(): Promise<SDKControlInitializeResponse> {
    return (await this.core.reinitialize()) as SDKControlInitializeResponse;
  }

  usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET(opts?: {
    skipBehaviors?: boolean;
  }): Promise<SDKControlResponsePayload> {
    return this.core.getUsage(opts) as unknown as Promise<SDKControlResponsePayload>;
  }

  readFile(
    path: string,
    options?: { maxBytes?: number; encoding?: "utf-8" | "base64" },
  ): Promise<SDKControlResponsePayload | null> {
    return this.core.readFile(path, options) as unknown as Promise<SDKControlResponsePayload | null>;
  }

  setMcpServers(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult> {
    return this.core.setMcpServers(mapMcpServers(servers));
  }

  streamInput(stream: AsyncIterable<SDKUserMessage>): Promise<void> {
    return this.core.streamInput(stream as AsyncIterable<StreamedUserInput>);
  }
}
