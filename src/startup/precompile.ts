/**
 * The warm-up a backend runs once per process before its first real session (when the host is
 * idle after import, or in `loadBackend()`): one turn over an in-memory stand-in for the CLI. V8
 * compiles a function the first time it runs, and a first query runs a few hundred of ours, about
 * 4 ms in a fresh process (bench/README.md, "cold path"); running them once on canned lines takes
 * that out of the first real query. No process is started, no file is touched, and nothing the
 * turn produces leaves this module.
 */
import { PassThrough } from "node:stream";
import { ReaderThrew, readJsonLines, readJsonLinesInto } from "../process/jsonl.js";
import type { ReadFlow } from "../transport/read-flow.js";
import { READ_INTO } from "../transport/read-transport.js";
import type { Transport, TransportItem } from "../transport/transport.js";

/** What the stand-in answers. Lines are JSON objects, written to its stdout as the CLI would. */
export interface WarmUpScript {
  /** The lines answering one line the SDK wrote. */
  onWrite?(message: Record<string, unknown>): Record<string, unknown>[];
  /** The lines written once the SDK ends its input, before the output ends. */
  onEndInput?(): Record<string, unknown>[];
}

/** The longest line a stand-in writes is far below this. */
const MAX_LINE_BYTES = 1024 * 1024;

/**
 * A stand-in for a CLI that answers from a {@link WarmUpScript}. Its lines go through a stream and
 * the same JSON-lines reader as a CLI's stdout (see `SubprocessTransport`).
 */
class WarmUpTransport implements Transport {
  private readonly stdout = new PassThrough();
  private ready = false;

  constructor(private readonly script: WarmUpScript) {}

  async connect(): Promise<void> {
    this.ready = true;
  }

  async write(data: string): Promise<void> {
    const lines = this.script.onWrite?.(JSON.parse(data) as Record<string, unknown>) ?? [];
    for (const line of lines) this.emit(line);
  }

  /** A plain-text prompt (`codex exec -`): read to the end of input, as the CLI does. */
  async writeText(): Promise<void> {}

  private emit(line: Record<string, unknown>): void {
    if (!this.stdout.writableEnded) this.stdout.write(`${JSON.stringify(line)}\n`);
  }

  readMessages(): AsyncIterable<TransportItem> {
    return readJsonLines(this.stdout, { maxLineBytes: MAX_LINE_BYTES });
  }

  /** The session's read loop, as over a CLI's stdout. */
  async [READ_INTO](onItem: (item: TransportItem) => void, flow?: ReadFlow): Promise<void> {
    try {
      await readJsonLinesInto(this.stdout, { maxLineBytes: MAX_LINE_BYTES, flow }, onItem);
    } catch (error) {
      throw error instanceof ReaderThrew ? error.error : error;
    }
  }

  async endInput(): Promise<void> {
    for (const line of this.script.onEndInput?.() ?? []) this.emit(line);
    this.stdout.end();
  }

  async close(): Promise<void> {
    this.ready = false;
    this.stdout.end();
  }

  isReady(): boolean {
    return this.ready;
  }
}

/**
 * What a warm-up needs of a backend (a `Backend` is one): validating options like a query's, and
 * opening a one-shot session over a given transport.
 */
export interface WarmUpTarget<O> {
  readonly name: string;
  validateOptions(options: O): void;
  openSession(params: {
    options: { backend: never; transport: Transport };
    oneShot: true;
    initialPrompt: string;
  }): Promise<{
    subscribe(options: { untilResult: true }): AsyncIterable<{ type: string }>;
    close(): Promise<void>;
  }>;
}

/**
 * Runs one one-shot turn of `backend` over a stand-in answering from `script`, after validating
 * `sampleOptions` (options shaped like a query's: the option checks compile on first use too).
 * Resolves when the session is closed; rejects if the turn did not reach its result, which would
 * be a bug of this SDK.
 */
export async function runWarmUpTurn<O>(
  backend: WarmUpTarget<O>,
  script: WarmUpScript,
  sampleOptions: O,
): Promise<void> {
  backend.validateOptions(sampleOptions);
  const session = await backend.openSession({
    options: { backend: backend.name as never, transport: new WarmUpTransport(script) },
    oneShot: true,
    initialPrompt: "warm-up",
  });
  try {
    let result = false;
    for await (const message of session.subscribe({ untilResult: true }))
      result ||= message.type === "result";
    if (!result) throw new Error("the warm-up turn ended without a result");
  } finally {
    await session.close();
  }
}
