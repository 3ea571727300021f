/**
 * A conversation with Codex, as the official SDK's `Thread`: `runStreamed()` yields the turn's
 * events as `codex exec --experimental-json` writes them, `run()` collects them into
 * `{ items, finalResponse, usage }`. Additions: `interrupt()` ends the running turn.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentSdkError, InvalidOptionsError } from "../../errors.js";
import { checkSignalOption, combineSignals } from "../../signals/abort.js";
import { runAppServerTurn } from "./app-server-turn.js";
import type { ThreadEvent, ThreadItem, Usage } from "./events.js";
import { execTurnArgs, threadIdIssue, threadOptionIssues } from "./exec-spec.js";
import { runExecTurn } from "./exec-turn.js";
import type { CodexOptions, Input, ThreadOptions, TurnOptions } from "./options.js";

/** A completed turn. */
export interface Turn {
  items: ThreadItem[];
  /** The last agent message's text (JSON when an `outputSchema` was given). */
  finalResponse: string;
  usage: Usage | null;
}
/** Alias of {@link Turn}, the result of `run()`. */
export type RunResult = Turn;

/** A turn being streamed. */
export interface StreamedTurn {
  events: AsyncGenerator<ThreadEvent>;
}
/** Alias of {@link StreamedTurn}, the result of `runStreamed()`. */
export type RunStreamedResult = StreamedTurn;

/** The error `run()` throws for a failed turn (`turn.failed`); its message is the CLI's. */
export class TurnFailedError extends AgentSdkError {}

/** One conversation; one turn at a time. */
export class Thread {
  private threadId: string | null;
  private running: AbortController | undefined;

  /**
   * @internal Use `Codex.startThread()` / `resumeThread()`.
   * @throws InvalidOptionsError when `id` is not a thread id (a UUID) or a thread option would
   *   reach the command line as a flag (see `threadOptionIssues`); nothing is spawned.
   */
  constructor(
    private readonly codex: CodexOptions,
    private readonly options: ThreadOptions,
    id: string | null = null,
  ) {
    const issues = threadOptionIssues(options);
    const idProblem = id === null ? undefined : threadIdIssue(id);
    if (idProblem !== undefined) issues.unshift(idProblem);
    if (issues.length > 0) throw new InvalidOptionsError(issues);
    this.threadId = id;
  }

  /** The thread id: set once the first turn has started. */
  get id(): string | null {
    return this.threadId;
  }

  /** Runs a turn and streams its events as they come. */
  async runStreamed(input: Input, turnOptions: TurnOptions = {}): Promise<StreamedTurn> {
    checkSignalOption(turnOptions.signal);
    return { events: this.streamTurn(input, turnOptions) };
  }

  /** Runs a turn and returns it once complete; a failed turn throws with the CLI's message. */
  async run(input: Input, turnOptions: TurnOptions = {}): Promise<Turn> {
    checkSignalOption(turnOptions.signal);
    const items: ThreadItem[] = [];
    let finalResponse = "";
    let usage: Usage | null = null;
    for await (const event of this.streamTurn(input, turnOptions)) {
      if (event.type === "item.completed") {
        if (event.item.type === "agent_message") finalResponse = event.item.text;
        items.push(event.item);
      } else if (event.type === "turn.completed") {
        usage = event.usage;
      } else if (event.type === "turn.failed") {
        throw new TurnFailedError(event.error.message);
      }
    }
    return { items, finalResponse, usage };
  }

  /**
   * Addition of code-agent-sdk: ends the running turn now (its process group is terminated; the
   * turn's iteration throws `AbortError`). The thread stays usable: the next turn resumes it.
   */
  async interrupt(): Promise<void> {
    this.running?.abort(new AgentSdkError("The turn was interrupted"));
  }

  private async *streamTurn(input: Input, turnOptions: TurnOptions): AsyncGenerator<ThreadEvent> {
    if (this.running) throw new AgentSdkError("A turn is already running on this thread");
    const running = new AbortController();
    this.running = running;
    const schema = await outputSchemaFile(turnOptions.outputSchema);
    try {
      const { prompt, images } = normalizeInput(input);
      const args = execTurnArgs({
        config: this.codex.config,
        configOverrides: this.codex.configOverrides,
        baseUrl: this.codex.baseUrl,
        thread: this.options,
        threadId: this.threadId,
        outputSchemaFile: schema?.path,
        cyberAccessProgram: turnOptions.cyberAccessProgram,
        images,
      });
      const signal = combineSignals(turnOptions.signal, running.signal);
      const events = this.options.canUseTool
        ? runAppServerTurn({
            codex: this.codex,
            thread: this.options,
            threadId: this.threadId,
            input: prompt,
            images,
            outputSchema: turnOptions.outputSchema,
            signal,
          })
        : runExecTurn({
            codexPath: this.codex.codexPathOverride,
            env: this.codex.env,
            apiKey: this.codex.apiKey,
            args,
            input: prompt,
            signal,
          });
      for await (const event of events) {
        if (event.type === "thread.started") this.threadId = event.thread_id;
        else if (event.type === "turn.completed") event.usage.cache_write_input_tokens ??= 0;
        yield event;
      }
    } finally {
      this.running = undefined;
      await schema?.remove();
    }
  }
}

/** Joins text items with blank lines and collects image paths, as the official SDK does. */
function normalizeInput(input: Input): { prompt: string; images: string[] } {
  if (typeof input === "string") return { prompt: input, images: [] };
  const texts: string[] = [];
  const images: string[] = [];
  for (const item of input) {
    if (item.type === "text") texts.push(item.text);
    else if (item.type === "local_image") images.push(item.path);
  }
  return { prompt: texts.join("\n\n"), images };
}

async function outputSchemaFile(
  schema: unknown,
): Promise<{ path: string; remove(): Promise<void> } | undefined> {
  if (schema === undefined) return undefined;
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    throw new InvalidOptionsError(["outputSchema: must be a plain JSON object"]);
  const dir = await mkdtemp(join(tmpdir(), "codex-output-schema-"));
  const path = join(dir, "schema.json");
  await writeFile(path, JSON.stringify(schema), "utf8");
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}
