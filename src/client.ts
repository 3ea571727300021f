/**
 * `AgentSdkClient`: a multi-turn conversation with any backend. A view on the session engine
 * (`api/engine.ts`), which opens, checks, controls and closes the session; what is the client's
 * own is here: turns sent and answers read.
 */
import type { QueryControls, WithControlsOf } from "./api/controls.js";
import { installClaudeControls, SessionEngine, type SessionSource } from "./api/engine.js";
import type {
  Capabilities,
  McpServerStatusEntry,
  RewindFilesOptions,
  ServerInfo,
} from "./backends/backend.js";
import type { InterruptResult } from "./backends/claude/control-results.js";
import type { RewindFilesResult } from "./backends/claude/control-types.js";
import { UnreadResponseError } from "./errors.js";
import type { Message } from "./messages.js";
import type { AgentOptions, BackendKind, ThinkingDisplay } from "./options.js";
import type { PermissionMode } from "./permissions.js";
import {
  checkInputStream,
  checkPrompt,
  isStreamedPrompt,
  type Prompt,
  promptStreamError,
  type StreamedUserInput,
  type UserContentBlock,
} from "./prompt.js";
import { settleWithin } from "./signals/deadline.js";
import { collectTurn, type TurnResult } from "./turn.js";

/** The `process.emitWarning` code of the unread-answer warning (see {@link AgentSdkClient.query}). */
export const UNREAD_RESPONSE_WARNING = "CODE_AGENT_SDK_UNREAD_RESPONSE";

/**
 * How long `query()` / `run()` after `interrupt()` wait for the interrupted turn's `result` before
 * sending anyway, in milliseconds (the CLI usually ends the turn 50–200 ms after the interrupt).
 */
export const INTERRUPT_SETTLE_TIMEOUT_MS = 10_000;

/** An {@link AgentSdkClient} whose `connect()` takes its session from `source`. @internal */
export function clientOn(source: SessionSource, options: AgentOptions): FullAgentSdkClient {
  return new FullAgentSdkClient(options, source);
}

/** The {@link QueryControls} methods are installed on the prototype (see the class's static block). */
export interface FullAgentSdkClient extends QueryControls {}

/**
 * A conversation that stays open across turns, with every control: the type of a Claude client and
 * of one whose backend is not known statically (see {@link AgentSdkClient}).
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
export class FullAgentSdkClient implements AsyncDisposable {
  static {
    installClaudeControls(FullAgentSdkClient.prototype, (client) => client.engine);
  }

  /** Opens, gates, controls and closes the session. */
  private readonly engine: SessionEngine;
  /** The `connect()` in progress (its work after the open included). */
  private connecting: Promise<void> | undefined;
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

  /**
   * @throws InvalidOptionsError when `options.signal` is not an `AbortSignal` or `options.backend`
   *   is unknown (the rest is checked at `connect()`).
   */
  constructor(options: AgentOptions = {}, source?: SessionSource) {
    this.engine = new SessionEngine(options, source);
    this.engine.backend();
  }

  /** The backend this client drives. */
  get backendName(): BackendKind {
    return this.engine.backend().name;
  }

  /** What the backend supports; gated methods throw `UnsupportedFeatureError` otherwise. */
  get capabilities(): Capabilities {
    return this.engine.backend().capabilities;
  }

  /** The pid of the CLI process currently running (undefined before connect and for custom transports). */
  get pid(): number | undefined {
    return this.engine.pid;
  }

  /**
   * True between a successful `connect()` and `disconnect()`, while the session can take a turn:
   * false once its process has ended by itself (a crash, an exit); `connect()` then starts anew.
   */
  get isConnected(): boolean {
    return this.engine.isLive;
  }

  /**
   * Starts the agent. Options are validated first; nothing is spawned if they are invalid.
   * A string or content prompt is sent as the first turn; an `AsyncIterable` prompt is streamed in
   * the background, turn by turn. Calls made while it connects share it; after `disconnect()` it
   * connects anew.
   */
  async connect(prompt?: Prompt): Promise<void> {
    if (prompt !== undefined) checkPrompt(prompt);
    if (this.engine.isLive) return;
    if (this.connecting) return this.connecting;
    const connecting = (async () => {
      const streamed = prompt !== undefined && isStreamedPrompt(prompt);
      const session = await this.engine.open({
        oneShot: false,
        ...(prompt !== undefined && !streamed ? { initialPrompt: prompt } : {}),
        telemetry: { initialPrompt: prompt },
      });
      // receiveMessages() and receiveResponse() may read side by side: a response view started late
      // must still see its turn from the start.
      session.retainTurns?.();
      this.unreadTurns = prompt === undefined ? 0 : streamed ? undefined : 1;
      if (prompt !== undefined && streamed) {
        // A failing prompt stream ends the session; readers get its error.
        session.send(prompt).catch((error: unknown) => void session.close(promptStreamError(error)));
      }
    })();
    this.connecting = connecting;
    try {
      await connecting;
    } finally {
      if (this.connecting === connecting) this.connecting = undefined;
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
    checkPrompt(prompt);
    await this.engine.liveSession("query");
    await this.afterInterrupt();
    const session = await this.engine.liveSession("query");
    if (this.unreadTurns !== undefined && this.unreadTurns > 0 && this.activeReaders === 0) this.warnUnread();
    if (!isStreamedPrompt(prompt)) this.engine.telemetry?.beginTurn(prompt);
    await session.send(prompt, sessionId);
    if (isStreamedPrompt(prompt)) this.unreadTurns = undefined;
    else if (this.unreadTurns !== undefined) this.unreadTurns++;
  }

  /**
   * Sends a turn and collects its answer: `{ messages, result, text, error, errorKind,
   * structuredOutput, usage }`. A failed turn (e.g. not logged in) resolves with `error` set; it
   * rejects only when the session ends before the turn's `result`.
   *
   * Rejects with `TurnInProgressError` while another `run()` is collecting, and with
   * `UnreadResponseError` (sending nothing) when an earlier turn's answer has not been read yet,
   * since the answer collected would be that earlier one.
   *
   * @example
   * const turn = await client.run("What changed in the last commit?");
   * console.log(turn.error ?? turn.text);
   */
  async run(prompt: string | UserContentBlock[], sessionId = "default"): Promise<TurnResult> {
    checkPrompt(prompt, false);
    const done = this.engine.beginTurn("run()");
    try {
      await this.engine.liveSession("run");
      await this.afterInterrupt();
      if (this.unreadTurns === undefined || this.unreadTurns > 0)
        throw new UnreadResponseError(this.unreadTurns);
      await this.query(prompt, sessionId);
      return await collectTurn(this.receiveResponse());
    } finally {
      done();
    }
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
    const messages = this.engine.require().subscribe({ untilResult });
    this.activeReaders++;
    try {
      for await (const message of messages) {
        this.engine.telemetry?.observe(message);
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
    let interrupted: typeof this.interrupted;
    const answer = await this.engine.interrupt(options, (session) => {
      // Taken before the interrupt goes out: the turn it ends is the one running now.
      const settled = session.runningTurnSettled?.();
      if (settled !== undefined) interrupted = { settled, unreadAtInterrupt: this.unreadTurns };
    });
    if (interrupted !== undefined) this.interrupted = interrupted;
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
    if (timedOut || !this.engine.isLive) return;
    // The interrupted answer, unread and nobody reading: dropped, so the next response is the new turn's.
    if (interrupted.unreadAtInterrupt === 1 && this.unreadTurns === 1 && this.activeReaders === 0) {
      for await (const _ of this.receiveResponse()) {
        // Drained: its result is counted as read.
      }
    }
  }

  /** Sends user input turn by turn from `stream` (same as `query()` with an iterable). */
  async streamInput(stream: AsyncIterable<StreamedUserInput>): Promise<void> {
    checkInputStream(stream);
    await (await this.engine.liveSession("streamInput")).send(stream);
  }

  /** Changes the permission mode for the rest of the session (`runtimeConfigChanges`). */
  setPermissionMode(mode: PermissionMode): Promise<void> {
    return this.engine.setPermissionMode(mode);
  }

  /** Switches the model; `undefined` restores the default (`modelSwitching`). */
  setModel(model?: string): Promise<void> {
    return this.engine.setModel(model);
  }

  /** Changes the thinking budget; `null` clears it. Claude also takes how thinking is shown. */
  setMaxThinkingTokens(
    tokens: number | null,
    display?: ThinkingDisplay | "highlights" | null,
  ): Promise<void> {
    return this.engine.setMaxThinkingTokens(tokens, display);
  }

  /** Restores files to their state at a user message (needs `enableFileCheckpointing`; Claude). */
  rewindFiles(userMessageId: string, options?: RewindFilesOptions): Promise<RewindFilesResult> {
    return this.engine.rewindFiles(userMessageId, options);
  }

  /** Connection status of the session's MCP servers (`mcpStatus`). */
  getMcpStatus(): Promise<McpServerStatusEntry[]> {
    return this.engine.mcpServerStatus("getMcpStatus");
  }

  /** The backend's handshake answer (Claude: commands, models, account, version, …). */
  getServerInfo(): Promise<ServerInfo | undefined> {
    return this.engine.serverInfo();
  }

  /** Sends a raw control request (Claude only) — for subtypes this SDK does not wrap yet. */
  controlRequest(request: { subtype: string; [key: string]: unknown }): Promise<Record<string, unknown>> {
    return this.engine.controlRequest(request);
  }

  /**
   * Ends the session and the CLI process. Safe to call more than once, concurrently, or before
   * `connect()`; every call resolves once the process is gone. A `connect()` still in progress is
   * aborted (it rejects with `AbortError`).
   */
  async disconnect(): Promise<void> {
    await this.engine.close();
    this.engine.telemetry?.end();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.disconnect();
  }
}

/**
 * A client on backend `B`: where the backend is known statically (`new AgentSdkClient({ backend:
 * "codex" })`), a control it lacks is not there (a compile-time error); for a union of backends
 * every control some of them has is there, and throws `UnsupportedFeatureError` on one that lacks it.
 */
export type AgentSdkClient<B extends BackendKind = BackendKind> = WithControlsOf<FullAgentSdkClient, B>;

/** The constructor of {@link AgentSdkClient}: its backend `B` is inferred from `options.backend` (omitted: Claude). */
export interface AgentSdkClientConstructor {
  /** @throws InvalidOptionsError when `options.signal` is not an `AbortSignal` or the backend is unknown. */
  new <B extends BackendKind = "claude">(options?: AgentOptions & { backend?: B }): AgentSdkClient<B>;
  readonly prototype: FullAgentSdkClient;
}

/**
 * A conversation that stays open across turns (see {@link FullAgentSdkClient} for its methods).
 *
 * @example
 * await using client = new AgentSdkClient({ model: "claude-sonnet-4-5" });
 * await client.connect();
 * const turn = await client.run("Summarize README.md");
 * console.log(turn.error ?? turn.text);
 */
export const AgentSdkClient: AgentSdkClientConstructor = FullAgentSdkClient as AgentSdkClientConstructor;
