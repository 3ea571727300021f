/**
 * `query()`: one prompt in, a stream of messages out, with the session's control methods attached.
 */
import type { RewindFilesOptions, Session } from "./backends/backend.js";
import { backendFor } from "./backends/registry.js";
import { AbortError, NotConnectedError } from "./errors.js";
import { combineSignals, throwIfAborted } from "./internal/abort.js";
import { Subscription, type SubscriptionHooks } from "./internal/message-hub.js";
import type { Message } from "./messages.js";
import type { AgentOptions } from "./options.js";
import type { PermissionMode } from "./permissions.js";
import { isStreamedPrompt, type Prompt } from "./prompt.js";

/** Arguments of {@link query}. */
export interface QueryParams {
  prompt: Prompt;
  options?: AgentOptions;
}

/**
 * A running query: consume it with `for await`; call the control methods while it runs.
 * Breaking out of the loop, `close()`, or `await using` ends the CLI process.
 */
export interface Query extends AsyncGenerator<Message, void, undefined> {
  /** Interrupts the current turn (its `result` reports the interruption). */
  interrupt(): Promise<void>;
  /** Changes the permission mode for the rest of the session. */
  setPermissionMode(mode: PermissionMode): Promise<void>;
  /** Switches the model; `undefined` restores the default. */
  setModel(model?: string): Promise<void>;
  /** Changes the thinking budget; `null` clears it. */
  setMaxThinkingTokens(tokens: number | null): Promise<void>;
  /** Restores files to their state at a user message (needs `enableFileCheckpointing`). */
  rewindFiles(userMessageId: string, options?: RewindFilesOptions): Promise<Record<string, unknown>>;
  /** Connection status of the session's MCP servers. */
  mcpServerStatus(): Promise<unknown[]>;
  /** The CLI's initialize response (commands, models, account, version, …). */
  serverInfo(): Promise<Record<string, unknown> | undefined>;
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
 * invalid options then surface as the first error of the iteration.
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
export function query(params: QueryParams): Query {
  return new QueryRun(params.prompt, params.options ?? {});
}

const DONE: IteratorResult<Message, void> = Object.freeze({ done: true, value: undefined });

class QueryRun implements Query {
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
  private sessionPromise: Promise<Session> | undefined;
  private resolveSession!: (session: Session) => void;
  private rejectSession!: (error: unknown) => void;
  private closed = false;
  private closing: Promise<void> | undefined;
  private session: Session | undefined;
  /** Aborts a start-up still in progress when the query is closed: the CLI may never answer it. */
  private readonly startAbort = new AbortController();

  constructor(
    private readonly prompt: Prompt,
    private readonly options: AgentOptions,
  ) {}

  get pid(): number | undefined {
    return this.session?.pid?.();
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

  /** Every call (also concurrent ones) resolves once the process is gone. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
    if (!this.sessionPromise) {
      // Never started: make sure a later next() does not spawn anything.
      this.ended = true;
      return;
    }
    if (!this.session) this.startAbort.abort(new AbortError("The query was closed while starting"));
    const session = await this.sessionPromise.catch(() => undefined);
    await session?.close();
  }

  interrupt(): Promise<void> {
    return this.withSession((s) => s.interrupt());
  }
  setPermissionMode(mode: PermissionMode): Promise<void> {
    return this.withSession((s) => s.setPermissionMode(mode));
  }
  setModel(model?: string): Promise<void> {
    return this.withSession((s) => s.setModel(model));
  }
  setMaxThinkingTokens(tokens: number | null): Promise<void> {
    return this.withSession((s) => s.setMaxThinkingTokens(tokens));
  }
  rewindFiles(userMessageId: string, options?: RewindFilesOptions): Promise<Record<string, unknown>> {
    return this.withSession((s) => s.rewindFiles(userMessageId, options));
  }
  mcpServerStatus(): Promise<unknown[]> {
    return this.withSession((s) => s.mcpServerStatus());
  }
  serverInfo(): Promise<Record<string, unknown> | undefined> {
    return this.withSession(async (s) => s.serverInfo());
  }

  private async withSession<T>(action: (session: Session) => Promise<T>): Promise<T> {
    if (!this.sessionPromise) {
      throw new NotConnectedError(
        "The query has not started: begin iterating it before calling control methods",
      );
    }
    return action(await this.sessionPromise);
  }

  /** Starts the session, once. Rejects with the start error, unless the query was closed meanwhile. */
  private start(): Promise<void> {
    if (!this.opening) {
      this.sessionPromise = new Promise<Session>((resolve, reject) => {
        this.resolveSession = resolve;
        this.rejectSession = reject;
      });
      // Control methods awaiting a session that failed to open get the same error as the iterator.
      this.sessionPromise.catch(() => undefined);
      this.opening = this.open();
    }
    return this.opening;
  }

  private async open(): Promise<void> {
    let session: Session;
    try {
      throwIfAborted(this.options.signal);
      const backend = await backendFor(this.options);
      throwIfAborted(this.options.signal);
      backend.validateOptions(this.options);
      const streamed = isStreamedPrompt(this.prompt);
      session = await backend.openSession({
        options: { ...this.options, signal: combineSignals(this.options.signal, this.startAbort.signal) },
        oneShot: !streamed,
        ...(streamed ? {} : { initialPrompt: this.prompt }),
      });
    } catch (error) {
      this.ended = true;
      this.rejectSession(error);
      // Closed by the caller while starting: iteration just ends, as after `break`.
      if (this.closed) return;
      throw error;
    }
    this.session = session;
    this.resolveSession(session);
    if (this.closed) {
      this.ended = true;
      await session.close();
      return;
    }

    const streamed = isStreamedPrompt(this.prompt);
    const exitWatch = new ExitWatch(session, this.options.exitTimeoutMs ?? DEFAULT_EXIT_TIMEOUT_MS);
    let pumpError: unknown;
    if (streamed) {
      void session
        .send(this.prompt)
        .then(() => session.idle())
        .then(() => {
          exitWatch.inputEnded();
          return session.endInput();
        })
        .catch(async (error: unknown) => {
          pumpError = error;
          await session.close();
        });
    }
    const hooks: Required<SubscriptionHooks<Message>> = {
      observe: (message) => {
        exitWatch.activity();
        if (!streamed && !exitWatch.isInputEnded && message.type === "result") {
          // One turn: input ends after its result, once the consumer asks for more (it may still
          // use the session's controls while handling the result). If the process is already gone,
          // the stream's end reports why.
          this.afterNext = () => {
            this.afterNext = undefined;
            exitWatch.inputEnded();
            // Ending input waits for the control answers still queued; if it fails the CLI never
            // sees EOF, so the session ends now and the failure is what iteration reports.
            session.endInput().catch(async (error: unknown) => {
              pumpError ??= error;
              await session.close();
            });
          };
        }
      },
      // Iteration ends once the process is gone, with the stream's failure, else the prompt's.
      finish: async (error) => {
        exitWatch.stop();
        await session.close();
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

  constructor(
    private readonly session: Session,
    private readonly timeoutMs: number,
  ) {}

  get isInputEnded(): boolean {
    return this.ended;
  }

  inputEnded(): void {
    this.ended = true;
    this.arm();
  }

  activity(): void {
    if (this.ended) this.arm();
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private arm(): void {
    clearTimeout(this.timer);
    // `exitTimeoutMs: Infinity`: no limit.
    if (Number.isFinite(this.timeoutMs))
      this.timer = setTimeout(() => void this.session.close(), this.timeoutMs);
  }
}
