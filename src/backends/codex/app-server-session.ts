/**
 * A Codex session over `codex app-server`: one long-lived process, one thread, one `turn/start`
 * per user turn, approvals answered through `canUseTool`.
 *
 * Turns run one at a time: a prompt sent while a turn runs waits for that turn's result (a
 * `turn/start` during a running turn would be merged into it, and its result would never come).
 */
import {
  AbortError,
  CliConnectionError,
  ControlRequestError,
  type JsonDecodeError,
  MessageParseError,
  ProcessError,
} from "../../errors.js";
import type { Message, RawObject } from "../../messages.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import { checkStreamedInput, isStreamedPrompt, type Prompt, type StreamedUserInput } from "../../prompt.js";
import { missingResultError } from "../../session/missing-result.js";
import { malformedLineMessage, SessionLifecycle } from "../../session/session-lifecycle.js";
import { flowLimits } from "../../transport/read-flow.js";
import type { Transport } from "../../transport/transport.js";
import { SDK_VERSION } from "../../version.js";
import { asObject } from "../../wire/read.js";
import type { CodexMcpServerStatus, ServerInfo, Session } from "../backend.js";
import { AppServerEventMapper } from "./app-server-events.js";
import { type ApprovalPrompt, approvalPrompt, decideApproval } from "./approvals.js";
import { threadParams } from "./command.js";
import { JsonRpcConnection, JsonRpcError } from "./json-rpc.js";
import { MCP_STARTUP_STATUS, McpStartupGate, startingServers } from "./mcp-startup.js";
import { promptParts, turnInput } from "./prompt-input.js";
import {
  type InitializeParams,
  type JsonRpcId,
  METHOD_NOT_FOUND,
  type ThreadStartResult,
  type TurnStartParams,
  type TurnStartResult,
} from "./protocol.js";

/** Default timeout of one JSON-RPC request (`controlTimeoutMs`). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** Client name sent in `initialize`. */
export const CLIENT_NAME = "code-agent-sdk";

/** What an app-server session is made of. The transport is not yet connected. */
export interface CodexAppServerSessionParams {
  options: ResolvedOptions;
  transport: Transport;
  /** Clock, for tests. */
  now?: () => number;
}

interface RunningTurn {
  id: string | undefined;
  /** Lets the next queued turn start. */
  release(): void;
  /** Resolves with the turn id once the server has named it (or undefined if it never started). */
  idKnown: Promise<string | undefined>;
  /** The pending `turn/interrupt`, so a second interrupt() does not ask again. */
  interrupting?: Promise<void>;
  setId(id: string | undefined): void;
}

/** One `codex app-server` process driving one thread. */
export class CodexAppServerSession implements Session {
  private readonly life: SessionLifecycle;
  private readonly options: ResolvedOptions;
  private readonly transport: Transport;
  private readonly rpc: JsonRpcConnection;
  private readonly mapper: AppServerEventMapper;
  private threadId: string | undefined;
  private threadModel = "";
  /** Set by `setModel`: sent with every later `turn/start`. */
  private modelOverride: string | undefined;
  private initResult: RawObject | undefined;
  private threadResult: RawObject | undefined;
  private running: RunningTurn | undefined;
  /** Completes when the last queued turn has its result. */
  private queue: Promise<void> = Promise.resolve();
  /** Releases of every queued or running turn, so nothing waits forever once the session ends. */
  private readonly releases = new Set<() => void>();
  private lastResultWasError = false;
  private ended = false;
  private endError: unknown;
  /** The thread's MCP servers still starting: a turn waits for them (see mcp-startup.ts). */
  private mcpGate = new McpStartupGate([]);
  /** Ends that wait when the session ends. */
  private readonly mcpWait = new AbortController();
  /** Messages that arrive before the thread exists wait here, so `init` is always the first message. */
  private beforeInit: Message[] | undefined = [];

  constructor(params: CodexAppServerSessionParams) {
    this.options = params.options;
    this.transport = params.transport;
    this.life = new SessionLifecycle(
      params.options.signal,
      (error) => this.shutdown(error),
      flowLimits(params.options),
    );
    // Codex has no turn or token limit of its own: the SDK enforces them (its input counts cached tokens).
    this.life.enforceLimits(params.options, () => this.interrupt(), {}, true);
    this.rpc = new JsonRpcConnection(
      this.transport,
      {
        onNotification: (method, p, raw) => this.onNotification(method, p, raw),
        onRequest: (method, p, id, signal) => this.onServerRequest(method, p, id, signal),
        onMalformedLine: (error) => this.onMalformedLine(error),
        onEnd: (error) => this.onEnd(error),
      },
      params.options.controlTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      this.life.flow,
    );
    this.mapper = new AppServerEventMapper({
      threadId: () => this.threadId,
      model: () => this.modelOverride ?? this.threadModel,
      includePartialMessages: params.options.includePartialMessages ?? false,
      structuredOutput: params.options.outputFormat !== undefined,
      ...(params.now ? { now: params.now } : {}),
    });
  }

  /** Spawns the server, initializes, and starts (or resumes) the thread. Emits the `init` message. */
  async start(): Promise<void> {
    this.options.signal?.throwIfAborted();
    await this.transport.connect();
    this.rpc.start();
    const initialize: InitializeParams = {
      clientInfo: { name: CLIENT_NAME, title: "code-agent-sdk", version: SDK_VERSION },
      capabilities: { experimentalApi: false, requestAttestation: false },
    };
    this.initResult = await this.rpc.request<RawObject>("initialize", initialize);
    await this.rpc.notify("initialized");
    const params = threadParams(this.options);
    this.mcpGate = new McpStartupGate(startingServers(this.options.mcpServers, params.config));
    const resume = this.options.resume;
    const result = await this.rpc.request<ThreadStartResult>(
      resume === undefined ? "thread/start" : "thread/resume",
      resume === undefined ? params : { ...params, threadId: resume },
    );
    this.threadResult = result as unknown as RawObject;
    this.threadId = requireThreadId(resume === undefined ? "thread/start" : "thread/resume", result);
    this.threadModel = typeof result.model === "string" ? result.model : (this.options.model ?? "");
    const raw = result as unknown as RawObject;
    this.life.push(this.mapper.system("init", { ...raw, session_id: this.threadId }, raw));
    const early = this.beforeInit ?? [];
    this.beforeInit = undefined;
    for (const message of early) this.life.push(message);
  }

  private emit(message: Message): void {
    if (this.beforeInit) this.beforeInit.push(message);
    else this.life.push(message);
  }

  serverInfo(): ServerInfo | undefined {
    if (!this.initResult) return undefined;
    return { ...this.initResult, ...this.threadResult, threadId: this.threadId, mode: "app-server" };
  }

  async send(prompt: Prompt): Promise<void> {
    if (!isStreamedPrompt(prompt)) {
      await this.sendTurn(prompt);
      return;
    }
    for await (const item of prompt) {
      if (this.life.isClosing || this.ended) return;
      checkStreamedInput(item);
      await this.sendTurn(item);
    }
  }

  /** Queues one turn; resolves once the server has accepted its `turn/start`. */
  private async sendTurn(input: StreamedUserInput): Promise<void> {
    const parts = promptParts(input);
    this.life.turnSent();
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = () => {
        this.releases.delete(release);
        resolve();
      };
    });
    this.releases.add(release);
    const turn = newTurn(release);
    const previous = this.queue;
    this.queue = previous.then(() => done);
    try {
      await previous;
      // A turn sent while a server starts would reach the model without that server's tools.
      await this.mcpGate.settledWithin(
        this.options.controlTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
        this.mcpWait.signal,
      );
      if (this.ended || this.threadId === undefined) throw this.gone();
      this.running = turn;
      this.mapper.beginTurn();
      const params: TurnStartParams = { threadId: this.threadId, input: turnInput(parts) };
      if (this.modelOverride !== undefined) params.model = this.modelOverride;
      if (this.options.outputFormat) params.outputSchema = this.options.outputFormat.schema;
      const response = await this.rpc.request<TurnStartResult>("turn/start", params);
      turn.setId(turn.id ?? response.turn?.id);
    } catch (error) {
      // The turn never started: no result will come for it.
      turn.setId(undefined);
      if (this.running === turn) this.running = undefined;
      release();
      this.life.turnWithdrawn();
      throw error;
    }
  }

  idle(): Promise<void> {
    return this.life.idle();
  }

  runningTurnSettled(): Promise<void> | undefined {
    return this.life.runningTurnSettled();
  }

  /** Closes stdin: the app-server exits, which ends the message stream. */
  async endInput(): Promise<void> {
    await this.rpc.endInput(() => this.transport.endInput());
  }

  subscribe(opts: { untilResult?: boolean } = {}): AsyncGenerator<Message, void, undefined> {
    return this.life.subscribe(opts);
  }

  retainTurns(): void {
    this.life.retainTurns();
  }

  /** Interrupts the running turn (`turn/interrupt`); its result has `terminalReason: "interrupted"`. */
  async interrupt(): Promise<void> {
    const turn = this.running;
    if (!turn || this.threadId === undefined) return;
    turn.interrupting ??= this.requestInterrupt(turn, this.threadId);
    await turn.interrupting;
  }

  private async requestInterrupt(turn: RunningTurn, threadId: string): Promise<void> {
    const turnId = turn.id ?? (await turn.idKnown);
    if (turnId === undefined || this.running !== turn) return;
    try {
      await this.rpc.request("turn/interrupt", { threadId, turnId });
    } catch (error) {
      // The turn ended on its own while we asked; its result is on the way.
      if (error instanceof ControlRequestError && /no active turn/i.test(error.message)) return;
      throw error;
    }
  }

  /** Uses `model` (`undefined`: the thread's original model) from the next turn on. */
  async setModel(model?: string): Promise<void> {
    this.modelOverride = model ?? (this.threadModel || undefined);
  }

  /** The MCP servers of the thread (`mcpServerStatus/list`). */
  async mcpServerStatus(): Promise<CodexMcpServerStatus[]> {
    const result = await this.rpc.request<{ data?: unknown[] }>("mcpServerStatus/list", {
      threadId: this.threadId,
    });
    return Array.isArray(result?.data) ? (result.data as CodexMcpServerStatus[]) : [];
  }

  /** The pid of the CLI process, while it runs. */
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

  /** Ends the session and the process. With `reason`, readers get it as an error after draining. */
  close(reason?: unknown): Promise<void> {
    return this.life.close(reason);
  }

  private async shutdown(error: unknown): Promise<void> {
    this.mcpWait.abort();
    this.rpc.shutdown(error ?? new AbortError("The session was closed"));
    try {
      await this.transport.close();
    } finally {
      this.finish(error);
    }
  }

  private finish(error: unknown): void {
    this.ended = true;
    this.endError ??= error;
    this.life.endStream(error);
    // Queued turns and a pending interrupt() are released before idle() waiters wake.
    for (const release of [...this.releases]) release();
    this.running?.setId(undefined);
    this.life.wakeIdle();
  }

  private gone(): unknown {
    return this.endError ?? new AbortError("The codex session has ended");
  }

  private onNotification(method: string, params: RawObject, raw: RawObject): void {
    if (method === MCP_STARTUP_STATUS) this.mcpGate.update(params);
    if (
      method === "serverRequest/resolved" &&
      (typeof params.requestId === "number" || typeof params.requestId === "string")
    ) {
      // Answered elsewhere (e.g. the turn was interrupted): the pending callback's signal aborts.
      this.rpc.cancelIncoming(params.requestId, new AbortError("The server no longer needs this answer"));
    }
    if (
      method === "turn/started" &&
      this.running &&
      this.running.id === undefined &&
      this.isOurThread(params)
    ) {
      const turn = asObject(params.turn);
      if (typeof turn.id === "string") this.running.setId(turn.id);
    }
    for (const message of this.mapper.map(method, params, raw)) {
      if (message.type === "result") this.onTurnCompleted(message, params);
      else this.emit(message);
    }
  }

  private onTurnCompleted(result: Message, params: RawObject): void {
    const turn = asObject(params.turn);
    const running = this.running;
    this.emit(result);
    if (!running || (running.id !== undefined && running.id !== turn.id)) return;
    this.running = undefined;
    this.lastResultWasError = result.type === "result" && result.isError;
    running.setId(typeof turn.id === "string" ? turn.id : undefined);
    running.release();
    this.life.resultSeen();
  }

  private async onServerRequest(
    method: string,
    params: RawObject,
    id: JsonRpcId,
    signal: AbortSignal,
  ): Promise<unknown> {
    const prompt = approvalPrompt(method, params, this.mapper.turnItems);
    if (prompt) return this.decide(method, prompt, params, signal);
    if (method === "mcpServer/elicitation/request") {
      // A form or URL an MCP server wants a person to fill in: nobody here can.
      return { action: "decline", content: null, _meta: null };
    }
    this.emit(
      this.mapper.system(
        "codex_server_request",
        { method, id, params, answer: "method not found" },
        {
          id,
          method,
          params,
        },
      ),
    );
    throw new JsonRpcError(METHOD_NOT_FOUND, `code-agent-sdk does not handle the server request "${method}"`);
  }

  /** Asks `canUseTool` (see `decideApproval`); a decision it could not make is reported. */
  private async decide(
    method: string,
    prompt: ApprovalPrompt,
    params: RawObject,
    signal: AbortSignal,
  ): Promise<unknown> {
    const decision = await decideApproval(prompt, this.options, signal, params);
    if (decision.problem !== undefined) {
      const data = {
        method,
        tool_name: prompt.toolName,
        tool_use_id: prompt.toolUseId,
        error: decision.problem,
        decision: "decline",
      };
      this.emit(this.mapper.system("codex_approval_error", data, { method, params }));
    }
    return decision.answer;
  }

  private onMalformedLine(error: JsonDecodeError): void {
    this.emit(malformedLineMessage(error));
  }

  private onEnd(error: unknown): void {
    if (this.life.isClosing) return; // close() ends the stream itself, with the right reason.
    const alreadyReported =
      this.lastResultWasError && this.running === undefined && error instanceof ProcessError;
    // A clean exit while a turn waits for its result is a truncated answer, not an answer.
    const failure =
      error ??
      (this.running !== undefined || this.life.hasPendingTurn
        ? missingResultError("codex app-server", this.transport)
        : undefined);
    // Whatever ended the server is what a later query() reports, never an AbortError nobody caused.
    this.endError ??=
      failure ??
      new CliConnectionError(
        "The codex app-server exited between turns (exit code 0); the session has ended, start a new one",
      );
    this.finish(alreadyReported ? undefined : failure);
    void this.close();
  }

  private isOurThread(params: RawObject): boolean {
    return params.threadId === undefined || params.threadId === this.threadId;
  }
}

/**
 * The thread id of a `thread/start` (or `thread/resume`) answer. Without one no turn can be
 * started, so its absence is a protocol error at this point, naming the field.
 */
function requireThreadId(method: string, result: ThreadStartResult | undefined): string {
  const id = asObject(asObject(result).thread).id;
  if (typeof id === "string" && id !== "") return id;
  const got = JSON.stringify(result) ?? String(result);
  throw new MessageParseError(
    `codex app-server answered ${method} without a thread id (field "thread.id" is ${id === undefined ? "missing" : JSON.stringify(id)}): ${got.length > 200 ? `${got.slice(0, 200)}…` : got}`,
    result,
  );
}

function newTurn(release: () => void): RunningTurn {
  let resolveId!: (id: string | undefined) => void;
  const turn: RunningTurn = {
    id: undefined,
    release,
    idKnown: new Promise((resolve) => {
      resolveId = resolve;
    }),
    setId(id) {
      if (turn.id === undefined && id !== undefined) turn.id = id;
      resolveId(turn.id);
    },
  };
  return turn;
}
