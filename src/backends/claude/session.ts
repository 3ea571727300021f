/**
 * A Claude Code session: one CLI process in stream-json mode, driven through the control protocol.
 */

import { randomUUID } from "node:crypto";
import { AbortError, type JsonDecodeError, UnsupportedFeatureError } from "../../errors.js";
import { SdkMcpBridge } from "../../mcp/bridge.js";
import type { McpServerConfig } from "../../mcp/config.js";
import type { Message, RawObject } from "../../messages.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import type { CanUseTool, PermissionMode, PermissionResult } from "../../permissions.js";
import {
  checkStreamedInput,
  isStreamedPrompt,
  type Prompt,
  type StreamedUserInput,
  type WireUserMessage,
} from "../../prompt.js";
import { missingResultError } from "../../session/missing-result.js";
import { malformedLineMessage, SessionLifecycle } from "../../session/session-lifecycle.js";
import { flowLimits } from "../../transport/read-flow.js";
import type { Transport } from "../../transport/transport.js";
import { describeValue } from "../../wire/safe-json.js";
import type { RewindFilesOptions, Session } from "../backend.js";
import { sdkServerWire } from "./command.js";
import { ControlProtocol, NO_ANSWER } from "./control-protocol.js";
import type { McpSetServersResult } from "./control-results.js";
import type { ClaudeInitializeResponse, McpServerStatus, RewindFilesResult } from "./control-types.js";
import { HookRegistry } from "./hook-registry.js";
import { buildClaudeInitialize } from "./initialize.js";
import { parseClaudeMessage } from "./message-parser.js";
import { ResultOrdering } from "./result-ordering.js";
import type { SessionKey } from "./sessions/store-types.js";
import { hooksWithToolPolicy } from "./tool-policy.js";
import { TranscriptMirror } from "./transcript-mirror.js";
import { sessionTotalOf, TurnCost } from "./turn-cost.js";

/** Default timeout of one control request. */
export const DEFAULT_CONTROL_TIMEOUT_MS = 60_000;

/** How long the first turn of a resumed session waits for the CLI's restored cost total. */
export const COST_BASELINE_TIMEOUT_MS = 5_000;

/** What a session needs besides the options: a transport that is not yet connected. */
export interface ClaudeSessionParams {
  options: ResolvedOptions;
  transport: Transport;
  bridge: SdkMcpBridge;
  /** Extra fields for the initialize request (e.g. agents). */
  initializeExtras?: RawObject;
  /**
   * Called once with the CLI's self-reported version: `claude_code_version` of the first
   * `system/init`, or `undefined` when the session ends before one arrives.
   */
  onCliVersion?: ((reported: unknown) => void) | undefined;
  /**
   * With `options.sessionStore`: `<CLAUDE_CONFIG_DIR>/projects` of the CLI process, which the paths
   * of its `transcript_mirror` frames are under.
   */
  mirrorProjectsDir?: string;
  /** Runs once the session has shut down (its process is gone): removes what was made for it. */
  cleanup?: () => Promise<void>;
}

/** One Claude Code process and its control protocol. */
export class ClaudeSession implements Session {
  private readonly life: SessionLifecycle;
  private readonly hooks: HookRegistry;
  private readonly protocol: ControlProtocol;
  private readonly transport: Transport;
  private readonly bridge: SdkMcpBridge;
  private readonly options: ResolvedOptions;
  private initResponse: ClaudeInitializeResponse | undefined;
  private lastResultWasError = false;
  private onCliVersion: ((reported: unknown) => void) | undefined;
  /** Background tasks the CLI reported running, by task id. */
  private readonly backgroundTasks = new Set<string>();
  private readonly ordering = new ResultOrdering((message) => this.deliver(message));
  /** Turns the CLI's running cost total into each turn's own (see turn-cost.ts). */
  private readonly cost: TurnCost;
  /** Settles once the running total a resumed session starts from is known (or known not to be). */
  private costBaseline: Promise<void> | undefined;
  private readonly mirror: TranscriptMirror | undefined;
  private readonly cleanup: (() => Promise<void>) | undefined;
  private markShutDown!: () => void;
  private readonly shutDown = new Promise<void>((resolve) => {
    this.markShutDown = resolve;
  });

  constructor(params: ClaudeSessionParams) {
    this.options = params.options;
    this.cleanup = params.cleanup;
    const resumed = params.options.resume !== undefined || params.options.continueConversation === true;
    // A new session starts from nothing; a resumed one from the total the CLI restored (asked below).
    this.cost = new TurnCost(resumed ? null : 0);
    if (!resumed || params.options.resumedCostBaseline === false) this.costBaseline = Promise.resolve();
    const store = params.options.sessionStore;
    if (store !== undefined && params.mirrorProjectsDir !== undefined) {
      this.mirror = new TranscriptMirror(
        store,
        params.options.sessionStoreFlush ?? "batched",
        params.mirrorProjectsDir,
        (key, error) => this.reportMirrorError(key, error.message),
      );
    }
    this.transport = params.transport;
    this.bridge = params.bridge;
    this.onCliVersion = params.onCliVersion;
    this.life = new SessionLifecycle(
      params.options.signal,
      (error) => this.shutdown(error),
      flowLimits(params.options),
      params.options.backgroundTaskTimeoutMs,
    );
    // timeoutMs and maxBudgetTokens by the SDK; --max-turns is the CLI's own.
    this.life.enforceLimits(params.options, () => this.interrupt(), { maxTurns: true });
    // With `canUseTool`, a PreToolUse hook of ours puts every call to it (see tool-policy.ts).
    this.hooks = new HookRegistry(hooksWithToolPolicy(params.options));
    const canUseTool = params.options.canUseTool;
    this.protocol = new ControlProtocol(
      this.transport,
      {
        can_use_tool: (request, signal, requestId) =>
          answerPermission(canUseTool, request, signal, requestId),
        hook_callback: (request, signal) => this.hooks.handle(request, signal),
        mcp_message: (request, signal) => this.bridge.handle(request, signal),
        elicitation: (request, signal, id) => answerElicitation(params.options, request, signal, id),
        request_user_dialog: (request, signal, id) => answerUserDialog(params.options, request, signal, id),
      },
      {
        onMessage: (raw) => this.onMessage(raw),
        onMalformedLine: (error) => this.onMalformedLine(error),
        onEnd: (error) => this.onEnd(error),
      },
      params.options.controlTimeoutMs ?? DEFAULT_CONTROL_TIMEOUT_MS,
      params.options.callbackTimeoutMs,
      this.life.flow,
    );
  }

  /** Connects the transport and performs the initialize handshake. */
  async start(initializeExtras: RawObject = {}): Promise<void> {
    this.options.signal?.throwIfAborted();
    await this.transport.connect();
    this.protocol.start();
    this.initializeExtras = initializeExtras;
    try {
      await this.initialize();
    } catch (error) {
      // The CLI answered with a `result` and ended before its handshake (`--resume` of a session
      // it does not have: `error_during_execution`, "No conversation found", exit 1). That result
      // is its answer: the stream delivers it, then how the process ended, as for any turn.
      if (!this.resultBeforeInitialize || !this.life.isEnded) throw error;
    }
  }

  private initializeExtras: RawObject = {};
  /** A `result` came before the initialize answer (see {@link start}). */
  private resultBeforeInitialize = false;

  /**
   * Whether the CLI answered with a `result` and ended during {@link start} (nothing more can be
   * sent; the stream holds that answer and how the process ended).
   */
  get answeredAtStart(): boolean {
    return this.resultBeforeInitialize && this.initResponse === undefined && this.life.isEnded;
  }

  private async initialize(): Promise<RawObject> {
    const timeout = this.options.controlTimeoutMs ?? DEFAULT_CONTROL_TIMEOUT_MS;
    this.initResponse = (await this.protocol.request(
      {
        subtype: "initialize",
        // No hooks: the field is left out, as the official SDK does (not `null`).
        hooks: this.hooks.config ?? undefined,
        ...(this.bridge.names.length ? { sdkMcpServers: this.bridge.names } : {}),
        ...buildClaudeInitialize(this.options),
        ...this.initializeExtras,
      },
      timeout,
    )) as ClaudeInitializeResponse;
    // Policy the caller relies on is never dropped silently (as the official SDK checks it too).
    if (this.options.managedSettings !== undefined && this.initResponse.managed_settings_applied !== true) {
      throw new UnsupportedFeatureError(
        "managedSettings (this Claude Code did not confirm it applied the managed settings sent in initialize)",
        "claude",
      );
    }
    return this.initResponse;
  }

  /** Sends the same `initialize` request again (as the official SDK's `reinitialize()`). */
  reinitialize(): Promise<RawObject> {
    return this.initialize();
  }

  /**
   * Makes `servers` the session's MCP servers: in-process ones are connected or disconnected here,
   * and the CLI gets the whole set (`mcp_set_servers`), in-process ones by name.
   */
  async setMcpServers(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult> {
    const sdk = SdkMcpBridge.sdkConfigs(servers);
    await this.bridge.replace(sdk);
    const wire: RawObject = {};
    for (const [name, config] of Object.entries(servers)) {
      wire[name] = config.type === "sdk" ? sdkServerWire(name, config) : config;
    }
    const answer = await this.protocol.request({ subtype: "mcp_set_servers", servers: wire });
    return {
      added: stringList(answer.added),
      removed: stringList(answer.removed),
      errors: (typeof answer.errors === "object" && answer.errors !== null ? answer.errors : {}) as Record<
        string,
        string
      >,
    };
  }

  pid(): number | undefined {
    return (this.transport as { pid?: number }).pid;
  }

  setKeepAlive(keep: boolean): void {
    this.transport.setKeepAlive?.(keep);
  }

  isAlive(): boolean {
    return this.life.isAlive;
  }

  endReason(): unknown {
    return this.life.endReason;
  }

  closed(): Promise<void> {
    return this.shutDown;
  }

  async claimSession(fields: RawObject): Promise<RawObject> {
    const answer = await this.protocol.request({
      subtype: "claim_session",
      ...fields,
      include_initialize: true,
      sdk_mcp_servers: this.bridge.names,
    });
    // From here on the handshake answer describes the claimed session, not the parked process.
    const snapshot = answer.initialize;
    if (typeof snapshot === "object" && snapshot !== null)
      this.initResponse = snapshot as ClaudeInitializeResponse;
    return answer;
  }

  serverInfo(): ClaudeInitializeResponse | undefined {
    return this.initResponse;
  }

  async send(prompt: Prompt, sessionId = "default"): Promise<void> {
    if (!isStreamedPrompt(prompt)) {
      await this.writeUserTurn(toWireUserMessage(prompt, sessionId));
      return;
    }
    for await (const item of prompt) {
      if (this.life.isClosing) return;
      checkStreamedInput(item);
      await this.writeUserTurn(toWireUserMessage(item, sessionId));
    }
  }

  private async writeUserTurn(message: WireUserMessage): Promise<void> {
    this.costBaseline ??= this.askCostBaseline();
    await this.costBaseline;
    this.life.turnSent();
    // `verbatimPrompts`: the CLI takes the text as written (no `@path` expansion, no slash commands).
    const wire = this.options.verbatimPrompts ? { ...message, client_composed: true } : message;
    await this.protocol.write(wire as unknown as RawObject);
  }

  /**
   * Asks the CLI for the running total a resumed session starts from (`get_usage`), bounded by
   * {@link COST_BASELINE_TIMEOUT_MS}. A CLI that cannot say leaves the first turn's cost `null`:
   * the turn itself goes on.
   */
  private async askCostBaseline(): Promise<void> {
    try {
      const answer = await this.protocol.request({ subtype: "get_usage" }, COST_BASELINE_TIMEOUT_MS);
      this.cost.setStartTotal(sessionTotalOf(answer));
    } catch {
      // Documented: without the CLI's restored total, the resumed session's first turn cost is null.
      this.cost.setStartTotal(null);
    }
  }

  /** Resolves once every user turn sent so far has produced a `result` (or the session ended). */
  idle(): Promise<void> {
    return this.life.idle();
  }

  runningTurnSettled(): Promise<void> | undefined {
    return this.life.runningTurnSettled();
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

  async rewindFiles(userMessageId: string, options: RewindFilesOptions = {}): Promise<RewindFilesResult> {
    return this.protocol.request({
      subtype: "rewind_files",
      user_message_id: userMessageId,
      ...(options.dryRun ? { dry_run: true } : {}),
    }) as Promise<RewindFilesResult>;
  }

  async mcpServerStatus(): Promise<McpServerStatus[]> {
    const response = await this.protocol.request({ subtype: "mcp_status" });
    return Array.isArray(response.mcpServers) ? (response.mcpServers as McpServerStatus[]) : [];
  }

  controlRequest(request: { subtype: string; [key: string]: unknown }): Promise<Record<string, unknown>> {
    return this.protocol.request(request);
  }

  close(reason?: unknown): Promise<void> {
    return this.life.close(reason);
  }

  private async shutdown(error: unknown): Promise<void> {
    this.protocol.shutdown(error ?? new AbortError("The session was closed"));
    this.ordering.flush();
    try {
      await this.transport.close();
    } finally {
      try {
        // Bounded: a store that hangs delays the close by MIRROR_CLOSE_TIMEOUT_MS at most.
        await this.mirror?.close();
        await this.bridge.close();
      } finally {
        this.life.end(error);
        await this.cleanup?.().catch(() => undefined);
        this.markShutDown();
      }
    }
  }

  /** A lost mirror batch, as the `system`/`mirror_error` message the official SDK sends. */
  private reportMirrorError(key: SessionKey, error: string): void {
    this.ordering.push(
      parseClaudeMessage({
        type: "system",
        subtype: "mirror_error",
        error,
        key,
        uuid: randomUUID(),
        session_id: key.sessionId,
      }),
    );
  }

  private onMessage(raw: RawObject): void {
    if (raw.type === "transcript_mirror") {
      // SDK-internal: the entries go to the store, never to the consumer.
      this.mirror?.enqueue(raw.filePath, raw.entries);
      return;
    }
    // The end of a turn: what the turn wrote goes to the store now rather than at the next tick.
    if (raw.type === "result") {
      this.mirror?.flushSoon();
      if (this.initResponse === undefined) this.resultBeforeInitialize = true;
    }
    let message: Message;
    try {
      message = parseClaudeMessage(raw);
    } catch {
      message = { type: "unknown", wireType: String(raw.type), raw };
    }
    if (message.type === "result") message = this.cost.apply(message);
    if (this.onCliVersion !== undefined && raw.type === "system" && raw.subtype === "init") {
      this.reportCliVersion(raw.claude_code_version);
    }
    if (raw.type === "system") this.trackBackgroundTasks(raw);
    // `supportedCommands()` answers with the latest list, as the official SDK does.
    if (
      raw.type === "system" &&
      raw.subtype === "commands_changed" &&
      Array.isArray(raw.commands) &&
      this.initResponse
    ) {
      this.initResponse = { ...this.initResponse, commands: raw.commands };
    }
    this.ordering.push(message);
  }

  /** Hands a message to subscribers, after {@link ResultOrdering} put a turn's result last. */
  private deliver(message: Message): void {
    this.life.push(message);
    if (message.type === "result") {
      this.lastResultWasError = message.isError;
      this.life.resultSeen();
    }
  }

  /**
   * Keeps count of the background tasks the CLI reports, so input stays open while they run: the
   * CLI lists them in `background_tasks_changed` (the whole set each time); `task_started` and
   * `task_notification` keep the count right should a list be missed.
   */
  private trackBackgroundTasks(raw: RawObject): void {
    const before = this.backgroundTasks.size;
    if (raw.subtype === "background_tasks_changed" && Array.isArray(raw.tasks)) {
      this.backgroundTasks.clear();
      for (const task of raw.tasks) {
        const id = (task as RawObject | null)?.task_id;
        if (typeof id === "string") this.backgroundTasks.add(id);
      }
    } else if (
      raw.subtype === "task_started" &&
      raw.is_backgrounded === true &&
      typeof raw.task_id === "string"
    ) {
      this.backgroundTasks.add(raw.task_id);
    } else if (raw.subtype === "task_notification" && typeof raw.task_id === "string") {
      this.backgroundTasks.delete(raw.task_id);
    } else {
      return;
    }
    if (this.backgroundTasks.size !== before || before > 0)
      this.life.setBackgroundTasks(this.backgroundTasks.size);
  }

  private onMalformedLine(error: JsonDecodeError): void {
    this.ordering.push(malformedLineMessage(error));
  }

  private reportCliVersion(reported: unknown): void {
    const report = this.onCliVersion;
    this.onCliVersion = undefined;
    report?.(reported);
  }

  private onEnd(error: unknown): void {
    this.ordering.flush();
    if (this.onCliVersion !== undefined) this.reportCliVersion(undefined);
    // The CLI is done: the store gets its last entries (bounded) before the stream ends, so a
    // consumer that read to the end finds the store complete, and sees any mirror_error.
    if (this.mirror !== undefined) {
      void this.mirror.close().then(() => {
        this.ordering.flush();
        this.finishEnd(error);
      });
      return;
    }
    this.finishEnd(error);
  }

  private finishEnd(error: unknown): void {
    // Claude Code exits 1 after a session whose last turn failed at the API; that failure already
    // reached the caller as `result.isError`, so the exit code adds nothing.
    const alreadyReported = this.lastResultWasError && isExitCodeOne(error);
    const failure = alreadyReported ? undefined : error;
    // A clean end with a turn still waiting for its result is a truncated answer, not an answer.
    this.life.finish(
      failure ?? (this.life.hasPendingTurn ? missingResultError("claude", this.transport) : undefined),
    );
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
  requestId: string,
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
    requestId,
    raw: request,
  });
  // The CLI matches the answer to its tool call by this id (the official SDK sends it too).
  const toolUseID = typeof request.tool_use_id === "string" ? { toolUseID: request.tool_use_id } : {};
  if (result?.behavior === "allow") {
    return {
      behavior: "allow",
      updatedInput: result.updatedInput ?? input,
      ...(result.updatedPermissions ? { updatedPermissions: result.updatedPermissions } : {}),
      ...toolUseID,
    };
  }
  if (result?.behavior === "deny") {
    return {
      behavior: "deny",
      message: result.message ?? "",
      ...(result.interrupt !== undefined ? { interrupt: result.interrupt } : {}),
      ...toolUseID,
    };
  }
  throw new Error(`canUseTool must return { behavior: "allow" | "deny" }, got ${describeValue(result)}`);
}

/** Answers an MCP `elicitation` with `onElicitation`; without it, declines (as the official SDK does). */
async function answerElicitation(
  options: ResolvedOptions,
  request: RawObject,
  signal: AbortSignal,
  requestId: string,
): Promise<RawObject | typeof NO_ANSWER> {
  const onElicitation = options.onElicitation;
  if (!onElicitation) return { action: "decline" };
  const text = (key: string) => (typeof request[key] === "string" ? (request[key] as string) : undefined);
  const mode = request.mode === "form" || request.mode === "url" ? request.mode : undefined;
  const schema = request.requested_schema;
  const answer = await onElicitation(
    {
      serverName: String(request.mcp_server_name ?? ""),
      message: String(request.message ?? ""),
      ...(mode ? { mode } : {}),
      ...optional("url", text("url")),
      ...optional("elicitationId", text("elicitation_id")),
      ...(typeof schema === "object" && schema !== null
        ? { requestedSchema: schema as Record<string, unknown> }
        : {}),
      ...optional("title", text("title")),
      ...optional("displayName", text("display_name")),
      ...optional("description", text("description")),
      raw: request,
    },
    { signal, requestId },
  );
  return answer === null ? NO_ANSWER : { ...answer };
}

/**
 * Answers `request_user_dialog` with `onUserDialog`. Without it, or when it returns `null`, the
 * dialog is left unanswered (another client may render it; the CLI's deadline bounds the wait).
 */
async function answerUserDialog(
  options: ResolvedOptions,
  request: RawObject,
  signal: AbortSignal,
  requestId: string,
): Promise<RawObject | typeof NO_ANSWER> {
  const onUserDialog = options.onUserDialog;
  if (!onUserDialog) return NO_ANSWER;
  const payload = request.payload;
  const answer = await onUserDialog(
    {
      dialogKind: String(request.dialog_kind ?? ""),
      payload: typeof payload === "object" && payload !== null ? (payload as Record<string, unknown>) : {},
      ...optional("toolUseId", typeof request.tool_use_id === "string" ? request.tool_use_id : undefined),
      raw: request,
    },
    { signal, requestId },
  );
  return answer === null ? NO_ANSWER : { ...answer };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/**
 * The wire user message for one input item (here, not in prompt.ts: its `node:crypto` then loads
 * with this backend, not with the package root, ~5 ms of a cold start).
 */
function toWireUserMessage(input: StreamedUserInput, sessionId = "default"): WireUserMessage {
  if (typeof input === "string" || Array.isArray(input)) {
    return {
      type: "user",
      message: { role: "user", content: input },
      parent_tool_use_id: null,
      session_id: sessionId,
      // A uuid per turn lets callers rewind files to this message later.
      uuid: randomUUID(),
    };
  }
  return input;
}
