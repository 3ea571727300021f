/**
 * The session engine behind `query()`, `AgentSdkClient` and the warm handles: opening a session
 * (a new process, or one handed out by a warm session or spare), capability checks, the controls,
 * and closing, in one place. The public objects are views on it: the same misuse gives the same
 * typed error on every one of them.
 */
import type {
  Backend,
  Capabilities,
  McpServerStatusEntry,
  RewindFilesOptions,
  ServerInfo,
  Session,
} from "../backends/backend.js";
import type { InterruptResult } from "../backends/claude/control-results.js";
import type { RewindFilesResult } from "../backends/claude/control-types.js";
import { ClaudeControls, type ControlSession } from "../backends/claude/controls.js";
import { backendFor, getBackend } from "../backends/registry.js";
import { AbortError, NotConnectedError, TurnInProgressError, UnsupportedFeatureError } from "../errors.js";
import type { AgentOptions, BackendKind, ThinkingDisplay } from "../options.js";
import type { PermissionMode } from "../permissions.js";
import type { Prompt } from "../prompt.js";
import { abortErrorFor, checkSignalOption, combineSignals, throwIfAborted } from "../signals/abort.js";
import { telemetryWanted } from "../telemetry/load.js";
import type { RunTelemetry } from "../telemetry/run.js";
import type { PrepareParams } from "../telemetry/start.js";
import { describeError } from "../wire/safe-json.js";
import {
  type CapabilityFlag,
  CONTROL_CAPABILITY,
  type GatedControl,
  QUERY_CONTROL_METHODS,
} from "./controls.js";

/**
 * Where an engine gets its session instead of opening a new one: a process started ahead of time
 * (`startup()`, `prewarm()`, `WarmPool`). Given the options, the engine's combined abort signal, and
 * the initial prompt when it is one turn; resolves with a session that has sent that prompt.
 * @internal
 */
export type SessionSource = ((params: {
  options: AgentOptions;
  signal: AbortSignal;
  initialPrompt?: Prompt;
}) => Promise<Session>) & {
  /**
   * The engine this source was given to ends without ever calling it (closed, aborted, or failed
   * before its start): the process it holds is released at once, not at its idle timeout.
   */
  discard?: () => void;
};

/** The session methods a backend's session may lack (see `Session`). */
type OptionalControl =
  | "setPermissionMode"
  | "setModel"
  | "setMaxThinkingTokens"
  | "rewindFiles"
  | "mcpServerStatus"
  | "controlRequest";

/** How {@link SessionEngine.open} opens the session. */
export interface OpenParams {
  /** The first turn, sent with the open (a string or content blocks; never a streamed prompt). */
  initialPrompt?: Prompt;
  /** One turn, then input ends (Codex and Cursor pick their one-shot command by it). */
  oneShot: boolean;
  /** For the run's telemetry: the prompt it starts with, whether it is one turn, where it was made. */
  telemetry?: Pick<PrepareParams, "initialPrompt" | "oneTurn" | "createdIn">;
}

/** What a control called before the session is open says. */
export const NOT_OPEN_MESSAGE =
  "Not connected: the session is not open yet (iterate the query, or call connect(), first)";
/** What a control called after `close()` / `disconnect()` says. */
export const CLOSED_MESSAGE = "Not connected: the session was closed (close() or disconnect() was called)";

/**
 * One session's life: opened once (a client may open again after closing), closed once; every
 * control checks the backend's capability first, then that the session is open.
 */
export class SessionEngine {
  /** The Claude controls, each gated on `controlProtocol`. */
  readonly claude = new ClaudeControls((feature) => this.controlSession(feature));
  /** The run's spans and metrics, once opened with telemetry (see `AgentOptions.telemetry`). */
  telemetry: RunTelemetry | undefined;
  private current: Session | undefined;
  private opening: Promise<Session> | undefined;
  /** Aborts an open in progress when the engine is closed: the CLI may never answer it. */
  private openAbort: AbortController | undefined;
  private closing: Promise<void> | undefined;
  private closedFlag = false;
  private turnRunning = false;
  private sourceDiscarded = false;

  /** @throws InvalidOptionsError when `options.signal` is not an `AbortSignal`. */
  constructor(
    readonly options: AgentOptions,
    private readonly source?: SessionSource,
  ) {
    checkSignalOption(options.signal);
  }

  /** The backend the options select (name and capabilities; loaded at open). @throws InvalidOptionsError for an unknown one. */
  backend(): Backend {
    return getBackend(this.options.backend);
  }

  /** The backend's name. */
  get backendName(): BackendKind {
    return this.options.backend ?? "claude";
  }

  /** Whether the session is open (and `close()` was not called since). */
  get isOpen(): boolean {
    return !this.closedFlag && this.current !== undefined;
  }

  /** Whether the session is open and can still take a turn (its process has not ended by itself). */
  get isLive(): boolean {
    return this.isOpen && this.current?.isAlive?.() !== false;
  }

  /** Whether `close()` was called (and no open since). */
  get isClosed(): boolean {
    return this.closedFlag;
  }

  /** Whether an open has started (and `close()` was not called since). */
  get started(): boolean {
    return !this.closedFlag && (this.current !== undefined || this.opening !== undefined);
  }

  /** The pid of the CLI process, once open. */
  get pid(): number | undefined {
    return this.current?.pid?.();
  }

  /**
   * Whether the open session's process keeps the host alive. Off while a turn waits on the caller
   * for longer than a call (an AI SDK approval parked between calls): a host with nothing else to do
   * may then exit, and the process-group registry ends the CLI at exit.
   */
  setKeepAlive(keep: boolean): void {
    this.current?.setKeepAlive?.(keep);
  }

  /**
   * Opens the session: from the source when there is one, else a new process. Concurrent calls
   * share one open; after `close()` it opens anew. Rejects with the open's error: `AbortError` for
   * an aborted `signal` (or `close()` meanwhile), option errors before anything is spawned.
   */
  open(params: OpenParams): Promise<Session> {
    if (this.closedFlag) {
      this.closedFlag = false;
      this.closing = undefined;
      this.current = undefined;
    }
    if (this.current?.isAlive?.() === false && !this.opening) {
      // Ended by itself (its process exited): a new open replaces it.
      const ended = this.current;
      this.current = undefined;
      void ended.close().catch(() => undefined);
    }
    if (this.current) return Promise.resolve(this.current);
    if (!this.opening) {
      const opening = this.openOnce(params).finally(() => {
        if (this.opening === opening) this.opening = undefined;
      });
      this.opening = opening;
      // Controls waiting on it get the same error as the caller; nobody else need listen.
      opening.catch(() => undefined);
    }
    return this.opening;
  }

  private async openOnce(params: OpenParams): Promise<Session> {
    const abort = new AbortController();
    this.openAbort = abort;
    let sourceCalled = false;
    try {
      throwIfAborted(this.options.signal);
      // Loading the backend is the one wait before validation; close() may come meanwhile.
      const backend = await backendFor(this.options);
      const signal = combineSignals(this.options.signal, abort.signal);
      if (signal.aborted) throw abortErrorFor(signal.reason);
      // The telemetry code is loaded by the runs that have telemetry only (not with the package).
      const prepared = telemetryWanted(this.options)
        ? await (await import("../telemetry/start.js")).prepareTelemetry(this.options, {
            backend: backend.name,
            spawns: !this.source,
            ...params.telemetry,
          })
        : undefined;
      this.telemetry = prepared?.run;
      const options = prepared?.options ?? this.options;
      // Telemetry hands the backend options of its own (its environment, a reporting canUseTool):
      // what validating those needs (the options schema) is loaded too.
      if (prepared && !this.source) await backendFor(options);
      const initial = params.initialPrompt !== undefined ? { initialPrompt: params.initialPrompt } : {};
      let session: Session;
      if (this.source) {
        sourceCalled = true;
        session = await this.source({ options, signal, ...initial });
      } else {
        session = await backend.openSession({
          options: { ...options, signal },
          oneShot: params.oneShot,
          ...initial,
        });
      }
      this.current = session;
      if (this.closedFlag) {
        // Closed while the session was being handed over: it ends now.
        await session.close();
        throw new AbortError("The session was closed while it was opening");
      }
      return session;
    } catch (error) {
      this.telemetry?.end(error);
      // Failed before taking its process (aborted, bad options): the process is released now.
      if (!sourceCalled) this.discardSource();
      throw error;
    } finally {
      if (this.openAbort === abort) this.openAbort = undefined;
    }
  }

  /**
   * Ends the session: an open in progress is aborted, a process handed out but never taken is
   * released, the session's process is terminated. Every call (also concurrent ones) resolves once
   * it is gone.
   */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closedFlag = true;
    this.closing = (async () => {
      this.openAbort?.abort(new AbortError("The session was closed while it was opening"));
      await this.opening?.catch(() => undefined);
      const session = this.current;
      if (session) await session.close();
      else this.discardSource();
    })();
    return this.closing;
  }

  private discardSource(): void {
    if (this.sourceDiscarded) return;
    this.sourceDiscarded = true;
    this.source?.discard?.();
  }

  /**
   * The open session, synchronously.
   * @throws NotConnectedError before the open has finished and after `close()`.
   */
  require(): Session {
    if (this.closedFlag) throw new NotConnectedError(CLOSED_MESSAGE);
    if (!this.current) throw new NotConnectedError(NOT_OPEN_MESSAGE);
    return this.current;
  }

  /**
   * Checks that the backend has `capability` (when given), else `UnsupportedFeatureError` naming
   * `feature`; known from the backend's kind alone, so it is checked before anything else.
   */
  check(capability: CapabilityFlag | undefined, feature: string): void {
    if (capability === undefined) return;
    let capabilities: Capabilities;
    try {
      capabilities = this.backend().capabilities;
    } catch {
      // An unknown backend: the open reports it.
      return;
    }
    if (!capabilities[capability]) throw new UnsupportedFeatureError(feature, this.backendName);
  }

  /**
   * The session for a control: the capability is checked, then the session; an open in progress is
   * waited for (its failure is the control's).
   * @throws UnsupportedFeatureError, NotConnectedError (not opened, or closed).
   */
  async session(capability: CapabilityFlag | undefined, feature: string): Promise<Session> {
    this.check(capability, feature);
    if (this.closedFlag) throw new NotConnectedError(CLOSED_MESSAGE);
    if (this.current) return this.current;
    if (!this.opening) throw new NotConnectedError(NOT_OPEN_MESSAGE);
    const session = await this.opening;
    if (this.closedFlag) throw new NotConnectedError(CLOSED_MESSAGE);
    return session;
  }

  /**
   * The session for a new turn: as {@link session}, and not one that failed. A session that ended
   * cleanly (Codex's app-server exiting 0 between turns) or was aborted is returned: sending on it
   * reports that end in the backend's own terms (`CliConnectionError`, `AbortError`).
   * @throws NotConnectedError when the session ended by itself with a failure (its process died),
   *   with that failure as `cause`; `open()` starts a new one.
   */
  async liveSession(feature: string): Promise<Session> {
    const session = await this.session(undefined, feature);
    if (session.isAlive?.() !== false) return session;
    const reason = session.endReason?.();
    if (reason === undefined || reason instanceof AbortError) return session;
    throw new NotConnectedError(
      `Not connected: the session has ended (${describeError(reason)}); call connect() to start a new one`,
      { cause: reason },
    );
  }

  /** The session for gated control `name` (its capability from `CONTROL_CAPABILITY`). */
  private gated(name: GatedControl): Promise<Session> {
    return this.session(CONTROL_CAPABILITY[name], name);
  }

  /**
   * The session's `method` for gated control `name`, bound to it.
   * @throws UnsupportedFeatureError where the backend lacks the capability (checked first), or the
   *   session the method (a session mode without it).
   */
  private async control<M extends OptionalControl>(
    name: GatedControl,
    method: M,
  ): Promise<NonNullable<Session[M]>> {
    const session = await this.gated(name);
    const fn = session[method];
    if (typeof fn !== "function") throw new UnsupportedFeatureError(name, this.backendName);
    return fn.bind(session) as NonNullable<Session[M]>;
  }

  /** The session for a Claude control `feature`: `controlProtocol`, and its `controlRequest`. */
  private async controlSession(feature: string): Promise<ControlSession> {
    const session = await this.session("controlProtocol", feature);
    if (typeof session.controlRequest !== "function")
      throw new UnsupportedFeatureError(feature, this.backendName);
    return session as ControlSession;
  }

  /**
   * Marks a turn as being collected until the returned function is called.
   * @throws TurnInProgressError when one already is.
   */
  beginTurn(operation: string): () => void {
    if (this.turnRunning) throw new TurnInProgressError(operation);
    this.turnRunning = true;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.turnRunning = false;
    };
  }

  // ── controls ──

  /**
   * Interrupts the running turn. Claude reports input still queued behind it (`still_queued`) and
   * drops it with `cancelQueued`. `before` runs with the session right before the interrupt is sent.
   */
  async interrupt(
    options?: { cancelQueued?: boolean },
    before?: (session: Session) => void,
  ): Promise<InterruptResult | undefined> {
    const session = await this.gated("interrupt");
    before?.(session);
    if (this.backend().capabilities.controlProtocol) return this.claude.interrupt(options);
    await session.interrupt();
    return undefined;
  }

  async setPermissionMode(mode: PermissionMode): Promise<void> {
    await (await this.control("setPermissionMode", "setPermissionMode"))(mode);
  }

  async setModel(model?: string): Promise<void> {
    await (await this.control("setModel", "setModel"))(model);
  }

  async setMaxThinkingTokens(
    tokens: number | null,
    display?: ThinkingDisplay | "highlights" | null,
  ): Promise<void> {
    const set = await this.control("setMaxThinkingTokens", "setMaxThinkingTokens");
    if (display === undefined) await set(tokens);
    else await this.claude.setMaxThinkingTokens(tokens, display);
  }

  async rewindFiles(userMessageId: string, options?: RewindFilesOptions): Promise<RewindFilesResult> {
    return (await this.control("rewindFiles", "rewindFiles"))(userMessageId, options);
  }

  async mcpServerStatus(feature: "mcpServerStatus" | "getMcpStatus"): Promise<McpServerStatusEntry[]> {
    return (await this.control(feature, "mcpServerStatus"))();
  }

  async serverInfo(): Promise<ServerInfo | undefined> {
    return (await this.session(undefined, "serverInfo")).serverInfo();
  }

  async controlRequest(request: {
    subtype: string;
    [key: string]: unknown;
  }): Promise<Record<string, unknown>> {
    return (await this.control("controlRequest", "controlRequest"))(request);
  }
}

/**
 * Puts the Claude control methods ({@link QUERY_CONTROL_METHODS}) on `prototype`, each forwarding
 * to the engine `engineOf` finds on the instance: one implementation for every view.
 */
export function installClaudeControls<T>(prototype: T, engineOf: (self: T) => SessionEngine): void {
  for (const name of QUERY_CONTROL_METHODS) {
    Object.defineProperty(prototype, name, {
      value(this: T, ...args: unknown[]) {
        const claude = engineOf(this).claude;
        return (claude[name] as (...a: unknown[]) => unknown).apply(claude, args);
      },
      writable: true,
      configurable: true,
    });
  }
}
