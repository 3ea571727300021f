/**
 * A one-shot Codex run: one `codex exec --json` process, one prompt on stdin, one turn.
 */
import { JsonDecodeError, ProcessError, UnsupportedFeatureError } from "../../errors.js";
import type { Message } from "../../messages.js";
import type { AgentOptions } from "../../options.js";
import { missingResultError } from "../../session/missing-result.js";
import { malformedLineMessage, SessionLifecycle } from "../../session/session-lifecycle.js";
import { flowLimits } from "../../transport/read-flow.js";
import { readTransport } from "../../transport/read-transport.js";
import type { Transport } from "../../transport/transport.js";
import type { CodexMcpServerStatus, ServerInfo, Session } from "../backend.js";
import type { ExecEventMapper } from "./exec-events.js";
import type { TempFiles } from "./prompt-input.js";

/** What an exec session is made of. The transport is not yet connected. */
export interface CodexExecSessionParams {
  options: AgentOptions;
  transport: Transport;
  mapper: ExecEventMapper;
  /** The prompt text, written to stdin. */
  prompt: string;
  /** Temporary files of the run (images, output schema); removed when the session ends. */
  files?: TempFiles;
}

/** One `codex exec` process. Messages are available through {@link subscribe}. */
export class CodexExecSession implements Session {
  private readonly life: SessionLifecycle;
  private readonly options: AgentOptions;
  private readonly transport: Transport;
  private readonly mapper: ExecEventMapper;
  private readonly prompt: string;
  private readonly files: TempFiles | undefined;
  private readLoop: Promise<void> | undefined;
  private result: "none" | "success" | "error" = "none";
  private interrupted = false;
  private endError: unknown;

  constructor(params: CodexExecSessionParams) {
    this.options = params.options;
    this.transport = params.transport;
    this.mapper = params.mapper;
    this.prompt = params.prompt;
    this.files = params.files;
    this.life = new SessionLifecycle(
      params.options.signal,
      (error) => this.shutdown(error),
      flowLimits(params.options),
    );
    // Codex has no turn or token limit of its own: the SDK enforces them (its input counts cached tokens).
    this.life.enforceLimits(params.options, () => this.interrupt(), {}, true);
    // The one turn of a run: its prompt goes in at start().
    this.life.turnSent();
  }

  /** Spawns the process, writes the prompt and closes stdin (exec waits for EOF before it starts). */
  async start(): Promise<void> {
    this.options.signal?.throwIfAborted();
    await this.transport.connect();
    this.readLoop = this.consume();
    this.mapper.markStart();
    try {
      await writeText(this.transport, this.prompt);
      await this.transport.endInput();
    } catch (error) {
      // The process died before reading its prompt; its exit status says why.
      await this.readLoop;
      throw this.endError ?? error;
    }
  }

  async send(): Promise<void> {
    throw new UnsupportedFeatureError("more than one prompt in a one-shot query", "codex");
  }

  idle(): Promise<void> {
    return this.life.idle();
  }

  async endInput(): Promise<void> {
    // Already closed right after the prompt was written.
  }

  subscribe(opts: { untilResult?: boolean } = {}): AsyncGenerator<Message, void, undefined> {
    return this.life.subscribe(opts);
  }

  retainTurns(): void {
    this.life.retainTurns();
  }

  serverInfo(): ServerInfo | undefined {
    const threadId = this.mapper.threadId;
    return threadId === undefined ? undefined : { threadId, mode: "exec" };
  }

  /** Ends the run: the process is killed and the turn's result reports `terminalReason: "interrupted"`. */
  async interrupt(): Promise<void> {
    if (this.result !== "none" || this.life.isClosing || this.life.isEnded) return;
    this.interrupted = true;
    this.onResult(this.mapper.interruptedResult());
    await this.transport.close();
  }

  // A one-shot (codex exec) session lacks what the app-server has (`modelSwitching`, `mcpStatus`):
  // the capability allows them, so this session says why it cannot.
  async setModel(): Promise<void> {
    throw new UnsupportedFeatureError("setModel in a one-shot (codex exec) query", "codex");
  }
  async mcpServerStatus(): Promise<CodexMcpServerStatus[]> {
    throw new UnsupportedFeatureError("mcpServerStatus in a one-shot (codex exec) query", "codex");
  }

  /** The pid of the CLI process, while it runs. */
  pid(): number | undefined {
    return (this.transport as { pid?: number }).pid;
  }

  /** Ends the session and the process. With `reason`, readers get it as an error after draining. */
  close(reason?: unknown): Promise<void> {
    return this.life.close(reason);
  }

  private async shutdown(error: unknown): Promise<void> {
    try {
      await this.transport.close();
    } finally {
      await this.files?.remove();
      this.life.end(error);
    }
  }

  private async consume(): Promise<void> {
    let failure: unknown;
    try {
      await readTransport(
        this.transport,
        (item) => {
          if (this.interrupted) return;
          if (item instanceof JsonDecodeError) {
            this.life.push(malformedLineMessage(item));
            return;
          }
          // The common line first: one agent message, no array (see `agentMessage`).
          const agent = this.mapper.agentMessage(item);
          if (agent !== undefined) {
            this.life.push(agent);
            return;
          }
          const messages = this.mapper.map(item);
          // Indexed: this runs for every line, and an array iterator costs far more until V8 has
          // optimized the loop.
          for (let i = 0; i < messages.length; i++) {
            const message = messages[i]!;
            if (message.type === "result") this.onResult(message);
            else this.life.push(message);
          }
        },
        this.life.flow,
      );
    } catch (error) {
      failure = error;
    }
    this.onEnd(failure);
  }

  private onResult(message: Message): void {
    if (message.type !== "result" || this.result !== "none") return;
    this.result = message.isError ? "error" : "success";
    this.life.push(message);
    this.life.resultSeen();
  }

  private onEnd(failure: unknown): void {
    this.endError = failure;
    // exec exits 1 after a failed turn; the failure already reached the caller as `result.isError`.
    const alreadyReported = this.result === "error" && failure instanceof ProcessError;
    if (this.interrupted || alreadyReported) {
      this.life.finish();
      return;
    }
    // A clean exit without the turn's result is a truncated answer, not an answer.
    const missing = this.result === "none" ? missingResultError("codex exec", this.transport) : undefined;
    this.life.finish(failure ?? missing);
  }
}

/**
 * Writes the prompt byte for byte, as the official Codex SDK does (exec reads stdin to EOF and
 * sends it to the model as is). A transport that is only line-oriented gets one write per line,
 * so the text arrives with a final newline, as from `echo … | codex exec -`.
 */
async function writeText(transport: Transport, text: string): Promise<void> {
  if (transport.writeText) return transport.writeText(text);
  const lines = text.split("\n");
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  for (const line of lines) await transport.write(line);
}
