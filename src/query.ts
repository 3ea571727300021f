/**
 * `query()`: one prompt in, a stream of messages out, with the session's control methods attached.
 */
import type {
  Backend,
  Capabilities,
  McpServerStatusEntry,
  RewindFilesOptions,
  ServerInfo,
  Session,
} from "./backends/backend.js";
import type {
  AccountInfo,
  AgentInfo,
  ContextUsage,
  InterruptResult,
  McpResourceContents,
  McpSetServersResult,
  ModelInfo,
  ReadFileResult,
  ReloadPluginsResult,
  SettingsFileSource,
  SlashCommand,
  UsageReport,
} from "./backends/claude/control-results.js";
import type { RewindFilesResult } from "./backends/claude/control-types.js";
import {
  ClaudeControls,
  type ReadFileOptions,
  type ReloadPluginsOptions,
} from "./backends/claude/controls.js";
import { backendFor, startLoading } from "./backends/registry.js";
import { AbortError, NotConnectedError, UnsupportedFeatureError } from "./errors.js";
import type { McpServerConfig } from "./mcp/config.js";
import type { Message } from "./messages.js";
import type { AgentOptions, ClaudeSettings, ThinkingDisplay } from "./options.js";
import type { PermissionMode } from "./permissions.js";
import { isStreamedPrompt, type Prompt, type StreamedUserInput } from "./prompt.js";
import { Subscription, type SubscriptionHooks } from "./session/message-hub.js";
import { checkSignalOption, combineSignals, throwIfAborted } from "./signals/abort.js";
import type { RunTelemetry } from "./telemetry/run.js";
import { activeContextSnapshot, prepareTelemetry, telemetryWanted } from "./telemetry/start.js";
import { collectTurn, type TurnResult } from "./turn.js";

/** Arguments of {@link query}. */
export interface QueryParams {
  prompt: Prompt;
  options?: AgentOptions;
}

/**
 * Where a query or client gets its session instead of opening a new one: a process started ahead
 * of time (`startup()`, `WarmPool`). Given the query's options, its combined abort signal, and the
 * initial prompt when it is one turn; resolves with a session that has sent that prompt.
 * @internal
 */
export type SessionSource = ((params: {
  options: AgentOptions;
  signal: AbortSignal;
  initialPrompt?: Prompt;
}) => Promise<Session>) & {
  /**
   * The query or client this source was given to ends without ever calling it (closed, aborted,
   * or failed before its start): the process it holds is released at once, not at its idle timeout.
   */
  discard?: () => void;
};

/**
 * A running query: consume it with `for await`; call the control methods while it runs.
 * Breaking out of the loop, `close()`, or `await using` ends the CLI process.
 */
export interface Query extends AsyncGenerator<Message, void, undefined>, QueryControls {
  /**
   * Interrupts the current turn (its `result` reports the interruption). Claude reports input still
   * queued behind the turn (`still_queued`), and drops it with `cancelQueued`.
   */
  interrupt(options?: { cancelQueued?: boolean }): Promise<InterruptResult | undefined>;
  /** Changes the permission mode for the rest of the session. */
  setPermissionMode(mode: PermissionMode): Promise<void>;
  /** Switches the model; `undefined` restores the default. */
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
  /** Restores files to their state at a user message (needs `enableFileCheckpointing`). */
  rewindFiles(userMessageId: string, options?: RewindFilesOptions): Promise<RewindFilesResult>;
  /** Connection status of the session's MCP servers. */
  mcpServerStatus(): Promise<McpServerStatusEntry[]>;
  /** The CLI's initialize response (commands, models, account, version, …). */
  serverInfo(): Promise<ServerInfo | undefined>;
  /**
   * Runs the query to its end and resolves with the answer collected: `{ messages, result, text,
   * error, errorKind, structuredOutput, usage }` (for a streamed prompt, `result` and `text` are
   * the last turn's). A failed turn resolves with `error` set; start-up and process failures reject
   * as they would end iteration. Use it instead of iterating, not alongside.
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
 * The Claude control methods of the official SDK's `Query`, on `Query` and `AgentSdkClient`
 * alike. Each needs the backend's `controlProtocol` capability; others throw
 * `UnsupportedFeatureError`. Each sends one control request (or reads the `initialize` answer) as
 * the official SDK 0.3.330 does.
 */
export interface QueryControls {
  /** Sets (or with `null` clears) the permission mode override of one MCP server's tools. */
  setMcpPermissionModeOverride(
    serverName: string,
    mode: "default" | "auto" | null,
  ): Promise<{ warning?: string }>;
  /** Applies settings to the session's flag-settings layer (`null` removes a key). */
  applyFlagSettings(settings: ClaudeSettings): Promise<void>;
  /** Writes settings to the local or user settings file. */
  updateSettings(source: SettingsFileSource, settings: Record<string, unknown>): Promise<void>;
  /** The CLI's initialize answer. */
  initializationResult(): Promise<Record<string, unknown>>;
  /** Sends the initialize request again and returns the new answer. */
  reinitialize(): Promise<Record<string, unknown>>;
  /** The slash commands (updated by `commands_changed`). */
  supportedCommands(): Promise<SlashCommand[]>;
  /** The models the session can switch to. */
  supportedModels(): Promise<ModelInfo[]>;
  /** The subagents available. */
  supportedAgents(): Promise<AgentInfo[]>;
  /** The account the CLI runs as. */
  accountInfo(): Promise<AccountInfo>;
  /** How the context window is used. */
  getContextUsage(options?: { detail?: "summary" | "full" }): Promise<ContextUsage>;
  /** Cost and rate limits (the official SDK's `usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET`). */
  getUsage(options?: { skipBehaviors?: boolean }): Promise<UsageReport>;
  /** A file as the CLI sees it, or `null` when it cannot be read. */
  readFile(path: string, options?: ReadFileOptions): Promise<ReadFileResult | null>;
  /** Reloads plugins (and their commands, agents, MCP servers). */
  reloadPlugins(options?: ReloadPluginsOptions): Promise<ReloadPluginsResult>;
  /** Reloads skills. */
  reloadSkills(): Promise<{ skills: SlashCommand[] }>;
  /** Reloads output styles. */
  reloadOutputStyles(): Promise<{ available_output_styles: string[] }>;
  /** Marks `path` as read at `mtime` (ms since the epoch). */
  seedReadState(path: string, mtime: number): Promise<void>;
  /**
   * Reconnects an MCP server: a stdio server is started again as a new process. Refused for an
   * unknown or disabled server (enable it with `toggleMcpServer` first) and for in-process servers.
   */
  reconnectMcpServer(serverName: string): Promise<void>;
  /**
   * Enables or disables an MCP server; `mcpServerStatus()` then reports it `disabled` (a stdio
   * server's process is stopped) or, enabled again, `connected` (started anew).
   */
  toggleMcpServer(serverName: string, enabled: boolean): Promise<void>;
  /**
   * Reads an MCP Apps UI resource (`ui://…`, typically a tool's `_meta.ui.resourceUri`) from an
   * MCP server the CLI connected to, without a model turn. Claude Code 2.1.330 refuses any other URI
   * scheme, in-process (SDK) servers (read those yourself), and unknown, disabled or unconnected
   * servers; its reason is the `ControlRequestError`'s message. The contents are third-party HTML:
   * render them sandboxed.
   */
  readMcpResource(serverName: string, uri: string): Promise<McpResourceContents>;
  /** Replaces the session's MCP servers (in-process ones included). */
  setMcpServers(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult>;
  /** Stops one background task by its `task_id`. */
  stopTask(taskId: string): Promise<void>;
  /**
   * Moves running foreground work (or only the tool call `toolUseId`) to the background, as Ctrl-B
   * does; the tool call returns at once and the turn goes on. With `toolUseId`: whether that task was
   * found and moved; without: `true` once the CLI acknowledged. Claude Code registers a foreground
   * Bash command as a task (`task_started` with `is_backgrounded: false`) only after it has run
   * for 2 s; before that there is nothing to move.
   */
  backgroundTasks(toolUseId?: string): Promise<boolean>;
}

/** The {@link QueryControls} methods, for objects that forward them. */
export const QUERY_CONTROL_METHODS = [
  "setMcpPermissionModeOverride",
  "applyFlagSettings",
  "updateSettings",
  "initializationResult",
  "reinitialize",
  "supportedCommands",
  "supportedModels",
  "supportedAgents",
  "accountInfo",
  "getContextUsage",
  "getUsage",
  "readFile",
  "reloadPlugins",
  "reloadSkills",
  "reloadOutputStyles",
  "seedReadState",
  "reconnectMcpServer",
  "toggleMcpServer",
  "readMcpResource",
  "setMcpServers",
  "stopTask",
  "backgroundTasks",
] as const satisfies readonly (keyof QueryControls)[];

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
export function query(params: QueryParams): Query {
  const options = params.options ?? {};
  checkSignalOption(options.signal);
  preload(options);
  return new QueryRun(params.prompt, options);
}

/**
 * Starts loading the backend a query will need as soon as the query exists, so the load overlaps
 * whatever the caller does before iterating. A failure is reported by the iteration itself.
 */
function preload(options: AgentOptions): void {
  if (typeof options.backend === "string" || options.backend === undefined)
    startLoading(options.backend).catch(() => undefined);
}

/** {@link query} on a session from `source` instead of a new process. @internal */
export function queryOn(source: SessionSource, params: QueryParams): Query {
  checkSignalOption(params.options?.signal);
  return new QueryRun(params.prompt, params.options ?? {}, source);
}

const DONE: IteratorResult<Message, void> = Object.freeze({ done: true, value: undefined });

// biome-ignore lint/correctness/noUnusedVariables: merged into the class below, whose prototype gets the QueryControls methods.
interface QueryRun extends QueryControls {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: see the interface above.
class QueryRun implements Query {
  /** The Claude control methods, gated on the backend's `controlProtocol` capability. */
  readonly controls = new ClaudeControls((feature) => this.gatedSession("controlProtocol", feature));
  private backend: Backend | undefined;
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
  private sessionPromise: Promise<Session> | undefined;
  private resolveSession!: (session: Session) => void;
  private rejectSession!: (error: unknown) => void;
  private closed = false;
  private closing: Promise<void> | undefined;
  private session: Session | undefined;
  /** Watches the CLI's exit once its input has ended; stopped when the query is closed. */
  private exitWatch: ExitWatch | undefined;
  /** Aborts a start-up still in progress when the query is closed: the CLI may never answer it. */
  private readonly startAbort = new AbortController();
  /** The run's spans and metrics, when it is instrumented (see `AgentOptions.telemetry`). */
  private telemetry: RunTelemetry | undefined;
  /** The OpenTelemetry context `query()` was called in: its spans' parent. */
  private readonly createdIn: unknown;

  constructor(
    private readonly prompt: Prompt,
    private readonly options: AgentOptions,
    private readonly source?: SessionSource,
  ) {
    this.createdIn = telemetryWanted(options) ? activeContextSnapshot() : undefined;
  }

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

  collect(): Promise<TurnResult> {
    return collectTurn(this);
  }

  /** Every call (also concurrent ones) resolves once the process is gone. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
    this.exitWatch?.stop();
    if (!this.sessionPromise) {
      // Never started: make sure a later next() does not spawn anything, and release a process
      // started ahead of time for it.
      this.ended = true;
      this.source?.discard?.();
      return;
    }
    if (!this.session) this.startAbort.abort(new AbortError("The query was closed while starting"));
    const session = await this.sessionPromise.catch(() => undefined);
    await session?.close();
  }

  async interrupt(options?: { cancelQueued?: boolean }): Promise<InterruptResult | undefined> {
    const session = await this.gatedSession("interrupt", "interrupt");
    if (this.backend?.capabilities.controlProtocol) return this.controls.interrupt(options);
    await session.interrupt();
    return undefined;
  }
  setPermissionMode(mode: PermissionMode): Promise<void> {
    return this.withSession((s) => s.setPermissionMode(mode));
  }
  setModel(model?: string): Promise<void> {
    return this.withSession((s) => s.setModel(model));
  }
  async setMaxThinkingTokens(
    tokens: number | null,
    display?: ThinkingDisplay | "highlights" | null,
  ): Promise<void> {
    if (display === undefined) return this.withSession((s) => s.setMaxThinkingTokens(tokens));
    return this.controls.setMaxThinkingTokens(tokens, display);
  }

  async streamInput(stream: AsyncIterable<StreamedUserInput>): Promise<void> {
    const session = await this.gatedSession("persistentSession", "streamInput");
    this.inputHolds += 1;
    try {
      await session.send(stream);
    } finally {
      this.inputHolds -= 1;
      if (this.inputHolds === 0) for (const wake of this.holdWaiters.splice(0)) wake();
    }
  }

  controlRequest(request: { subtype: string; [key: string]: unknown }): Promise<Record<string, unknown>> {
    return this.gatedSession("controlProtocol", "controlRequest").then((s) => s.controlRequest(request));
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

  /** The session, once `capability` is known to be there (else `UnsupportedFeatureError`). */
  private async gatedSession(capability: keyof Capabilities, feature: string): Promise<Session> {
    const session = await this.withSession(async (s) => s);
    if (this.backend && !this.backend.capabilities[capability]) {
      throw new UnsupportedFeatureError(feature, this.backend.name);
    }
    return session;
  }
  rewindFiles(userMessageId: string, options?: RewindFilesOptions): Promise<RewindFilesResult> {
    return this.withSession((s) => s.rewindFiles(userMessageId, options));
  }
  mcpServerStatus(): Promise<McpServerStatusEntry[]> {
    return this.withSession((s) => s.mcpServerStatus());
  }
  serverInfo(): Promise<ServerInfo | undefined> {
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
    let sourceCalled = false;
    try {
      throwIfAborted(this.options.signal);
      const backend = await backendFor(this.options);
      this.backend = backend;
      throwIfAborted(this.options.signal);
      const streamed = isStreamedPrompt(this.prompt);
      const signal = combineSignals(this.options.signal, this.startAbort.signal);
      const prepared = telemetryWanted(this.options)
        ? await prepareTelemetry(this.options, {
            backend: backend.name,
            initialPrompt: this.prompt,
            spawns: !this.source,
            oneTurn: !streamed,
            createdIn: this.createdIn,
          })
        : undefined;
      this.telemetry = prepared?.run;
      const options = prepared?.options ?? this.options;
      if (this.source) {
        sourceCalled = true;
        session = await this.source({
          options,
          signal,
          ...(streamed ? {} : { initialPrompt: this.prompt }),
        });
      } else {
        session = await backend.openSession({
          options: { ...options, signal },
          oneShot: !streamed,
          ...(streamed ? {} : { initialPrompt: this.prompt }),
        });
      }
    } catch (error) {
      this.ended = true;
      this.telemetry?.end(error);
      // Failed before taking its process (aborted, bad options): the process is released now.
      if (!sourceCalled) this.source?.discard?.();
      this.rejectSession(error);
      // Closed by the caller while starting: iteration just ends, as after `break`.
      if (this.closed) return;
      throw error;
    }
    this.session = session;
    this.resolveSession(session);
    if (this.closed) {
      this.ended = true;
      this.telemetry?.end();
      await session.close();
      return;
    }

    const streamed = isStreamedPrompt(this.prompt);
    const exitWatch = new ExitWatch(session, this.options.exitTimeoutMs ?? DEFAULT_EXIT_TIMEOUT_MS);
    this.exitWatch = exitWatch;
    let pumpError: unknown;
    if (streamed) {
      void session
        .send(this.prompt)
        .then(() => this.endInputWhenDone(session, exitWatch))
        .catch(async (error: unknown) => {
          pumpError = error;
          await session.close();
        });
    }
    let inputEnding = false;
    const hooks: Required<SubscriptionHooks<Message>> = {
      observe: (message) => {
        exitWatch.activity();
        this.telemetry?.observe(message);
        if (!streamed && !inputEnding && message.type === "result") {
          // One turn: input ends after its result, once the consumer asks for more (it may still
          // use the session's controls while handling the result), and once the background tasks
          // the CLI reported are done, so their follow-up turn still runs. If the process is
          // already gone, the stream's end reports why.
          this.afterNext = () => {
            this.afterNext = undefined;
            inputEnding = true;
            // Ending input waits for the control answers still queued; if it fails the CLI never
            // sees EOF, so the session ends now and the failure is what iteration reports.
            this.endInputWhenDone(session, exitWatch).catch(async (error: unknown) => {
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
        this.telemetry?.end(error ?? pumpError);
        return error ?? pumpError;
      },
    };
    const subscription = session.subscribe();
    this.subscription =
      subscription instanceof Subscription ? subscription.intercept(hooks) : withHooks(subscription, hooks);
  }
}

for (const name of QUERY_CONTROL_METHODS) {
  Object.defineProperty(QueryRun.prototype, name, {
    value(this: QueryRun, ...args: unknown[]) {
      return (this.controls[name] as (...a: unknown[]) => unknown)(...args);
    },
    writable: true,
    configurable: true,
  });
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
