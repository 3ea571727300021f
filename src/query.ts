/**
 * `query()`: one prompt in, a stream of messages out, with the session's control methods attached.
 */
import type { RewindFilesOptions, Session } from "./backends/backend.js";
import { getBackend } from "./backends/registry.js";
import { AbortError, NotConnectedError } from "./errors.js";
import { combineSignals, throwIfAborted } from "./internal/abort.js";
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

class QueryRun implements Query {
  private generator: AsyncGenerator<Message, void, undefined> | undefined;
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
    return this.stream().next();
  }

  async return(): Promise<IteratorResult<Message, void>> {
    await this.close();
    return this.stream().return(undefined);
  }

  throw(error: unknown): Promise<IteratorResult<Message, void>> {
    return this.stream().throw(error);
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
      this.generator ??= emptyStream();
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

  private stream(): AsyncGenerator<Message, void, undefined> {
    if (!this.generator) {
      this.sessionPromise = new Promise<Session>((resolve, reject) => {
        this.resolveSession = resolve;
        this.rejectSession = reject;
      });
      // Control methods awaiting a session that failed to open get the same error as the iterator.
      this.sessionPromise.catch(() => undefined);
      this.generator = this.run();
    }
    return this.generator;
  }

  private async *run(): AsyncGenerator<Message, void, undefined> {
    let session: Session;
    try {
      throwIfAborted(this.options.signal);
      const backend = getBackend(this.options.backend);
      backend.validateOptions(this.options);
      const streamed = isStreamedPrompt(this.prompt);
      session = await backend.openSession({
        options: { ...this.options, signal: combineSignals(this.options.signal, this.startAbort.signal) },
        oneShot: !streamed,
        ...(streamed ? {} : { initialPrompt: this.prompt }),
      });
    } catch (error) {
      this.rejectSession(error);
      // Closed by the caller while starting: iteration just ends, as after `break`.
      if (this.closed) return;
      throw error;
    }
    this.session = session;
    this.resolveSession(session);
    if (this.closed) {
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
    try {
      for await (const message of session.subscribe()) {
        exitWatch.activity();
        yield message;
        if (!streamed && !exitWatch.isInputEnded && message.type === "result") {
          exitWatch.inputEnded();
          // If the process is already gone, the stream's end reports why.
          await session.endInput().catch(() => undefined);
        }
      }
      if (pumpError !== undefined) throw pumpError;
    } finally {
      exitWatch.stop();
      await session.close();
    }
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
    this.timer = setTimeout(() => void this.session.close(), this.timeoutMs);
  }
}

async function* emptyStream(): AsyncGenerator<Message, void, undefined> {}
