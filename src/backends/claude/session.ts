/**
 * A Claude Code session: one CLI process in stream-json mode, driven through the control protocol.
 */
import { AbortError, type JsonDecodeError } from "../../errors.js";
import { describeValue } from "../../internal/safe-json.js";
import { malformedLineMessage, SessionLifecycle } from "../../internal/session-lifecycle.js";
import type { SdkMcpBridge } from "../../mcp/bridge.js";
import type { Message, RawObject } from "../../messages.js";
import type { AgentOptions } from "../../options.js";
import type { CanUseTool, PermissionMode, PermissionResult } from "../../permissions.js";
import { isStreamedPrompt, type Prompt, toWireUserMessage, type WireUserMessage } from "../../prompt.js";
import type { Transport } from "../../transport/transport.js";
import type { RewindFilesOptions, Session } from "../backend.js";
import { ControlProtocol } from "./control-protocol.js";
import { HookRegistry } from "./hook-registry.js";
import { parseClaudeMessage } from "./message-parser.js";

/** Default timeout of one control request. */
export const DEFAULT_CONTROL_TIMEOUT_MS = 60_000;

/** What a session needs besides the options: a transport that is not yet connected. */
export interface ClaudeSessionParams {
  options: AgentOptions;
  transport: Transport;
  bridge: SdkMcpBridge;
  /** Extra fields for the initialize request (e.g. agents). */
  initializeExtras?: RawObject;
  /**
   * Called once with the CLI's self-reported version: `claude_code_version` of the first
   * `system/init`, or `undefined` when the session ends before one arrives.
   */
  onCliVersion?: ((reported: unknown) => void) | undefined;
}

/** One Claude Code process and its control protocol. */
export class ClaudeSession implements Session {
  private readonly life: SessionLifecycle;
  private readonly hooks: HookRegistry;
  private readonly protocol: ControlProtocol;
  private readonly transport: Transport;
  private readonly bridge: SdkMcpBridge;
  private readonly options: AgentOptions;
  private initResponse: RawObject | undefined;
  private lastResultWasError = false;
  private onCliVersion: ((reported: unknown) => void) | undefined;

  constructor(params: ClaudeSessionParams) {
    this.options = params.options;
    this.transport = params.transport;
    this.bridge = params.bridge;
    this.onCliVersion = params.onCliVersion;
    this.hooks = new HookRegistry(params.options.hooks);
    const canUseTool = params.options.canUseTool;
    this.protocol = new ControlProtocol(
      this.transport,
      {
        can_use_tool: (request, signal) => answerPermission(canUseTool, request, signal),
        hook_callback: (request, signal) => this.hooks.handle(request, signal),
        mcp_message: (request, signal) => this.bridge.handle(request, signal),
      },
      {
        onMessage: (raw) => this.onMessage(raw),
        onMalformedLine: (error) => this.onMalformedLine(error),
        onEnd: (error) => this.onEnd(error),
      },
      params.options.controlTimeoutMs ?? DEFAULT_CONTROL_TIMEOUT_MS,
      params.options.callbackTimeoutMs,
    );
    this.life = new SessionLifecycle(params.options.signal, (error) => this.shutdown(error));
  }

  /** Connects the transport and performs the initialize handshake. */
  async start(initializeExtras: RawObject = {}): Promise<void> {
    this.options.signal?.throwIfAborted();
    await this.transport.connect();
    this.protocol.start();
    const timeout = this.options.controlTimeoutMs ?? DEFAULT_CONTROL_TIMEOUT_MS;
    this.initResponse = await this.protocol.request(
      {
        subtype: "initialize",
        hooks: this.hooks.config,
        ...(this.bridge.names.length ? { sdkMcpServers: this.bridge.names } : {}),
        ...initializeExtras,
      },
      timeout,
    );
  }

  pid(): number | undefined {
    return (this.transport as { pid?: number }).pid;
  }

  serverInfo(): Record<string, unknown> | undefined {
    return this.initResponse;
  }

  async send(prompt: Prompt, sessionId = "default"): Promise<void> {
    if (!isStreamedPrompt(prompt)) {
      await this.writeUserTurn(toWireUserMessage(prompt, sessionId));
      return;
    }
    for await (const item of prompt) {
      if (this.life.isClosing) return;
      await this.writeUserTurn(toWireUserMessage(item, sessionId));
    }
  }

  private async writeUserTurn(message: WireUserMessage): Promise<void> {
    this.life.turnSent();
    await this.protocol.write(message as unknown as RawObject);
  }

  /** Resolves once every user turn sent so far has produced a `result` (or the session ended). */
  idle(): Promise<void> {
    return this.life.idle();
  }

  async endInput(): Promise<void> {
    await this.protocol.endInput(() => this.transport.endInput());
  }

  subscribe(opts: { untilResult?: boolean } = {}): AsyncGenerator<Message, void, undefined> {
    return this.life.subscribe(opts);
  }

  retainTurns(): void {
    this.life.retainTurns();
  }

  async interrupt(): Promise<void> {
    await this.protocol.request({ subtype: "interrupt" });
  }

  async setPermissionMode(mode: PermissionMode): Promise<void> {
    await this.protocol.request({ subtype: "set_permission_mode", mode });
  }

  async setModel(model?: string): Promise<void> {
    await this.protocol.request({ subtype: "set_model", model: model ?? "default" });
  }

  async setMaxThinkingTokens(tokens: number | null): Promise<void> {
    await this.protocol.request({ subtype: "set_max_thinking_tokens", max_thinking_tokens: tokens });
  }

  async rewindFiles(
    userMessageId: string,
    options: RewindFilesOptions = {},
  ): Promise<Record<string, unknown>> {
    return this.protocol.request({
      subtype: "rewind_files",
      user_message_id: userMessageId,
      ...(options.dryRun ? { dry_run: true } : {}),
    });
  }

  async mcpServerStatus(): Promise<unknown[]> {
    const response = await this.protocol.request({ subtype: "mcp_status" });
    return Array.isArray(response.mcpServers) ? response.mcpServers : [];
  }

  controlRequest(request: { subtype: string; [key: string]: unknown }): Promise<Record<string, unknown>> {
    return this.protocol.request(request);
  }

  close(reason?: unknown): Promise<void> {
    return this.life.close(reason);
  }

  private async shutdown(error: unknown): Promise<void> {
    this.protocol.shutdown(error ?? new AbortError("The session was closed"));
    try {
      await this.transport.close();
    } finally {
      await this.bridge.close();
      this.life.end(error);
    }
  }

  private onMessage(raw: RawObject): void {
    let message: Message;
    try {
      message = parseClaudeMessage(raw);
    } catch {
      message = { type: "unknown", wireType: String(raw.type), raw };
    }
    if (this.onCliVersion !== undefined && raw.type === "system" && raw.subtype === "init") {
      this.reportCliVersion(raw.claude_code_version);
    }
    this.life.push(message);
    if (message.type === "result") {
      this.lastResultWasError = message.isError;
      this.life.resultSeen();
    }
  }

  private onMalformedLine(error: JsonDecodeError): void {
    this.life.push(malformedLineMessage(error));
  }

  private reportCliVersion(reported: unknown): void {
    const report = this.onCliVersion;
    this.onCliVersion = undefined;
    report?.(reported);
  }

  private onEnd(error: unknown): void {
    if (this.onCliVersion !== undefined) this.reportCliVersion(undefined);
    // Claude Code exits 1 after a session whose last turn failed at the API; that failure already
    // reached the caller as `result.isError`, so the exit code adds nothing.
    const alreadyReported = this.lastResultWasError && isExitCodeOne(error);
    this.life.finish(alreadyReported ? undefined : error);
  }
}

function isExitCodeOne(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { exitCode?: unknown }).exitCode === 1;
}

/** Answers `can_use_tool` with the user's callback. */
async function answerPermission(
  canUseTool: CanUseTool | undefined,
  request: RawObject,
  signal: AbortSignal,
): Promise<RawObject> {
  if (!canUseTool) throw new Error("canUseTool callback is not configured");
  const toolName = String(request.tool_name ?? "");
  const input = (request.input ?? {}) as Record<string, unknown>;
  const mcpServer = request.mcp_server as { name: string; source?: string } | undefined;
  const result: PermissionResult = await canUseTool(toolName, input, {
    signal,
    suggestions: Array.isArray(request.permission_suggestions) ? request.permission_suggestions : [],
    toolUseId: typeof request.tool_use_id === "string" ? request.tool_use_id : undefined,
    blockedPath: typeof request.blocked_path === "string" ? request.blocked_path : undefined,
    description: typeof request.description === "string" ? request.description : undefined,
    mcpServer,
    raw: request,
  });
  if (result?.behavior === "allow") {
    return {
      behavior: "allow",
      updatedInput: result.updatedInput ?? input,
      ...(result.updatedPermissions ? { updatedPermissions: result.updatedPermissions } : {}),
    };
  }
  if (result?.behavior === "deny") {
    return {
      behavior: "deny",
      message: result.message ?? "",
      ...(result.interrupt !== undefined ? { interrupt: result.interrupt } : {}),
    };
  }
  throw new Error(`canUseTool must return { behavior: "allow" | "deny" }, got ${describeValue(result)}`);
}
