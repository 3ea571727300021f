/**
 * One ACP agent process driving one ACP session, over the official `@agentclientprotocol/sdk`
 * client (JSON-RPC on the agent's stdio).
 *
 * The SDK's connection runs over the SDK's own transport (process group, bounded lines, stderr
 * tail): its stream is fed from the transport's parsed lines, and every `session/update` is mapped
 * the moment it is read, in order, before the connection sees it, so a turn's messages always come
 * before its `result` (which the `session/prompt` response produces). Turns run one at a time.
 */
import {
  type AnyMessage,
  client as acpClient,
  type ClientConnection,
  PROTOCOL_VERSION,
  RequestError,
  type Stream,
} from "@agentclientprotocol/sdk";
import {
  AbortError,
  CliConnectionError,
  ControlRequestError,
  ControlTimeoutError,
  JsonDecodeError,
  MessageParseError,
  ProcessError,
  UnsupportedFeatureError,
} from "../../errors.js";
import type { McpServerConfig } from "../../mcp/config.js";
import type { Message, RawObject } from "../../messages.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import type { PermissionMode } from "../../permissions.js";
import { DEFAULT_CLOSE_GRACE_MS, describeExit } from "../../process/child.js";
import { signalGroup } from "../../process/group-registry.js";
import { checkStreamedInput, isStreamedPrompt, type Prompt, type StreamedUserInput } from "../../prompt.js";
import { missingResultError } from "../../session/missing-result.js";
import { malformedLineMessage, SessionLifecycle } from "../../session/session-lifecycle.js";
import { flowLimits } from "../../transport/read-flow.js";
import { readTransport } from "../../transport/read-transport.js";
import type { SubprocessTransport } from "../../transport/subprocess.js";
import { DEFAULT_MAX_BUFFER_SIZE } from "../../transport/subprocess.js";
import { SDK_VERSION } from "../../version.js";
import { asObject, isObject, str } from "../../wire/read.js";
import { describeValue } from "../../wire/safe-json.js";
import type { McpServerStatusEntry, RewindFilesResult, Session } from "../backend.js";
import { ClientGate } from "./client-gate.js";
import { acpMcpServers } from "./mcp-servers.js";
import { askCanUseTool, outcomeFor, type PermissionOption, type PermissionOutcome } from "./permissions.js";
import { acpPromptBlocks } from "./prompt-blocks.js";
import { type AcpConfigRequest, type AcpControlsReport, AcpSessionConfig } from "./session-config.js";
import { type AcpListQuery, type AcpSessionInfo, pageSessions } from "./session-list.js";
import { type CreateTerminalParams, Terminals } from "./terminals.js";
import { reportsCumulativeUsage } from "./turn-usage.js";
import { AcpUpdateMapper } from "./updates.js";
import { Workspace } from "./workspace.js";

/** Default timeout of a handshake request (`initialize`, `session/new`, …): `controlTimeoutMs`. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** Default `callbackTimeoutMs`: how long `canUseTool` may take. */
export const DEFAULT_CALLBACK_TIMEOUT_MS = 600_000;

/**
 * How long streamed text may wait to be joined with the chunks after it before it is delivered as
 * an assistant message (text never waits on the agent's next update).
 */
export const TEXT_FLUSH_MS = 100;

/**
 * How many bytes of output streamed text may span before it is delivered even within
 * {@link TEXT_FLUSH_MS} (at most a quarter of the high-water mark): joined text is not yet in the
 * message log, so backpressure cannot see it.
 */
export const MAX_JOINED_TEXT_BYTES = 1024 * 1024;

/** At most this long (and at most `controlTimeoutMs`), `close()` waits for the agent's `session/close` answer. */
export const SESSION_CLOSE_TIMEOUT_MS = 5_000;

/** Client name sent in `initialize`. */
export const ACP_CLIENT_NAME = "code-agent-sdk";

/** What an ACP session is made of. */
export interface AcpSessionParams {
  options: ResolvedOptions;
  /** Not yet connected. */
  transport: SubprocessTransport;
  /** The agent's name (preset or executable), for messages and errors. */
  agent: string;
  /** The environment the agent runs with; terminal commands inherit it. */
  env: Record<string, string>;
}

interface RunningTurn {
  /** Aborted by interrupt(): pending permission requests are answered `cancelled`. */
  readonly cancel: AbortController;
  /** Settles once the turn's result is delivered (or the session ended). */
  readonly done: Promise<void>;
}

/** The agent's `initialize` answer, as far as this client reads it. */
interface AgentCaps {
  loadSession: boolean;
  image: boolean;
  mcp: { http: boolean; sse: boolean };
  /** `sessionCapabilities`: `session/close`, `session/resume`, `session/list`, `session/fork`. */
  close: boolean;
  resume: boolean;
  list: boolean;
  fork: boolean;
}

/** An ACP agent process and its session. */
export class AcpSession implements Session {
  private readonly life: SessionLifecycle;
  private readonly options: ResolvedOptions;
  private readonly transport: SubprocessTransport;
  private readonly agent: string;
  private readonly mapper: AcpUpdateMapper;
  private readonly workspace: Workspace;
  private readonly terminals: Terminals;
  /** `canUseTool` for the agent's terminal/create and fs/write_text_file requests. */
  private readonly gate: ClientGate;
  private readonly timeoutMs: number;
  private connection: ClientConnection | undefined;
  private controller: ReadableStreamDefaultController<AnyMessage> | undefined;
  private sessionId: string | undefined;
  private initResult: RawObject | undefined;
  private sessionResult: RawObject | undefined;
  private caps: AgentCaps = {
    loadSession: false,
    image: false,
    mcp: { http: false, sse: false },
    close: false,
    resume: false,
    list: false,
    fork: false,
  };
  /** The model / mode controls the agent offers for this session. */
  private readonly config: AcpSessionConfig;
  private running: RunningTurn | undefined;
  private queue: Promise<void> = Promise.resolve();
  private pendingTurns = 0;
  private inputEnded = false;
  /** Set when the agent's output ended: no more results will come. */
  private ended = false;
  private endError: unknown;
  private flushTimer: NodeJS.Timeout | undefined;
  /** Bytes of output read when the text now waiting to be joined started (see {@link MAX_JOINED_TEXT_BYTES}). */
  private textFrom: number | undefined;
  /** The JSON-RPC id of our `session/new` request, to learn the session id the moment it is read. */
  private newSessionRequestId: unknown;
  /**
   * `session/update`s read before the session id is known (Copilot sends one before its
   * `session/new` answer): checked against the id once it is, in order.
   */
  private unchecked: RawObject[] = [];
  /** Messages read before the session exists wait here, so `init` is always the first message. */
  private beforeInit: Message[] | undefined = [];

  constructor(params: AcpSessionParams) {
    this.options = params.options;
    this.transport = params.transport;
    this.agent = params.agent;
    this.timeoutMs = params.options.controlTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.config = new AcpSessionConfig(params.agent);
    this.workspace = new Workspace(
      params.options.cwd ?? process.cwd(),
      params.options.maxBufferSize ?? DEFAULT_MAX_BUFFER_SIZE,
    );
    this.gate = new ClientGate({
      canUseTool: params.options.canUseTool,
      timeoutMs: params.options.callbackTimeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS,
      turnSignal: () => this.running?.cancel.signal,
      report: (data, raw) => this.emit(this.mapper.system("acp_permission_error", data, raw)),
    });
    this.terminals = new Terminals(this.workspace, params.env, {
      ...(params.options.acp?.maxTerminals !== undefined
        ? { maxTerminals: params.options.acp.maxTerminals }
        : {}),
      authorize: (request, raw) => this.gate.terminal(request, raw),
    });
    this.mapper = new AcpUpdateMapper({
      sessionId: () => this.sessionId,
      model: params.agent,
      includePartialMessages: params.options.includePartialMessages ?? false,
      resumed: params.options.resume !== undefined,
      cumulativeUsage: () => reportsCumulativeUsage(str(asObject(this.initResult?.agentInfo).name)),
    });
    this.life = new SessionLifecycle(
      params.options.signal,
      (error) => this.shutdown(error),
      flowLimits(params.options),
    );
    // ACP has no turn, token or time limit: the SDK enforces them.
    this.life.enforceLimits(params.options, () => this.interrupt());
  }

  /**
   * Spawns the agent and runs `initialize` (and `authenticate` when `acp.authMethod` names one):
   * the connection, its agent's capabilities known, and no session yet. {@link start} begins with
   * it; {@link listSessions} needs nothing more.
   *
   * @throws CliConnectionError when the agent speaks another ACP protocol version.
   */
  async handshake(): Promise<void> {
    this.options.signal?.throwIfAborted();
    await this.transport.connect();
    this.connection = this.app().connect(this.stream());
    const acp = this.options.acp ?? {};
    const fs = acp.clientFs !== false;
    const init = await this.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: fs, writeTextFile: fs }, terminal: acp.terminal !== false },
      clientInfo: { name: ACP_CLIENT_NAME, title: "code-agent-sdk", version: SDK_VERSION },
    });
    if (init.protocolVersion !== PROTOCOL_VERSION) {
      // The agent chose a version this client does not speak (the protocol's answer: disconnect).
      throw new CliConnectionError(
        `${this.agent} answered initialize with ACP protocol version ${describeValue(init.protocolVersion)}; code-agent-sdk speaks version ${PROTOCOL_VERSION} only`,
      );
    }
    this.initResult = init;
    const agentCaps = asObject(init.agentCapabilities);
    const mcp = asObject(agentCaps.mcpCapabilities);
    const sessionCaps = asObject(agentCaps.sessionCapabilities);
    this.caps = {
      loadSession: agentCaps.loadSession === true,
      image: asObject(agentCaps.promptCapabilities).image === true,
      mcp: { http: mcp.http === true, sse: mcp.sse === true },
      close: isObject(sessionCaps.close),
      resume: isObject(sessionCaps.resume),
      list: isObject(sessionCaps.list),
      fork: isObject(sessionCaps.fork),
    };
    if (acp.authMethod !== undefined) await this.request("authenticate", { methodId: acp.authMethod });
  }

  /**
   * {@link handshake}, then creates the session: `session/new`, or with `options.resume`
   * `session/load` (else `session/resume`), or with `resume` and `forkSession` `session/fork`, whose
   * new session id the `init` message and every result carry. Emits the `init` message.
   *
   * @throws UnsupportedFeatureError when resuming with an agent that has neither `session/load` nor
   *   `session/resume`, or forking with one that does not declare `sessionCapabilities.fork`.
   */
  async start(): Promise<void> {
    await this.handshake();
    const acp = this.options.acp ?? {};
    const init = asObject(this.initResult);
    const agentCaps = asObject(init.agentCapabilities);
    const mcpServers = acpMcpServers(
      this.options.mcpServers as Record<string, McpServerConfig> | undefined,
      this.caps.mcp,
      this.agent,
    );
    const cwd = this.workspace.root;
    const resume = this.options.resume;
    const fork = resume !== undefined && this.options.forkSession === true;
    if (fork) {
      if (!this.caps.fork) {
        throw new UnsupportedFeatureError(
          "forkSession (the agent does not declare sessionCapabilities.fork)",
          `acp (${this.agent})`,
        );
      }
      this.sessionResult = await this.request("session/fork", { sessionId: resume, cwd, mcpServers });
      const forked = this.sessionResult.sessionId;
      if (typeof forked !== "string" || forked === "") {
        throw new MessageParseError(
          `${this.agent} answered session/fork without a session id (got ${describeValue(forked)})`,
          this.sessionResult,
        );
      }
      this.knowSession(forked);
    } else if (resume !== undefined) {
      if (!this.caps.loadSession && !this.caps.resume) {
        throw new UnsupportedFeatureError(
          "resume (the agent declares neither loadSession nor sessionCapabilities.resume)",
          `acp (${this.agent})`,
        );
      }
      this.knowSession(resume);
      // session/load replays the history (delivered as `isReplay`), which callers rely on; an agent
      // with only session/resume continues the session without replaying it.
      const method = this.caps.loadSession ? "session/load" : "session/resume";
      this.sessionResult = await this.request(method, { sessionId: resume, cwd, mcpServers });
    } else {
      this.sessionResult = await this.request("session/new", { cwd, mcpServers });
      this.knowSession(str(this.sessionResult.sessionId));
    }
    this.config.read(this.sessionResult);
    if (acp.mode !== undefined) await this.configure(this.startMode(acp.mode));
    const raw = { ...this.sessionResult, agentCapabilities: agentCaps, agentInfo: init.agentInfo };
    const early = [...(this.beforeInit ?? []), ...this.mapper.flushAll()];
    this.beforeInit = undefined;
    this.life.push(
      this.mapper.system(
        "init",
        {
          ...raw,
          agent: this.agent,
          cwd,
          resumed: resume !== undefined,
          ...(fork ? { forkedFrom: resume } : {}),
          protocolVersion: init.protocolVersion,
          controls: this.controls(),
        },
        raw,
      ),
    );
    // A session/load replays the history before its answer: those messages come first and say so.
    for (const message of early)
      this.life.push(
        resume !== undefined && (message.type === "assistant" || message.type === "user")
          ? { ...message, isReplay: true }
          : message,
      );
  }

  /**
   * The sessions the agent knows (`session/list`, page by page; see {@link pageSessions}), after
   * {@link handshake}. Each page is a request bounded by `controlTimeoutMs`.
   *
   * @throws UnsupportedFeatureError when the agent does not declare `sessionCapabilities.list`.
   */
  async listSessions(query: AcpListQuery): Promise<AcpSessionInfo[]> {
    if (!this.caps.list) {
      throw new UnsupportedFeatureError(
        "listSessions (the agent does not declare sessionCapabilities.list)",
        `acp (${this.agent})`,
      );
    }
    return pageSessions((params) => this.request("session/list", params), query, this.agent);
  }

  serverInfo(): Record<string, unknown> | undefined {
    if (!this.initResult) return undefined;
    return {
      backend: "acp",
      agent: this.agent,
      ...this.initResult,
      session: this.sessionResult,
      sessionId: this.sessionId,
      controls: this.controls(),
    };
  }

  /** What this agent lets the session do at run time (from its `initialize` and session answers). */
  controls(): AcpControlsReport {
    return {
      ...this.config.report(),
      close: this.caps.close,
      resume: this.caps.loadSession ? "load" : this.caps.resume ? "resume" : false,
      list: this.caps.list,
      fork: this.caps.fork,
    };
  }

  async send(prompt: Prompt, _sessionId?: string): Promise<void> {
    if (!isStreamedPrompt(prompt)) return this.sendTurn(prompt);
    for await (const item of prompt) {
      if (this.life.isClosing || this.ended) return;
      checkStreamedInput(item);
      await this.sendTurn(item);
    }
  }

  /** Queues one turn; resolves once its `session/prompt` has been sent. */
  private async sendTurn(input: StreamedUserInput): Promise<void> {
    if (this.life.isClosing || this.ended) throw this.gone();
    if (this.inputEnded) {
      throw new CliConnectionError(`Cannot send to the ${this.agent} session: its input was ended`);
    }
    const blocks = acpPromptBlocks(input, this.caps, this.agent);
    this.life.turnSent();
    this.pendingTurns += 1;
    const previous = this.queue;
    let sent!: () => void;
    let failed!: (error: unknown) => void;
    const accepted = new Promise<void>((resolve, reject) => {
      sent = resolve;
      failed = reject;
    });
    const done = previous.then(() => this.runTurn(blocks, sent, failed));
    this.queue = done;
    return accepted;
  }

  private async runTurn(
    blocks: unknown[],
    sent: () => void,
    failed: (error: unknown) => void,
  ): Promise<void> {
    const connection = this.connection;
    if (this.life.isClosing || this.ended || !connection || this.sessionId === undefined) {
      this.pendingTurns -= 1;
      this.life.turnWithdrawn();
      failed(this.gone());
      return;
    }
    const cancel = new AbortController();
    let finish!: () => void;
    const turn: RunningTurn = { cancel, done: new Promise((resolve) => (finish = resolve)) };
    this.running = turn;
    this.mapper.beginTurn();
    const response = connection.agent.request<RawObject>("session/prompt", {
      sessionId: this.sessionId,
      prompt: blocks,
    });
    sent();
    try {
      const result = await response;
      this.deliverAll(this.mapper.flushAll());
      this.deliverResult(this.mapper.result(asObject(result)));
    } catch (error) {
      if (!this.ended && !this.life.isClosing) {
        this.deliverAll(this.mapper.flushAll());
        this.deliverResult(this.mapper.errorResult(errorText(error), errorRaw(error)));
      }
    } finally {
      this.running = undefined;
      this.pendingTurns -= 1;
      finish();
      if (this.inputEnded && this.pendingTurns === 0) this.life.finish();
    }
  }

  idle(): Promise<void> {
    return this.life.idle();
  }

  /** `Session.runningTurnSettled`: what `AgentSdkClient` waits on after `interrupt()` before it sends. */
  runningTurnSettled(): Promise<void> | undefined {
    return this.life.runningTurnSettled();
  }

  /** No more turns: once the running and queued turns have their results, the agent is stopped. */
  async endInput(): Promise<void> {
    this.inputEnded = true;
    if (this.pendingTurns === 0) this.life.finish();
  }

  subscribe(opts: { untilResult?: boolean } = {}): AsyncGenerator<Message, void, undefined> {
    return this.life.subscribe(opts);
  }

  retainTurns(): void {
    this.life.retainTurns();
  }

  /**
   * `session/cancel` for the running turn; resolves once its result (`stopReason: "cancelled"`,
   * `terminalReason: "interrupted"`) is delivered. Pending permission requests are answered
   * `cancelled`, as the protocol asks. Does nothing when no turn runs.
   */
  async interrupt(): Promise<void> {
    const turn = this.running;
    if (!turn || !this.connection || this.sessionId === undefined) return;
    turn.cancel.abort(new AbortError("The turn was interrupted"));
    // The turn's end is behind whatever output waits for the reader: reading goes on meanwhile.
    const release = this.life.flow.hold();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ControlTimeoutError("session/cancel", this.timeoutMs)),
        this.timeoutMs,
      );
    });
    try {
      await this.connection.agent.notify("session/cancel", { sessionId: this.sessionId });
      // A notification has no answer: the turn's result is the sign it was heard, within the bound.
      await Promise.race([turn.done, timeout]);
    } finally {
      clearTimeout(timer);
      release();
    }
  }

  /**
   * Switches the agent's mode: its `mode` session config option, else `session/set_mode`. `mode` is
   * one of ours (matched to the agent's mode ids and names) or one of the agent's own mode ids.
   * @throws UnsupportedFeatureError when the agent offers no modes; InvalidOptionsError (listing
   *   the agent's modes) when none matches; ControlRequestError when the agent refuses.
   */
  async setPermissionMode(mode: PermissionMode): Promise<void> {
    await this.configure(this.config.modeRequest(String(mode)));
  }

  /**
   * Selects the model for the following turns: the agent's `model` session config option, else
   * `session/set_model`; `undefined` goes back to the model the session started with.
   * @throws UnsupportedFeatureError when the agent offers no model choice; InvalidOptionsError
   *   (listing its models) for a model it does not offer; ControlRequestError when it refuses.
   */
  async setModel(model?: string): Promise<void> {
    await this.configure(this.config.modelRequest(model));
  }

  /**
   * `acp.mode`'s request: as `setPermissionMode`'s (the agent's `mode` config option where it has
   * one: Kilo and OpenCode have no `modes`), else `session/set_mode` with the id as given, for an
   * agent that takes it without advertising modes.
   */
  private startMode(mode: string): AcpConfigRequest {
    try {
      return this.config.modeRequest(mode);
    } catch (error) {
      if (!(error instanceof UnsupportedFeatureError)) throw error;
      return { method: "session/set_mode", params: { modeId: mode } };
    }
  }

  private async configure(request: AcpConfigRequest): Promise<void> {
    if (this.life.isClosing || this.ended || this.sessionId === undefined) throw this.gone();
    const result = await this.request(request.method, { sessionId: this.sessionId, ...request.params });
    this.config.applied(request, result);
  }
  async setMaxThinkingTokens(): Promise<void> {
    throw new UnsupportedFeatureError("setMaxThinkingTokens", "acp");
  }
  async rewindFiles(): Promise<RewindFilesResult> {
    throw new UnsupportedFeatureError("rewindFiles", "acp");
  }
  async mcpServerStatus(): Promise<McpServerStatusEntry[]> {
    throw new UnsupportedFeatureError("mcpServerStatus", "acp");
  }
  async controlRequest(): Promise<Record<string, unknown>> {
    throw new UnsupportedFeatureError("controlRequest", "acp");
  }

  pid(): number | undefined {
    return this.transport.pid;
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

  close(reason?: unknown): Promise<void> {
    return this.life.close(reason);
  }

  private async shutdown(error: unknown): Promise<void> {
    // A plain close() of a live session tells an agent that frees sessions (`session/close`) first.
    if (error === undefined && !this.ended) await this.closeRemote();
    this.ended = true;
    clearTimeout(this.flushTimer);
    this.endError ??= error;
    try {
      await this.terminals.closeAll();
      this.connection?.close(error ?? new AbortError("The session was closed"));
      const pid = this.transport.pid;
      await this.transport.close();
      if (pid !== undefined) await groupGone(pid, this.options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS);
    } finally {
      this.life.end(error);
    }
  }

  /**
   * `session/close`, where the agent declares it, bounded by {@link SESSION_CLOSE_TIMEOUT_MS}. Its
   * failure is not the caller's: the agent's process group is ended right after either way.
   */
  private async closeRemote(): Promise<void> {
    const connection = this.connection;
    if (!this.caps.close || !connection || this.sessionId === undefined) return;
    const bound = Math.min(this.timeoutMs, SESSION_CLOSE_TIMEOUT_MS);
    const release = this.life.flow.hold();
    try {
      await connection.agent.request(
        "session/close",
        { sessionId: this.sessionId },
        {
          cancellationSignal: AbortSignal.timeout(bound),
          stopWaitingOnCancel: true,
        },
      );
    } catch {
      // Refused, timed out or the agent went away: the process group is ended next in any case.
    } finally {
      release();
    }
  }

  private gone(): unknown {
    return this.endError ?? new AbortError(`The ${this.agent} session has ended`);
  }

  /** The agent exited (cleanly) while `method` waited for its answer. */
  private async exitedDuring(method: string): Promise<ProcessError> {
    const info = (await this.transport.exited) ?? { code: null, signal: null };
    return new ProcessError(`${this.agent} exited before answering "${method}" (${describeExit(info)})`, {
      exitCode: info.code,
      signal: info.signal,
      stderrTail: this.transport.stderrTail(),
    });
  }

  /** A handshake request, bounded by `controlTimeoutMs`; failures become typed errors. */
  private async request(method: string, params: unknown): Promise<RawObject> {
    const connection = this.connection;
    if (!connection) throw this.gone();
    const timeout = AbortSignal.timeout(this.timeoutMs);
    // The answer may be behind output that waits for the reader: reading goes on until it arrives.
    const release = this.life.flow.hold();
    try {
      const result = await connection.agent.request<unknown>(method, params, {
        cancellationSignal: timeout,
        stopWaitingOnCancel: true,
      });
      return asObject(result);
    } catch (error) {
      if (timeout.aborted) throw new ControlTimeoutError(method, this.timeoutMs);
      if (this.ended) throw this.endError ?? (await this.exitedDuring(method));
      if (error instanceof RequestError) {
        throw new ControlRequestError(method, errorText(error), String(error.code));
      }
      throw error;
    } finally {
      release();
    }
  }

  /** The SDK stream over the transport: what the agent writes is read here, mapped, then passed on. */
  private stream(): Stream {
    const readable = new ReadableStream<AnyMessage>({
      start: (controller) => {
        this.controller = controller;
      },
    });
    const writable = new WritableStream<AnyMessage>({
      write: (message) => {
        if ("method" in message && (message.method === "session/new" || message.method === "session/fork")) {
          this.newSessionRequestId = (message as { id?: unknown }).id;
        }
        return this.transport.write(JSON.stringify(message));
      },
    });
    readTransport(this.transport, (item) => this.onItem(item), this.life.flow).then(
      () => this.onEnd(undefined),
      (error: unknown) => this.onEnd(error),
    );
    return { readable, writable };
  }

  private onItem(item: RawObject | JsonDecodeError): void {
    if (this.beforeInit !== undefined && this.life.flow.bytesRead > this.life.flow.maxReaderLagBytes) {
      // Nothing can read the session before it exists, and reading goes on during the handshake:
      // what the agent writes meanwhile is bounded here instead of by backpressure.
      this.tooMuchBeforeInit();
      return;
    }
    if (item instanceof JsonDecodeError) {
      this.deliverAll(this.mapper.flushText());
      this.emit(malformedLineMessage(item));
      return;
    }
    const method = item.method;
    if (typeof method === "string" && !("id" in item)) {
      if (method === "session/update") {
        if (this.sessionId === undefined) this.unchecked.push(item);
        else this.onUpdate(item);
        // Handled here alone: the connection has no handler for it (passing it on only costs).
        return;
      } else if (!method.startsWith("$/")) {
        // Extension notifications (qwen's `qwen/notify/session/*`, …): reported, not acted on.
        this.emit(this.mapper.system("acp_notification", { method, params: item.params }, item));
      }
    } else if (
      method === undefined &&
      this.newSessionRequestId !== undefined &&
      item.id === this.newSessionRequestId
    ) {
      // The `session/new` answer: updates that follow it in the same read belong to this id.
      this.newSessionRequestId = undefined;
      this.knowSession(str(asObject(item.result).sessionId));
    }
    this.controller?.enqueue(item as AnyMessage);
  }

  /** Stops a session whose agent wrote more than `maxReaderLagBytes` before the session was ready. */
  private tooMuchBeforeInit(): void {
    if (this.life.isClosing) return;
    const limit = this.life.flow.maxReaderLagBytes;
    this.beforeInit = [];
    this.unchecked = [];
    void this.life.close(
      new CliConnectionError(
        `${this.agent} wrote more than maxReaderLagBytes (${limit} bytes) before its session was ready ` +
          "(during initialize, session/new or a session/load replay), which nothing can read before then; " +
          "the session was stopped. Raise maxReaderLagBytes for a longer replay.",
      ),
    );
  }

  /** The session id is known: the updates read before it are checked against it, in order. */
  private knowSession(sessionId: string | undefined): void {
    if (sessionId === undefined) return;
    this.sessionId = sessionId;
    const unchecked = this.unchecked;
    this.unchecked = [];
    for (const update of unchecked) this.onUpdate(update);
  }

  /**
   * One `session/update`: mapped when it is for this session; one for another session id (or none)
   * is dropped and reported (`acp_foreign_update`), never delivered as this session's.
   */
  private onUpdate(item: RawObject): void {
    const params = asObject(item.params);
    if (params.sessionId !== this.sessionId) {
      this.deliverAll(this.mapper.flushText());
      const update = asObject(params.update);
      this.emit(
        this.mapper.system(
          "acp_foreign_update",
          {
            update_session_id: typeof params.sessionId === "string" ? params.sessionId : null,
            session_update: typeof update.sessionUpdate === "string" ? update.sessionUpdate : null,
            answer: "dropped",
          },
          item,
        ),
      );
      return;
    }
    this.config.update(asObject(params.update));
    this.deliverAll(this.mapper.map(item));
    if (!this.mapper.hasPendingText()) {
      this.textFrom = undefined;
      return;
    }
    const read = this.life.flow.bytesRead;
    this.textFrom ??= read;
    const limit = Math.min(MAX_JOINED_TEXT_BYTES, this.life.flow.highWaterMark / 4);
    if (read - this.textFrom >= limit) {
      this.textFrom = undefined;
      this.deliverAll(this.mapper.flushText());
    } else this.flushSoon();
  }

  /** Delivers buffered text after {@link TEXT_FLUSH_MS}, unless something else flushes it first. */
  private flushSoon(): void {
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      this.textFrom = undefined;
      this.deliverAll(this.mapper.flushText());
    }, TEXT_FLUSH_MS);
  }

  private onEnd(error: unknown): void {
    this.ended = true;
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    // What the agent said before it went away is delivered before the end.
    if (!this.life.isClosing) this.deliverAll(this.mapper.flushAll());
    try {
      if (error === undefined) this.controller?.close();
      else this.controller?.error(error);
    } catch {
      // Already closed by the connection.
    }
    if (this.life.isClosing) return;
    // A failure (exit status, signal, overlong line) ends the session with that error; a clean exit
    // in the middle of a turn is one too, as on every backend: the turn never got its result.
    const failure =
      error ?? (this.pendingTurns > 0 ? missingResultError(this.agent, this.transport) : undefined);
    this.endError ??= failure;
    this.life.finish(failure);
  }

  /** The client side: every request the agent can make of us. */
  private app() {
    const acp = this.options.acp ?? {};
    const app = acpClient({ name: ACP_CLIENT_NAME }).onRequest("session/request_permission", async (ctx) =>
      this.onPermission(ctx.params as unknown as RawObject, ctx.signal),
    );
    if (acp.clientFs !== false) {
      app
        .onRequest("fs/read_text_file", async (ctx) => ({
          content: await this.workspace.readTextFile(ctx.params),
        }))
        .onRequest("fs/write_text_file", async (ctx) => {
          await this.workspace.writeTextFile(ctx.params, (request) =>
            this.gate.write(request, ctx.params as unknown as RawObject, ctx.signal),
          );
          return {};
        });
    }
    if (acp.terminal !== false) {
      app
        .onRequest("terminal/create", async (ctx) => ({
          terminalId: await this.terminals.create(ctx.params as CreateTerminalParams),
        }))
        .onRequest("terminal/output", async (ctx) => this.terminals.output(ctx.params.terminalId))
        .onRequest("terminal/wait_for_exit", async (ctx) => this.terminals.waitForExit(ctx.params.terminalId))
        .onRequest("terminal/kill", async (ctx) => {
          await this.terminals.kill(ctx.params.terminalId);
          return {};
        })
        .onRequest("terminal/release", async (ctx) => {
          await this.terminals.release(ctx.params.terminalId);
          return {};
        });
    }
    return app.onRequest("*", async (ctx) => {
      // Requests this client does not serve (qwen's `craft/drainMidTurnQueue`, fs or terminal when
      // declined): "method not found", reported in-band, and the session goes on.
      this.emit(
        this.mapper.system(
          "acp_unhandled_request",
          { method: ctx.method, answer: "method not found" },
          {
            method: ctx.method,
            params: ctx.params as RawObject,
          },
        ),
      );
      throw RequestError.methodNotFound(ctx.method);
    });
  }

  private async onPermission(
    params: RawObject,
    signal: AbortSignal,
  ): Promise<{ outcome: PermissionOutcome }> {
    const toolCall = asObject(params.toolCall);
    const options = (Array.isArray(params.options) ? params.options : []).filter(
      isObject,
    ) as unknown as PermissionOption[];
    if (params.sessionId !== this.sessionId) {
      // Not this session's tool call: nobody here may allow it, and it is not shown as ours.
      const { outcome } = outcomeFor({ behavior: "deny", message: "" }, options);
      const error = `the request is for session ${describeValue(params.sessionId)}, not this session (${describeValue(this.sessionId)})`;
      const answer = outcome.outcome === "selected" ? outcome.optionId : "cancelled";
      this.emit(
        this.mapper.system(
          "acp_permission_error",
          { tool_name: null, tool_use_id: toolCall.toolCallId, error, answer },
          params,
        ),
      );
      return { outcome };
    }
    const announced: Message[] = [];
    const call = this.mapper.toolForPermission(toolCall, announced);
    this.deliverAll(announced);
    const turnCancel = this.running?.cancel.signal;
    const abort = turnCancel ? AbortSignal.any([signal, turnCancel]) : signal;
    const { decision, problem: callbackProblem } = await askCanUseTool(
      this.options.canUseTool,
      {
        ...call,
        toolUseId: str(toolCall.toolCallId),
        ...(typeof toolCall.title === "string" ? { title: toolCall.title } : {}),
      },
      params,
      abort,
      this.options.callbackTimeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS,
    );
    // Cancelled by the agent, or the turn is being cancelled: the protocol's answer is `cancelled`.
    if (abort.aborted) return { outcome: { outcome: "cancelled" } };
    const { outcome, problem } = outcomeFor(decision, options);
    // What was allowed here is not asked again when it reaches the client (terminal/create, a write).
    if (decision.behavior === "allow" && outcome.outcome === "selected") {
      const diffWrite = this.mapper.diffWrite(toolCall.toolCallId);
      this.gate.granted([call.input, asObject(toolCall.rawInput), ...(diffWrite ? [diffWrite] : [])]);
    }
    // ACP's answer carries no message: why a decision could not be made is reported in-band.
    for (const error of [callbackProblem, problem]) {
      if (error === undefined) continue;
      const answer = outcome.outcome === "selected" ? outcome.optionId : "cancelled";
      this.emit(
        this.mapper.system(
          "acp_permission_error",
          { tool_name: call.name, tool_use_id: toolCall.toolCallId, error, answer },
          params,
        ),
      );
    }
    if (decision.behavior === "deny" && decision.interrupt) {
      // The answer goes out first; the cancel follows it.
      setImmediate(() => void this.interrupt().catch(() => undefined));
    }
    return { outcome };
  }

  private emit(message: Message): void {
    if (this.beforeInit) this.beforeInit.push(message);
    else this.life.push(message);
  }

  private deliverAll(messages: Message[]): void {
    for (const message of messages) this.emit(message);
  }

  private deliverResult(result: Message): void {
    this.emit(result);
    this.life.resultSeen();
  }
}

/**
 * Resolves once no process of group `pgid` is left: the agent's own children (claude-code-acp's
 * Claude Code, a relaunched CLI) got the group's SIGTERM with it and may still be finishing their
 * writes, which the next `session/load` of the same session needs complete. No event exists for
 * processes that are not our children, so this polls, for at most `graceMs`, then SIGKILLs the group.
 */
async function groupGone(pgid: number, graceMs: number): Promise<void> {
  const deadline = Date.now() + graceMs;
  while (groupExists(pgid)) {
    if (Date.now() >= deadline) {
      signalGroup(pgid, "SIGKILL");
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, GROUP_POLL_MS));
  }
}

/** Whether any process of group `pgid` is left (signal 0 checks without signalling). */
function groupExists(pgid: number): boolean {
  if (process.platform === "win32") return false;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    // EPERM: a member runs as another user now (it dropped privileges); it is there all the same.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** How often {@link groupGone} looks. */
const GROUP_POLL_MS = 20;

function errorText(error: unknown): string {
  if (error instanceof RequestError) {
    const data = error.data;
    const details = isObject(data) && typeof data.details === "string" ? `: ${data.details}` : "";
    return `${error.message}${details}`;
  }
  return error instanceof Error ? error.message : String(error);
}

function errorRaw(error: unknown): RawObject {
  if (error instanceof RequestError) return { code: error.code, message: error.message, data: error.data };
  return { message: errorText(error) };
}
