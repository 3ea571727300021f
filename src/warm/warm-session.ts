/**
 * Warm start: a CLI process started and through its handshake before the prompt is known, so the
 * first answer does not wait for the CLI to start (Claude Code takes ~450 ms, Codex ~100 ms).
 *
 * - Claude Code: spawn + `initialize`.
 * - Codex: `codex app-server` + `initialize` + `thread/start`.
 * - ACP agents: `initialize` (+ `authenticate` when asked) + `session/new` (or `session/load`).
 * - Cursor: no warm start — it runs one process per turn (`capabilities.warmStart: false`).
 *
 * While it waits, the process does not keep the host alive, so a warm session that is never used
 * cannot pin a script: it ends at the idle timeout, on `close()` / `await using`, or with the host
 * (the SDK kills its process groups on exit).
 */

import type { SessionSource } from "../api/engine.js";
import type { Session } from "../backends/backend.js";
import { backendFor } from "../backends/registry.js";
import { type AgentSdkClient, clientOn } from "../client.js";
import { AbortError, InvalidOptionsError, UnsupportedFeatureError, WarmStartError } from "../errors.js";
import type { AgentOptions, BackendKind } from "../options.js";
import type { Prompt } from "../prompt.js";
import { type Query, queryOn } from "../query.js";
import { abortErrorFor, checkSignalOption, combineSignals } from "../signals/abort.js";
import { conflictingOptions } from "./option-conflicts.js";

/** The longest delay a Node timer can take (2^31 − 1 ms); longer ones fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** How long a warm session waits for its prompt before it closes, by default: 10 minutes. */
export const DEFAULT_WARM_IDLE_TIMEOUT_MS = 10 * 60_000;
/** How long {@link startup} waits for the process to start and finish its handshake, by default. */
export const DEFAULT_WARM_STARTUP_TIMEOUT_MS = 60_000;

/** Arguments of {@link startup}. */
export interface StartupParams {
  /**
   * The options of the session, including everything fixed when the process starts (backend,
   * `cliPath`, `cwd`, `env`, `model`, `systemPrompt`, tools, MCP servers, hooks, `canUseTool`, …).
   * A query on the warm session may repeat them, and add only `signal` and `exitTimeoutMs`.
   */
  options?: AgentOptions;
  /** Bound on start-up and handshake, in ms (default 60 000). The process is ended when it passes. */
  timeoutMs?: number;
  /**
   * How long the session waits for a query before it closes its process, in ms (default 10
   * minutes). `Infinity`: until `close()` or the host exits.
   */
  idleTimeoutMs?: number;
}

/** Where a warm session is: waiting, handed to a query or client, or gone. */
export type WarmSessionState = "ready" | "used" | "closed";

/**
 * A CLI process started ahead of its prompt. Use it once — {@link query} or {@link client} — or
 * {@link close} it; `await using` closes it if it was never used.
 */
export class WarmSession implements AsyncDisposable {
  private stateValue: WarmSessionState = "ready";
  private idleTimer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;
  /** Set once a query or client has taken the process: from then on it is theirs to close. */
  private claimed = false;
  private discardedValue = false;

  /** @internal Use {@link startup}. */
  constructor(
    private readonly session: Session,
    /** The options the process was started with. */
    readonly options: AgentOptions,
    /** The backend it runs. */
    readonly backend: BackendKind,
    idleTimeoutMs: number,
  ) {
    session.setKeepAlive?.(false);
    if (Number.isFinite(idleTimeoutMs)) {
      this.idleTimer = setTimeout(() => void this.close(), idleTimeoutMs);
      this.idleTimer.unref();
    }
  }

  /** `ready` until a query or client is made on it, then `used`; `closed` after close or idle timeout. */
  get state(): WarmSessionState {
    if (this.stateValue === "ready" && this.session.isAlive?.() === false) return "closed";
    return this.stateValue;
  }

  /** The pid of the warm process (undefined for a custom transport). */
  get pid(): number | undefined {
    return this.session.pid?.();
  }

  /**
   * Runs a query on the warm process: as `query({ prompt, options })`, with the session already
   * started. `options` may repeat the warm options and add `signal` / `exitTimeoutMs`; any other
   * difference throws {@link WarmStartError} (`conflicting-options`) at once. Usable once.
   */
  query(prompt: Prompt, options: AgentOptions = {}): Query {
    return queryOn(this.reserve(options), { prompt, options: { ...this.options, ...options } });
  }

  /**
   * @internal Reserves the process for a query or client made elsewhere (the checks of
   * {@link query}) and returns what hands it over when that one starts; `prepare` (a spare's claim)
   * writes its part first, and what it throws fails the start. When that query or client ends
   * without taking the process (closed, aborted by `options.signal`, or failed before it started),
   * the process is closed at once and `onDiscard` runs.
   */
  reserve(
    options: AgentOptions = {},
    prepare?: (session: Session) => void,
    onDiscard?: () => void,
  ): SessionSource {
    checkSignalOption(options.signal);
    this.checkOptions(options);
    const source = this.source(prepare);
    const signal = options.signal;
    const discard = () => {
      if (this.discard()) onDiscard?.();
    };
    const onAbort = () => discard();
    const taken: SessionSource = (params) => {
      signal?.removeEventListener("abort", onAbort);
      return source(params);
    };
    taken.discard = () => {
      signal?.removeEventListener("abort", onAbort);
      discard();
    };
    // The query's own signal, fired before the query takes the process (or already fired): the
    // process is ended at once, not at its idle timeout.
    if (signal?.aborted) discard();
    else signal?.addEventListener("abort", onAbort, { once: true });
    return taken;
  }

  /**
   * @internal True once a query or client it was reserved for ended without taking the process
   * (closed, aborted, or failed before it started), which closed it.
   */
  get discarded(): boolean {
    return this.discardedValue;
  }

  /**
   * The query or client it was reserved for will never take it: the process ends now. False when
   * there was nothing to do (taken already, or closed).
   */
  private discard(): boolean {
    if (this.claimed || this.closing) return false;
    this.discardedValue = true;
    void this.close().catch(() => undefined);
    return true;
  }

  /** @internal Resolves once the process is gone (closed, or ended by itself); never rejects. */
  whenClosed(): Promise<void> {
    return this.session.closed?.() ?? new Promise<void>(() => undefined);
  }

  /**
   * An {@link AgentSdkClient} on the warm process: `connect()` takes it instead of spawning. Same
   * rules for `options` as {@link query}. Usable once.
   */
  client(options: AgentOptions = {}): AgentSdkClient {
    return clientOn(this.reserve(options), { ...this.options, ...options });
  }

  /**
   * Ends the warm process unless a query or client has taken it (a taken one belongs to it). A
   * process reserved by a query that never started is ended too.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearTimeout(this.idleTimer);
      if (this.claimed) return;
      this.stateValue = "closed";
      await this.session.close();
    })();
    return this.closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private checkOptions(options: AgentOptions): void {
    const conflicts = conflictingOptions(this.options, options);
    if (conflicts.length > 0) {
      throw new WarmStartError(
        "conflicting-options",
        `The warm ${this.backend} process was started with other options: ${conflicts.join(", ")}. ` +
          "Start a warm session with these options (or a cold query) instead.",
        conflicts,
      );
    }
    const unavailable = this.unavailable();
    if (unavailable) throw unavailable;
    // Reserved for this query or client from now on; it takes the process when it connects.
    this.stateValue = "used";
  }

  /** Why the process cannot be handed out, or `undefined` when it can. */
  private unavailable(): WarmStartError | undefined {
    if (this.stateValue === "used")
      return new WarmStartError("already-used", "This warm session was already used");
    if (this.stateValue === "closed")
      return new WarmStartError(
        "closed",
        `This warm ${this.backend} session was closed (close() or its idle timeout)`,
      );
    if (this.session.isAlive?.() === false)
      return new WarmStartError(
        "exited",
        `The warm ${this.backend} process exited while it waited for a query`,
      );
    return undefined;
  }

  /** Hands the session over to the query or client it was reserved for, when it connects. */
  private source(prepare?: (session: Session) => void): SessionSource {
    return async ({ signal, initialPrompt }) => {
      const session = this.session;
      if (this.claimed) {
        // A client that connects again (after disconnect(), or after its process died) finds the
        // warm process already taken: it serves one session only.
        throw new WarmStartError(
          "already-used",
          `This warm ${this.backend} session was already taken by its query or client; connecting again needs a new process`,
        );
      }
      if (this.closing) {
        throw new WarmStartError(
          "closed",
          `This warm ${this.backend} session was closed before its query started`,
        );
      }
      this.claimed = true;
      clearTimeout(this.idleTimer);
      if (session.isAlive?.() === false) {
        throw new WarmStartError(
          "exited",
          `The warm ${this.backend} process exited while it waited for a query`,
        );
      }
      session.setKeepAlive?.(true);
      if (signal.aborted) {
        this.discardedValue = true;
        await session.close();
        throw abortErrorFor(signal.reason);
      }
      // `signal` is the query's own combined signal: the listener goes with it, no detaching needed.
      signal.addEventListener("abort", () => void session.close(abortErrorFor(signal.reason)), {
        once: true,
      });
      try {
        prepare?.(session);
        if (initialPrompt !== undefined) await session.send(initialPrompt);
      } catch (error) {
        await session.close();
        throw error;
      }
      return session;
    };
  }
}

/**
 * Starts a backend's CLI process and finishes its handshake before the prompt is known; run a
 * query or open a client on it later with {@link WarmSession.query} / {@link WarmSession.client}.
 * Invalid options fail here, before anything is spawned.
 *
 * @example
 * await using warm = await startup({ options: { cwd: repo, model: "sonnet" } });
 * // … later, when the user types:
 * for await (const message of warm.query("Fix the failing test")) console.log(message.type);
 */
export async function startup(params: StartupParams = {}): Promise<WarmSession> {
  const options = params.options ?? {};
  checkSignalOption(options.signal, "options.signal");
  const timeoutMs = checkDuration("timeoutMs", params.timeoutMs ?? DEFAULT_WARM_STARTUP_TIMEOUT_MS);
  const idleTimeoutMs = checkDuration("idleTimeoutMs", params.idleTimeoutMs ?? DEFAULT_WARM_IDLE_TIMEOUT_MS);
  const backend = await backendFor(options);
  if (!backend.capabilities.warmStart)
    throw new UnsupportedFeatureError("warm start (startup)", backend.name);
  const deadline = new AbortController();
  const timer = Number.isFinite(timeoutMs)
    ? setTimeout(
        () =>
          deadline.abort(
            new AbortError(`The warm ${backend.name} process did not start within ${timeoutMs} ms`),
          ),
        timeoutMs,
      )
    : undefined;
  try {
    const session = await backend.openSession({
      // The start-up deadline only bounds the start: the session keeps the caller's own signal.
      options: { ...options, signal: combineSignals(options.signal, deadline.signal) },
      oneShot: false,
    });
    return new WarmSession(session, options, backend.name, idleTimeoutMs);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `value` if it is a usable timeout (ms in (0, 2^31 − 1], or `Infinity`).
 *
 * @throws InvalidOptionsError naming `name` otherwise.
 */
export function checkDuration(name: string, value: number): number {
  if (value === Number.POSITIVE_INFINITY) return value;
  if (!Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS)
    throw new InvalidOptionsError([
      `${name}: must be a number of milliseconds in (0, ${MAX_TIMER_MS}] or Infinity`,
    ]);
  return value;
}
