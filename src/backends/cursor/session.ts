/**
 * A Cursor Agent session: one `cursor-agent --print` process per turn, chained by chat id.
 *
 * Cursor has no stdin protocol, so a "session" is a queue of turns. The first turn starts a new
 * chat (or continues `options.resume`); its `system/init` names the chat, and every later turn is
 * a new process with `--resume <chatId>`. Turns run one at a time: a turn sent while another runs
 * waits until that one's process has exited. `interrupt()` ends the running turn's process (how
 * Cursor is interrupted) and delivers a `result` marked as interrupted.
 */
import { CliConnectionError, JsonDecodeError, ProcessError } from "../../errors.js";
import type { Message, RawObject } from "../../messages.js";
import type { AgentOptions } from "../../options.js";
import { describeExit } from "../../process/child.js";
import { checkStreamedInput, isStreamedPrompt, type Prompt } from "../../prompt.js";
import { malformedLineMessage, SessionLifecycle } from "../../session/session-lifecycle.js";
import { flowLimits } from "../../transport/read-flow.js";
import { readTransport } from "../../transport/read-transport.js";
import type { SubprocessTransport } from "../../transport/subprocess.js";
import type { ServerInfo, Session } from "../backend.js";
import { buildCursorArgs, cursorPromptText, wantsPartialOutput } from "./command.js";
import { CursorTurnParser, interruptedResult, resultFromError } from "./message-parser.js";

/**
 * How long a turn's process may keep running after its `result` before it is terminated, unless
 * `options.exitTimeoutMs` says otherwise. The CLI sometimes never exits in print mode although its
 * work is done (cursor/cursor#3588); the result is already delivered, and the next turn must not
 * wait forever.
 */
export const DEFAULT_EXIT_AFTER_RESULT_MS = 5_000;

/** What a session needs besides the options. */
export interface CursorSessionParams {
  options: AgentOptions;
  /** Creates (does not connect) the process of one turn from its argv. */
  spawnTurn: (args: string[]) => SubprocessTransport;
  /** The executable and its `--version`, reported by `serverInfo()`. */
  cli: { path: string; version: string | undefined };
}

interface Turn {
  readonly transport: SubprocessTransport;
  readonly parser: CursorTurnParser;
  readonly startedAt: number;
  interrupted: boolean;
  /** Settles once the process is gone and every message of the turn is delivered. Never rejects. */
  done: Promise<void>;
  exitTimer?: NodeJS.Timeout;
}

/** A spawn-per-turn Cursor Agent conversation. */
export class CursorSession implements Session {
  private readonly life: SessionLifecycle;
  private readonly options: AgentOptions;
  private readonly spawnTurn: (args: string[]) => SubprocessTransport;
  private readonly cli: { path: string; version: string | undefined };
  private readonly exitAfterResultMs: number;
  private readonly partialOutput: boolean;
  /** The chat every next turn resumes; from `options.resume`, then from the CLI's events. */
  private chatId: string | undefined;
  private lastInit: RawObject | undefined;
  private running: Turn | undefined;
  private readonly queue: string[] = [];
  private inputEnded = false;

  constructor(params: CursorSessionParams) {
    this.options = params.options;
    this.spawnTurn = params.spawnTurn;
    this.cli = params.cli;
    this.exitAfterResultMs = params.options.exitTimeoutMs ?? DEFAULT_EXIT_AFTER_RESULT_MS;
    this.partialOutput = wantsPartialOutput(params.options);
    this.chatId = params.options.resume;
    this.life = new SessionLifecycle(
      params.options.signal,
      (error) => this.shutdown(error),
      flowLimits(params.options),
    );
    // Cursor has no turn, token or time limit: the SDK enforces them.
    this.life.enforceLimits(params.options, () => this.interrupt());
  }

  /** The chat id the next turn resumes (`undefined` until the first `system/init`, unless resuming). */
  get sessionId(): string | undefined {
    return this.chatId;
  }

  /**
   * No handshake exists: the executable, its version, the chat id, and the last `system/init`
   * event (model, cwd, apiKeySource, …) once a turn has started.
   */
  serverInfo(): ServerInfo | undefined {
    return {
      backend: "cursor",
      cliPath: this.cli.path,
      cliVersion: this.cli.version,
      sessionId: this.chatId,
      ...(this.lastInit ? { init: this.lastInit } : {}),
    };
  }

  /**
   * Queues one turn per prompt item. Resolves once the turn's process has started, or at once
   * when it has to wait behind a running turn. `sessionId` is not used: Cursor has one chat per
   * session, continued with `--resume`.
   *
   * @throws UnsupportedFeatureError for image (non-text) prompt blocks, before anything is spawned.
   */
  async send(prompt: Prompt, _sessionId?: string): Promise<void> {
    if (!isStreamedPrompt(prompt)) return this.enqueue(cursorPromptText(prompt));
    for await (const item of prompt) {
      if (this.life.isClosing || this.life.isEnded) return;
      checkStreamedInput(item);
      await this.enqueue(cursorPromptText(item));
    }
  }

  /** Resolves once every turn sent so far has its `result`, or the session ended. */
  idle(): Promise<void> {
    return this.life.idle();
  }

  /** `Session.runningTurnSettled`: what `AgentSdkClient` waits on after `interrupt()` before it sends. */
  runningTurnSettled(): Promise<void> | undefined {
    return this.life.runningTurnSettled();
  }

  /** No more turns: the session ends once the running and queued turns are done. */
  async endInput(): Promise<void> {
    this.inputEnded = true;
    if (!this.running && this.queue.length === 0) this.finish();
  }

  subscribe(opts: { untilResult?: boolean } = {}): AsyncGenerator<Message, void, undefined> {
    return this.life.subscribe(opts);
  }

  retainTurns(): void {
    this.life.retainTurns();
  }

  /**
   * Ends the running turn's process; its `result` is then `isError` with
   * `terminalReason: "interrupted"`. Resolves once that result is delivered. Queued turns still
   * run afterwards. Does nothing when no turn runs or the running one already has its result.
   */
  async interrupt(): Promise<void> {
    const turn = this.running;
    if (!turn || turn.parser.sawResult) return;
    turn.interrupted = true;
    await turn.transport.close();
    await turn.done;
  }

  /** The pid of the running turn's process; `undefined` between turns. */
  pid(): number | undefined {
    return this.running?.transport.pid;
  }

  close(reason?: unknown): Promise<void> {
    return this.life.close(reason);
  }

  private async shutdown(error: unknown): Promise<void> {
    this.queue.length = 0;
    const turn = this.running;
    try {
      await turn?.transport.close();
      await turn?.done;
    } finally {
      this.running = undefined;
      this.life.end(error);
    }
  }

  private enqueue(prompt: string): Promise<void> {
    if (this.life.isClosing || this.life.isEnded) {
      return Promise.reject(
        new CliConnectionError("The cursor session has ended; open a new one to continue"),
      );
    }
    if (this.inputEnded) {
      return Promise.reject(new CliConnectionError("Cannot send to the cursor session: its input was ended"));
    }
    this.life.turnSent();
    if (this.running) {
      this.queue.push(prompt);
      return Promise.resolve();
    }
    return this.start(prompt);
  }

  /** Spawns one turn. The returned promise is the spawn; the turn's end is handled in `done`. */
  private start(prompt: string): Promise<void> {
    const args = buildCursorArgs(this.options, {
      prompt,
      ...(this.chatId !== undefined ? { resume: this.chatId } : {}),
    });
    const turn: Turn = {
      transport: this.spawnTurn(args),
      parser: new CursorTurnParser({ partialOutput: this.partialOutput }),
      startedAt: Date.now(),
      interrupted: false,
      done: Promise.resolve(),
    };
    this.running = turn;
    const spawned = turn.transport.connect();
    turn.done = spawned.then(
      () => this.consume(turn),
      (error: unknown) => this.fail(error),
    );
    return spawned;
  }

  private async consume(turn: Turn): Promise<void> {
    let failure: unknown;
    try {
      await readTransport(
        turn.transport,
        (item) => {
          if (item instanceof JsonDecodeError) {
            // Cursor prints some errors as plain text; they are reported, and the turn goes on.
            this.deliver(malformedLineMessage(item));
            return;
          }
          for (const message of turn.parser.parse(item)) this.deliver(message);
          // `exitTimeoutMs: Infinity`: no limit.
          if (
            turn.parser.sawResult &&
            turn.exitTimer === undefined &&
            Number.isFinite(this.exitAfterResultMs)
          ) {
            turn.exitTimer = setTimeout(() => void turn.transport.close(), this.exitAfterResultMs);
          }
        },
        this.life.flow,
      );
    } catch (error) {
      failure = error;
    } finally {
      clearTimeout(turn.exitTimer);
    }
    for (const message of turn.parser.finish()) this.deliver(message);
    await this.endTurn(turn, failure);
  }

  private async endTurn(turn: Turn, failure: unknown): Promise<void> {
    if (this.life.isClosing) return; // close() ends the stream itself, with the right reason.
    const { parser } = turn;
    if (!parser.sawResult) {
      const ctx = { sessionId: parser.sessionId ?? this.chatId, durationMs: Date.now() - turn.startedAt };
      if (turn.interrupted) {
        this.deliver(interruptedResult(ctx));
      } else if (parser.pendingError) {
        // The CLI explained itself with an `error` event; that is the turn's outcome.
        this.deliver(resultFromError(parser.pendingError, ctx));
      } else {
        this.fail(failure ?? (await exitedWithoutResult(turn.transport)));
        return;
      }
    } else if (failure !== undefined && !(failure instanceof ProcessError)) {
      // A non-zero exit after a result is common and harmless; a corrupt stream is not.
      this.fail(failure);
      return;
    }
    this.running = undefined;
    const next = this.queue.shift();
    // A failed spawn ends the session through `done`; nobody awaits this start.
    if (next !== undefined) this.start(next).catch(() => undefined);
    else if (this.inputEnded) this.finish();
  }

  private deliver(message: Message): void {
    if (message.sessionId) this.chatId = message.sessionId;
    if (message.type === "system" && message.subtype === "init") this.lastInit = message.raw;
    this.life.push(message);
    if (message.type === "result") this.life.resultSeen();
  }

  /** The session ended normally: every turn is done and no more will come. */
  private finish(): void {
    this.life.finish();
  }

  /** A turn failed without a result: the session ends and readers get `error`. */
  private fail(error: unknown): void {
    if (this.life.isClosing) return;
    this.queue.length = 0;
    this.life.finish(error);
  }
}

async function exitedWithoutResult(transport: SubprocessTransport): Promise<ProcessError> {
  const info = (await transport.exited) ?? { code: null, signal: null };
  return new ProcessError(`cursor-agent ended the turn without a result (${describeExit(info)})`, {
    exitCode: info.code,
    signal: info.signal,
    stderrTail: transport.stderrTail(),
  });
}
