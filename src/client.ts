/**
 * `AgentSdkClient`: a multi-turn conversation with any backend, with capability-gated controls.
 */
import type {
  Backend,
  Capabilities,
  McpServerStatusEntry,
  RewindFilesOptions,
  ServerInfo,
  Session,
} from "./backends/backend.js";
import type { InterruptResult } from "./backends/claude/control-results.js";
import type { RewindFilesResult } from "./backends/claude/control-types.js";
import { ClaudeControls } from "./backends/claude/controls.js";
import { backendFor, getBackend } from "./backends/registry.js";
import { AbortError, NotConnectedError, UnreadResponseError, UnsupportedFeatureError } from "./errors.js";
import type { Message } from "./messages.js";
import type { AgentOptions, BackendKind, ThinkingDisplay } from "./options.js";
import type { PermissionMode } from "./permissions.js";
import { isStreamedPrompt, type Prompt, type StreamedUserInput, type UserContentBlock } from "./prompt.js";
import { QUERY_CONTROL_METHODS, type QueryControls, type SessionSource } from "./query.js";
import { abortErrorFor, checkSignalOption, combineSignals, throwIfAborted } from "./signals/abort.js";
import { settleWithin } from "./signals/deadline.js";
import type { RunTelemetry } from "./telemetry/run.js";
import { prepareTelemetry, telemetryWanted } from "./telemetry/start.js";
import { collectTurn, type TurnResult } from "./turn.js";

/** The `process.emitWarning` code of the unread-answer warning (see {@link AgentSdkClient.query}). */
export const UNREAD_RESPONSE_WARNING = "CODE_AGENT_SDK_UNREAD_RESPONSE";

/**
 * How long `query()` / `run()` after `interrupt()` wait for the interrupted turn's `result` before
 * sending anyway, in milliseconds (the CLI usually ends the turn 50–200 ms after the interrupt).
 */
export const INTERRUPT_SETTLE_TIMEOUT_MS = 10_000;

/** Clients whose session comes from a process started ahead of time (see {@link clientOn}). */
const sources = new WeakMap<AgentSdkClient, SessionSource>();

/** An {@link AgentSdkClient} whose `connect()` takes its session from `source`. @internal */
export function clientOn(source: SessionSource, options: AgentOptions): AgentSdkClient {
  const client = new AgentSdkClient(options);
  sources.set(client, source);
  return client;
}

/** The {@link QueryControls} methods are installed on the prototype (see the end of this module). */
export interface AgentSdkClient extends QueryControls {}

/**
 * A conversation that stays open across turns.
 *
 * @example
 * await using client = new AgentSdkClient({ model: "claude-sonnet-4-5" });
 * await client.connect();
 * const turn = await client.run("Summarize README.md");
 * console.log(turn.error ?? turn.text);
 * // or, message by message:
 * await client.query("Now list its sections");
 * for await (const message of client.receiveResponse()) console.log(message);
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: see the interface above.
export class AgentSdkClient implements AsyncDisposable {
  /** The Claude control methods (`supportedModels()`, `getContextUsage()`, …), gated on `controlProtocol`. */
  readonly controls = new ClaudeControls(async (feature) => this.gated("controlProtocol", feature));
  private readonly options: AgentOptions;
  private readonly backend: Backend;
  private session: Session | undefined;
  private connecting: Promise<void> | undefined;
  /** Aborts the connect() in progress; disconnect() must not wait for a handshake that never ends. */
  private connectAbort: AbortController | undefined;
  private closing: Promise<void> | undefined;
  /**
   * Turns sent whose `result` no reader of this client has received yet; `undefined` once a streamed
   * prompt made the count of turns unknowable.
   */
  private unreadTurns: number | undefined = 0;
  /** `result` messages already counted (concurrent readers each receive the same one). */
  private readonly readResults = new WeakSet<Message>();
  /** Readers (`receiveMessages()` / `receiveResponse()` iterations) currently running. */
  private activeReaders = 0;
  private warnedUnread = false;
  /** The turn the last `interrupt()` ended, until the next `query()` / `run()` has waited for it. */
  private interrupted: { settled: Promise<void>; unreadAtInterrupt: number | undefined } | undefined;
  /** That wait, shared by the `query()` / `run()` calls made meanwhile. */
  private interruptSettling: Promise<void> | undefined;
  /** The connection's spans and metrics, when it is instrumented (see `AgentOptions.telemetry`). */
  private telemetry: RunTelemetry | undefined;

  /** @throws InvalidOptionsError when `options.signal` is not an `AbortSignal` (the rest is checked at `connect()`). */
  constructor(options: AgentOptions = {}) {
    checkSignalOption(options.signal);
    this.options = options;
    this.backend = getBackend(options.backend);
  }

  /** The backend this client drives. */
  get backendName(): BackendKind {
    return this.backend.name;
  }

  /** What the backend supports; gated methods throw `UnsupportedFeatureError` otherwise. */
  get capabilities(): Capabilities {
    return this.backend.capabilities;
  }

  /** The pid of the CLI process currently running (undefined before connect and for custom transports). */
  get pid(): number | undefined {
    return this.session?.pid?.();
  }

  /** True between a successful `connect()` and `disconnect()`. */
  get isConnected(): boolean {
    return this.session !== undefined;
  }

  /**
   * Starts the agent. Options are validated first; nothing is spawned if they are invalid.
   * A string or content prompt is sent as the first turn; an `AsyncIterable` prompt is streamed in
   * the background, turn by turn.
   */
  async connect(prompt?: Prompt): Promise<void> {
    if (this.session) return;
    if (this.connecting) return this.connecting;
    this.connecting = (async () => {
      throwIfAborted(this.options.signal);
      const abort = new AbortController();
      this.connectAbort = abort;
      const signal = combineSignals(this.options.signal, abort.signal);
      let session: Session;
      const initial = prompt !== undefined && !isStreamedPrompt(prompt) ? { initialPrompt: prompt } : {};
      try {
        const source = sources.get(this);
        const prepared = telemetryWanted(this.options)
          ? await prepareTelemetry(this.options, {
              backend: this.backend.name,
              initialPrompt: prompt,
              spawns: !source,
            })
          : undefined;
        this.telemetry = prepared?.run;
        const options = prepared?.options ?? this.options;
        if (source) {
          session = await source({ options, signal, ...initial });
        } else {
          // Loading the backend is the one wait before validation; disconnect() may come meanwhile.
          const backend = await backendFor(options);
          if (signal.aborted) throw abortErrorFor(signal.reason);
          session = await backend.openSession({
            options: { ...options, signal },
            oneShot: false,
            ...initial,
          });
        }
      } catch (error) {
        this.telemetry?.end(error);
        throw error;
      } finally {
        if (this.connectAbort === abort) this.connectAbort = undefined;
      }
      // receiveMessages() and receiveResponse() may read side by side: a response view started late
      // must still see its turn from the start.
      session.retainTurns?.();
      this.session = session;
      this.unreadTurns = prompt === undefined ? 0 : isStreamedPrompt(prompt) ? undefined : 1;
      if (prompt !== undefined && isStreamedPrompt(prompt)) {
        // A failing prompt stream ends the session; readers get its error.
        session.send(prompt).catch((error: unknown) => void session.close(error));
      }
    })();
    try {
      await this.connecting;
    } finally {
      this.connecting = undefined;
    }
  }

  /**
   * Sends a user turn and returns once it is sent; the answer arrives through
   * {@link receiveResponse} (or use {@link run} to send and collect in one call).
   *
   * Answers are delivered in order: `receiveResponse()` yields the oldest answer not yet read. If
   * an earlier turn's answer is still unread and no reader is running when `query()` is called, the
   * next `receiveResponse()` would yield that earlier answer, so the client warns once through
   * `process.emitWarning` (code {@link UNREAD_RESPONSE_WARNING}). Queueing turns on purpose is fine:
   * read one response per turn afterwards, or keep a `receiveMessages()` loop running.
   *
   * After {@link interrupt}, the next `query()` (or `run()`) first waits for the interrupted turn to
   * finish (its `result`; at most {@link INTERRUPT_SETTLE_TIMEOUT_MS}, then it sends anyway). When
   * that turn was the only unread one and no reader is running, its answer is dropped: the next
   * `receiveResponse()` yields the new turn's answer, not the interrupted one. (Backends whose
   * session tracks its running turn: Claude, Codex app-server.)
   */
  async query(prompt: Prompt, sessionId = "default"): Promise<void> {
    this.requireSession();
    await this.afterInterrupt();
    const session = this.requireSession();
    if (this.unreadTurns !== undefined && this.unreadTurns > 0 && this.activeReaders === 0) this.warnUnread();
    if (!isStreamedPrompt(prompt)) this.telemetry?.beginTurn(prompt);
    await session.send(prompt, sessionId);
    if (isStreamedPrompt(prompt)) this.unreadTurns = undefined;
    else if (this.unreadTurns !== undefined) this.unreadTurns++;
  }

  /**
   * Sends a turn and collects its answer: `{ messages, result, text, error, errorKind,
   * structuredOutput, usage }`. A failed turn (e.g. not logged in) resolves with `error` set; it
   * rejects only when the session ends before the turn's `result`.
   *
   * Rejects with `UnreadResponseError` (sending nothing) when an earlier turn's answer has not been
   * read yet, since the answer collected would be that earlier one.
   *
   * @example
   * const turn = await client.run("What changed in the last commit?");
   * console.log(turn.error ?? turn.text);
   */
  async run(prompt: string | UserContentBlock[], sessionId = "default"): Promise<TurnResult> {
    this.requireSession();
    await this.afterInterrupt();
    if (this.unreadTurns === undefined || this.unreadTurns > 0)
      throw new UnreadResponseError(this.unreadTurns);
    await this.query(prompt, sessionId);
    return collectTurn(this.receiveResponse());
  }

  /** Every message of the session until it ends. May run alongside {@link receiveResponse}. */
  receiveMessages(): AsyncGenerator<Message, void, undefined> {
    return this.subscribe(false);
  }

  /** Messages up to and including the next `result` (of the oldest turn whose answer is unread). */
  receiveResponse(): AsyncGenerator<Message, void, undefined> {
    return this.subscribe(true);
  }

  private async *subscribe(untilResult: boolean): AsyncGenerator<Message, void, undefined> {
    const messages = this.requireSession().subscribe({ untilResult });
    this.activeReaders++;
    try {
      for await (const message of messages) {
        this.telemetry?.observe(message);
        if (message.type === "result") this.noteRead(message);
        yield message;
      }
    } finally {
      this.activeReaders--;
    }
  }

  private noteRead(result: Message): void {
    if (this.readResults.has(result)) return;
    this.readResults.add(result);
    if (this.unreadTurns !== undefined && this.unreadTurns > 0) this.unreadTurns--;
  }

  private warnUnread(): void {
    if (this.warnedUnread) return;
    this.warnedUnread = true;
    process.emitWarning(
      "AgentSdkClient.query() was called while the answer to an earlier query() is unread; the next " +
        "receiveResponse() yields that earlier answer first. Read one response per turn, use run(), " +
        "or keep a receiveMessages() loop running.",
      { code: UNREAD_RESPONSE_WARNING },
    );
  }

  /**
   * Interrupts the running turn. Claude reports input still queued behind it (`still_queued`) and
   * drops that input with `cancelQueued`.
   */
  async interrupt(options?: { cancelQueued?: boolean }): Promise<InterruptResult | undefined> {
    const session = this.gated("interrupt", "interrupt");
    // Taken before the interrupt goes out: the turn it ends is the one running now.
    const settled = session.runningTurnSettled?.();
    const unreadAtInterrupt = this.unreadTurns;
    let answer: InterruptResult | undefined;
    if (this.backend.capabilities.controlProtocol) answer = await this.controls.interrupt(options);
    else await session.interrupt();
    if (settled !== undefined) this.interrupted = { settled, unreadAtInterrupt };
    return answer;
  }

  /** Waits (bounded) for the turn the last `interrupt()` ended; see {@link query}. */
  private afterInterrupt(): Promise<void> {
    if (this.interruptSettling) return this.interruptSettling;
    const interrupted = this.interrupted;
    if (interrupted === undefined) return Promise.resolve();
    this.interrupted = undefined;
    const settling = this.settleInterrupted(interrupted).finally(() => {
      if (this.interruptSettling === settling) this.interruptSettling = undefined;
    });
    this.interruptSettling = settling;
    return settling;
  }

  private async settleInterrupted(interrupted: {
    settled: Promise<void>;
    unreadAtInterrupt: number | undefined;
  }): Promise<void> {
    const timedOut = await settleWithin(
      interrupted.settled.then(() => false),
      { timeoutMs: INTERRUPT_SETTLE_TIMEOUT_MS, onTimeout: () => true },
    ).catch((timeout: unknown) => timeout === true);
    // Past the bound the turn is sent anyway, and the interrupted answer stays for a reader.
    if (timedOut || !this.session) return;
    // The interrupted answer, unread and nobody reading: dropped, so the next response is the new turn's.
    if (interrupted.unreadAtInterrupt === 1 && this.unreadTurns === 1 && this.activeReaders === 0) {
      for await (const _ of this.receiveResponse()) {
        // Drained: its result is counted as read.
      }
    }
  }

  /** Sends user input turn by turn from `stream` (same as `query()` with an iterable). */
  async streamInput(stream: AsyncIterable<StreamedUserInput>): Promise<void> {
    await this.requireSession().send(stream);
  }

  /** Changes the permission mode for the rest of the session. */
  async setPermissionMode(mode: PermissionMode): Promise<void> {
    await this.gated("runtimeConfigChanges", "setPermissionMode").setPermissionMode(mode);
  }

  /** Switches the model; `undefined` restores the default. */
  async setModel(model?: string): Promise<void> {
    await this.gated("modelSwitching", "setModel").setModel(model);
  }

  /** Changes the thinking budget; `null` clears it. */
  async setMaxThinkingTokens(
    tokens: number | null,
    display?: ThinkingDisplay | "highlights" | null,
  ): Promise<void> {
    const session = this.gated("runtimeConfigChanges", "setMaxThinkingTokens");
    if (display === undefined) await session.setMaxThinkingTokens(tokens);
    else await this.controls.setMaxThinkingTokens(tokens, display);
  }

  /** Restores files to their state at a user message (needs `enableFileCheckpointing`). */
  async rewindFiles(userMessageId: string, options?: RewindFilesOptions): Promise<RewindFilesResult> {
    return this.gated("controlProtocol", "rewindFiles").rewindFiles(userMessageId, options);
  }

  /** Connection status of the session's MCP servers. */
  async getMcpStatus(): Promise<McpServerStatusEntry[]> {
    return this.gated("mcpStatus", "getMcpStatus").mcpServerStatus();
  }

  /** The backend's handshake answer (Claude: commands, models, account, version, …). */
  async getServerInfo(): Promise<ServerInfo | undefined> {
    return this.requireSession().serverInfo();
  }

  /** Sends a raw control request (Claude only) — for subtypes this SDK does not wrap yet. */
  async controlRequest(request: {
    subtype: string;
    [key: string]: unknown;
  }): Promise<Record<string, unknown>> {
    return this.gated("controlProtocol", "controlRequest").controlRequest(request);
  }

  /**
   * Ends the session and the CLI process. Safe to call more than once, concurrently, or before
   * `connect()`; every call resolves once the process is gone. A `connect()` still in progress is
   * aborted (it rejects with `AbortError`).
   */
  async disconnect(): Promise<void> {
    this.connectAbort?.abort(new AbortError("disconnect() was called while connecting"));
    await this.connecting?.catch(() => undefined);
    const session = this.session;
    this.session = undefined;
    // Never connected: a process started ahead of time for this client is released now.
    if (!session) sources.get(this)?.discard?.();
    if (session) this.closing = session.close();
    await this.closing;
    this.telemetry?.end();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.disconnect();
  }

  private requireSession(): Session {
    if (!this.session) throw new NotConnectedError();
    return this.session;
  }

  private gated(capability: keyof Capabilities, feature: string): Session {
    if (!this.backend.capabilities[capability]) throw new UnsupportedFeatureError(feature, this.backend.name);
    return this.requireSession();
  }
}

for (const name of QUERY_CONTROL_METHODS) {
  Object.defineProperty(AgentSdkClient.prototype, name, {
    value(this: AgentSdkClient, ...args: unknown[]) {
      return (this.controls[name] as (...a: unknown[]) => unknown)(...args);
    },
    writable: true,
    configurable: true,
  });
}
