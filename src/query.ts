/**
 * `query()`: one prompt in, a stream of messages out, with the session's control methods attached.
 * A view on the session engine (`api/engine.ts`), which opens, checks, controls and closes the
 * session; what is the query's own is here: iteration, and when its input ends.
 */
import { CONTROL_CAPABILITY, type QueryControls, type WithControlsOf } from "./api/controls.js";
import { installClaudeControls, SessionEngine, type SessionSource } from "./api/engine.js";
import type { McpServerStatusEntry, RewindFilesOptions, ServerInfo, Session } from "./backends/backend.js";
import type { InterruptResult } from "./backends/claude/control-results.js";
import type { RewindFilesResult } from "./backends/claude/control-types.js";
import { startLoading } from "./backends/registry.js";
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
} from "./prompt.js";
import { Subscription, type SubscriptionHooks } from "./session/message-hub.js";
import { checkSignalOption } from "./signals/abort.js";
import { activeContextSnapshot, telemetryWanted } from "./telemetry/load.js";
import { collectTurn, type TurnResult } from "./turn.js";

export { QUERY_CONTROL_METHODS, type QueryControls } from "./api/controls.js";

/**
 * Arguments of {@link query}. `B` is the backend `options.backend` names (inferred; omitted: Claude).
 */
export interface QueryParams<B extends BackendKind = BackendKind> {
  prompt: Prompt;
  options?: AgentOptions & { backend?: B };
}

/**
 * A running query: consume it with `for await`; call the control methods while it runs.
 * Breaking out of the loop, `close()`, or `await using` ends the CLI process.
 *
 * `B` is its backend: where it is known statically (`query({ options: { backend: "codex" } })`),
 * a control that backend lacks is not there (a compile-time error); for a union of backends every
 * control some of them has is there, and throws `UnsupportedFeatureError` on one that lacks it.
 */
export type Query<B extends BackendKind = BackendKind> = WithControlsOf<FullQuery, B>;

/** A query with every control: the type of a Claude query, and of one whose backend is not known statically. */
export interface FullQuery extends AsyncGenerator<Message, void, undefined>, QueryControls {
  /**
   * Interrupts the current turn (its `result` reports the interruption). Claude reports input still
   * queued behind the turn (`still_queued`), and drops it with `cancelQueued`.
   */
  interrupt(options?: { cancelQueued?: boolean }): Promise<InterruptResult | undefined>;
  /** Changes the permission mode for the rest of the session (`runtimeConfigChanges`). */
  setPermissionMode(mode: PermissionMode): Promise<void>;
  /** Switches the model; `undefined` restores the default (`modelSwitching`). */
  setModel(model?: string): Promise<void>;
  /** Changes the thinking budget; `null` clears it. Claude also takes how thinking is shown. */
  setMaxThinkingTokens(tokens: number | null, display?: ThinkingDisplay | "highlights" | null): Promise<void>;
  /**
   * Sends more user input into the running query (turn by turn, like a streamed prompt). Input
   * stays open until this stream ends and its turns have their results, also for a string prompt.
   */
  streamInput(stream: AsyncIterable<StreamedUserInput>): Promise<void>;
  /** Sends a raw control request and returns the CLI's answer (Claude) — for subtypes not wrapped here. */
  controlRequest(request: { subtype: string; [key: string]: unknown }): Promise<Record<string, unknown>>;
  /** Restores files to their state at a user message (needs `enableFileCheckpointing`; Claude). */
  rewindFiles(userMessageId: string, options?: RewindFilesOptions): Promise<RewindFilesResult>;
  /** Connection status of the session's MCP servers (`mcpStatus`). */
  mcpServerStatus(): Promise<McpServerStatusEntry[]>;
  /** The CLI's initialize response (commands, models, account, version, …). */
  serverInfo(): Promise<ServerInfo | undefined>;
  /**
   * Runs the query to its end and resolves with the answer collected: `{ messages, result, text,
   * error, errorKind, structuredOutput, usage }` (for a streamed prompt, `result` and `text` are
   * the last turn's). A failed turn resolves with `error` set; start-up and process failures reject
   * as they would end iteration. Use it instead of iterating, not alongside; a second `collect()`
   * while one runs rejects with `TurnInProgressError`.
   *
   * @example
   * const turn = await query({ prompt: "What is 2 + 2?" }).collect();
   * console.log(turn.error ?? turn.text);
   */
  collect(): Promise<TurnResult>;
  /** Ends the query now: the process (group) is terminated and iteration finishes. */
  close(): Promise<void>;
  /** The pid of the CLI process, once iteration has spawned it (undefined for custom transports). */
  readonly pid: number | undefined;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Runs an agent on a prompt and streams its messages.
 *
 * Construction is synchronous and lazy: nothing is validated or spawned until iteration starts;
 * invalid options then surface as the first error of the iteration. Only `signal` is checked at
 * once: anything but an `AbortSignal` throws `InvalidOptionsError` here.
 *
 * - A `string` or content-block prompt is one turn: input closes after the first `result`.
 * - An `AsyncIterable` prompt keeps the session open until the iterable ends and every turn has
 *   its `result`; background tasks keep running and every later `result` is delivered.
 *
 * @example
 * for await (const message of query({ prompt: "What is 2 + 2?" })) {
 *   if (message.type === "result") console.log(message.result);
 * }
 */
export function query<B extends BackendKind = "claude">(params: QueryParams<B>): Query<B> {
  const options = params.options ?? {};
  checkSignalOption(options.signal);
  preload(options);
  return new QueryRun(params.prompt, new SessionEngine(options)) as unknown as Query<B>;
}

/**
 * Starts loading the backend a query will need as soon as the query exists, so the load overlaps
 * whatever the caller does before iterating. A failure is reported by the iteration itself.
 */
function preload(options: AgentOptions): void {
  if (typeof options.backend === "string" || options.backend === undefined)
    startLoading(options.backend).catch(() => undefined);
}

/**
 * Lets the process of a query made by {@link query} keep the host alive, or not: off while its turn
 * waits, parked, for an answer that may never come (see ai-sdk/approvals.ts). No-op on anything else.
 * @internal
 */
export function setQueryKeepAlive(q: Query, keep: boolean): void {
  if (q instanceof QueryRun) QueryRun.setKeepAlive(q, keep);
}

/** {@link query} on a session from `source` instead of a new process. @internal */
export function queryOn(source: SessionSource, params: QueryParams): FullQuery {
  return new QueryRun(params.prompt, new SessionEngine(params.options ?? {}, source));
}

const DONE: IteratorResult<Message, void> = Object.freeze({ done: true, value: undefined });

// biome-ignore lint/correctness/noUnusedVariables: merged into the class below, whose prototype gets the QueryControls methods.
interface QueryRun extends QueryControls {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: see the interface above.
class QueryRun implements FullQuery {
  static {
    installClaudeControls(QueryRun.prototype, (run) => run.engine);
  }

  /** `streamInput()` calls still writing: input stays open until they are done. */
  private inputHolds = 0;
  private holdWaiters: (() => void)[] = [];

  /** Set once the session is open: `next()` is the subscription's own, with no layer in between. */
  private subscription: AsyncIterator<Message, void, undefined> | undefined;
  /** Settles when the session is open and subscribed (or failed to open). */
  private opening: Promise<void> | undefined;
  /** Runs at the next `next()` call (the consumer is done with the message before). */
  private afterNext: (() => void) | undefined;
  /** Iteration is over without a subscription: the start failed, or the query was closed first. */
  private ended = false;
  /** A failed start is reported to one `next()`; later calls get done, as from a generator. */
  private startErrorReported = false;
  private closing: Promise<void> | undefined;
  /** Watches the CLI's exit once its input has ended; stopped when the query is closed. */
  private exitWatch: ExitWatch | undefined;
  /** The OpenTelemetry context `query()` was called in: its spans' parent. */
  private readonly createdIn: unknown;

  constructor(
    private readonly prompt: Prompt,
    /** Opens, gates, controls and closes the session. */
    private readonly engine: SessionEngine,
  ) {
    this.createdIn = telemetryWanted(engine.options) ? activeContextSnapshot() : undefined;
  }

  get pid(): number | undefined {
    return this.engine.pid;
  }

  /** See {@link setQueryKeepAlive}. */
  static setKeepAlive(run: QueryRun, keep: boolean): void {
    run.engine.setKeepAlive(keep);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<Message, void>> {
    const subscription = this.subscription;
    if (subscription) {
      this.afterNext?.();
      return subscription.next();
    }
    if (this.ended) return Promise.resolve(DONE);
    return this.start().then(
      () => this.next(),
      (error: unknown) => {
        if (this.startErrorReported) return DONE;
        this.startErrorReported = true;
        throw error;
      },
    );
  }

  async return(): Promise<IteratorResult<Message, void>> {
    await this.close();
    if (this.subscription) return this.subscription.return?.() ?? DONE;
    this.ended = true;
    return DONE;
  }

  async throw(error: unknown): Promise<IteratorResult<Message, void>> {
    if (this.subscription?.throw) return this.subscription.throw(error);
    await this.close();
    this.ended = true;
    throw error;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async collect(): Promise<TurnResult> {
    const done = this.engine.beginTurn("collect()");
    try {
      return await collectTurn(this);
    } finally {
      done();
    }
  }

  /** Every call (also concurrent ones) resolves once the process is gone. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.exitWatch?.stop();
    // Never started: a later next() must not spawn anything.
    if (!this.opening) this.ended = true;
    await this.engine.close();
  }

  interrupt(options?: { cancelQueued?: boolean }): Promise<InterruptResult | undefined> {
    return this.engine.interrupt(options);
  }
  setPermissionMode(mode: PermissionMode): Promise<void> {
    return this.engine.setPermissionMode(mode);
  }
  setModel(model?: string): Promise<void> {
    return this.engine.setModel(model);
  }
  setMaxThinkingTokens(
    tokens: number | null,
    display?: ThinkingDisplay | "highlights" | null,
  ): Promise<void> {
    return this.engine.setMaxThinkingTokens(tokens, display);
  }
  rewindFiles(userMessageId: string, options?: RewindFilesOptions): Promise<RewindFilesResult> {
    return this.engine.rewindFiles(userMessageId, options);
  }
  mcpServerStatus(): Promise<McpServerStatusEntry[]> {
    return this.engine.mcpServerStatus("mcpServerStatus");
  }
  serverInfo(): Promise<ServerInfo | undefined> {
    return this.engine.serverInfo();
  }
  controlRequest(request: { subtype: string; [key: string]: unknown }): Promise<Record<string, unknown>> {
    return this.engine.controlRequest(request);
  }

  async streamInput(stream: AsyncIterable<StreamedUserInput>): Promise<void> {
    checkInputStream(stream);
    const session = await this.engine.session(CONTROL_CAPABILITY.streamInput, "streamInput");
    this.inputHolds += 1;
    try {
      await session.send(stream);
    } catch (error) {
      throw promptStreamError(error);
    } finally {
      this.inputHolds -= 1;
      if (this.inputHolds === 0) for (const wake of this.holdWaiters.splice(0)) wake();
    }
  }

  /**
   * Ends the CLI's input once every turn has its result, the background tasks the CLI reported are
   * done, and no `streamInput()` is still writing.
   */
  private async endInputWhenDone(session: Session, exitWatch: ExitWatch): Promise<void> {
    for (;;) {
      if (this.inputHolds > 0) await new Promise<void>((resolve) => this.holdWaiters.push(resolve));
      await session.idle();
      if (this.inputHolds === 0) break;
    }
    exitWatch.inputEnded();
    await session.endInput();
  }

  /** Starts the session, once. Rejects with the start error, unless the query was closed meanwhile. */
  private start(): Promise<void> {
    this.opening ??= this.open();
    return this.opening;
  }

  private async open(): Promise<void> {
    let streamed: boolean;
    let session: Session;
    try {
      checkPrompt(this.prompt);
      streamed = isStreamedPrompt(this.prompt);
      session = await this.engine.open({
        oneShot: !streamed,
        ...(streamed ? {} : { initialPrompt: this.prompt }),
        telemetry: { initialPrompt: this.prompt, oneTurn: !streamed, createdIn: this.createdIn },
      });
    } catch (error) {
      this.ended = true;
      // Closed by the caller while starting: iteration just ends, as after `break`.
      if (this.engine.isClosed) return;
      throw error;
    }
    if (this.engine.isClosed) {
      this.ended = true;
      this.engine.telemetry?.end();
      return;
    }

    const exitTimeoutMs = this.engine.options.exitTimeoutMs ?? DEFAULT_EXIT_TIMEOUT_MS;
    const exitWatch = new ExitWatch(session, exitTimeoutMs);
    let stopAbandonWatch = () => {};
    this.exitWatch = exitWatch;
    let pumpError: unknown;
    if (streamed) {
      void session
        .send(this.prompt)
        .then(() => this.endInputWhenDone(session, exitWatch))
        .catch(async (error: unknown) => {
          pumpError = promptStreamError(error);
          await session.close();
        });
    }
    let inputEnding = false;
    const hooks: Required<SubscriptionHooks<Message>> = {
      observe: (message) => {
        exitWatch.activity();
        this.engine.telemetry?.observe(message);
        if (!streamed && !inputEnding && message.type === "result") {
          // One turn: input ends after its result, once the consumer asks for more (it may still
          // use the session's controls while handling the result), and once the background tasks
          // the CLI reported are done, so their follow-up turn still runs. If the process is
          // already gone, the stream's end reports why.
          this.afterNext = () => {
            this.afterNext = undefined;
            stopAbandonWatch();
            inputEnding = true;
            // Ending input waits for the control answers still queued; if it fails the CLI never
            // sees EOF, so the session ends now and the failure is what iteration reports.
            this.endInputWhenDone(session, exitWatch).catch(async (error: unknown) => {
              pumpError ??= error;
              await session.close();
            });
          };
          // A `next()` already waiting (calls made before this result came) is that request for
          // more; a consumer that never asks again (it dropped the query) gets its input ended after
          // the exit timeout (none with `exitTimeoutMs: Infinity`), so the CLI and the host it keeps
          // alive are not held for good.
          if (subscription instanceof Subscription && subscription.waiting > 1)
            queueMicrotask(() => this.afterNext?.());
          if (Number.isFinite(exitTimeoutMs)) {
            const timer = setTimeout(() => this.afterNext?.(), exitTimeoutMs);
            timer.unref();
            stopAbandonWatch = () => clearTimeout(timer);
          }
        }
      },
      // Iteration ends once the process is gone, with the stream's failure, else the prompt's.
      finish: async (error) => {
        exitWatch.stop();
        stopAbandonWatch();
        await session.close();
        this.engine.telemetry?.end(error ?? pumpError);
        return error ?? pumpError;
      },
    };
    const subscription = session.subscribe();
    this.subscription =
      subscription instanceof Subscription ? subscription.intercept(hooks) : withHooks(subscription, hooks);
  }
}

/** {@link SubscriptionHooks} around a subscription that cannot take them itself. */
async function* withHooks<T>(
  source: AsyncIterable<T>,
  hooks: Required<SubscriptionHooks<T>>,
): AsyncGenerator<T, void, undefined> {
  let failure: unknown;
  let ended = false;
  try {
    for await (const item of source) {
      hooks.observe(item);
      yield item;
    }
    ended = true;
  } catch (error) {
    failure = error;
    ended = true;
  } finally {
    const reported = await hooks.finish(failure);
    // biome-ignore lint/correctness/noUnsafeFinally: the failure replaces the normal end, as intended.
    if (ended && reported !== undefined) throw reported;
  }
}

/** How long a CLI may stay silent after its input ended before it is terminated. */
export const DEFAULT_EXIT_TIMEOUT_MS = 30_000;

/**
 * Once input has ended the CLI should finish and exit. If it goes silent instead (a grandchild
 * holding its stdout, a hung shutdown), close the session so iteration finishes and no process is
 * left behind.
 */
class ExitWatch {
  private timer: NodeJS.Timeout | undefined;
  private ended = false;
  /** Set by {@link stop}: the session is closed or finished, nothing is armed again. */
  private stopped = false;

  constructor(
    private readonly session: Session,
    private readonly timeoutMs: number,
  ) {}

  inputEnded(): void {
    this.ended = true;
    this.arm();
  }

  activity(): void {
    if (this.ended) this.arm();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private arm(): void {
    clearTimeout(this.timer);
    // A closed session has nothing left to watch: input that ends after close() (a streamed
    // prompt released by the close itself) must not start a timer that outlives the session.
    if (this.stopped || this.session.isAlive?.() === false) return;
    // `exitTimeoutMs: Infinity`: no limit.
    if (!Number.isFinite(this.timeoutMs)) return;
    this.timer = setTimeout(() => void this.session.close(), this.timeoutMs);
    // The CLI's own process keeps the host alive while it runs; the watch on it need not.
    this.timer.unref();
  }
}
