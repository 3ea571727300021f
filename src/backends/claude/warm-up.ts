/**
 * The idle warm-up of the Claude backend: one turn over an in-memory stand-in for the CLI, run once
 * per process when the host is idle after import (see `preloadWhenIdle` in ../registry.ts). V8
 * compiles a function the first time it runs, and a first query runs a few hundred of ours: about
 * 4 ms in a fresh process (bench/README.md, "cold path"). Running them once ahead of time on
 * canned lines takes that out of the first real query. No process is started, no file is read, and
 * nothing the turn produces leaves this module.
 */
import { PassThrough } from "node:stream";
import type { ReadFlow } from "../../internal/read-flow.js";
import { READ_INTO } from "../../internal/read-transport.js";
import { ReaderThrew, readJsonLines, readJsonLinesInto } from "../../process/jsonl.js";
import type { Transport, TransportItem } from "../../transport/transport.js";
import { SDK_VERSION } from "../../version.js";
import type { Backend } from "../backend.js";
import { buildClaudeArgs } from "./command.js";
import { buildClaudeEnv } from "./env.js";

const SESSION_ID = "warm-up";

/** The longest line the stand-in writes is far below this. */
const MAX_LINE_BYTES = 1024 * 1024;

/**
 * Speaks just enough stream-json to run one turn: answers `initialize`, then one user message. Its
 * lines go through a stream and the same JSON-lines reader as a CLI's stdout.
 */
class WarmUpTransport implements Transport {
  private readonly stdout = new PassThrough();
  private ready = false;

  async connect(): Promise<void> {
    this.ready = true;
  }

  async write(data: string): Promise<void> {
    const message = JSON.parse(data) as { type?: unknown; request_id?: unknown };
    if (message.type === "control_request") {
      this.emit({
        type: "control_response",
        response: {
          subtype: "success",
          request_id: message.request_id,
          response: { commands: [], models: [] },
        },
      });
    } else if (message.type === "user") {
      this.emit({
        type: "system",
        subtype: "init",
        cwd: "/",
        session_id: SESSION_ID,
        tools: [],
        model: "warm-up",
      });
      this.emit({
        type: "assistant",
        message: {
          id: "msg_warm_up",
          role: "assistant",
          model: "warm-up",
          content: [{ type: "text", text: "ok" }],
        },
        parent_tool_use_id: null,
        session_id: SESSION_ID,
      });
      this.emit({
        type: "result",
        subtype: "success",
        is_error: false,
        duration_ms: 0,
        duration_api_ms: 0,
        num_turns: 1,
        result: "ok",
        stop_reason: "end_turn",
        session_id: SESSION_ID,
        total_cost_usd: 0,
        usage: { input_tokens: 0, output_tokens: 0 },
      });
    }
  }

  private emit(line: Record<string, unknown>): void {
    this.stdout.write(`${JSON.stringify(line)}\n`);
  }

  readMessages(): AsyncIterable<TransportItem> {
    return readJsonLines(this.stdout, { maxLineBytes: MAX_LINE_BYTES });
  }

  /** The session's read loop, as over a CLI's stdout (see `SubprocessTransport`). */
  async [READ_INTO](onItem: (item: TransportItem) => void, flow?: ReadFlow): Promise<void> {
    try {
      await readJsonLinesInto(this.stdout, { maxLineBytes: MAX_LINE_BYTES, flow }, onItem);
    } catch (error) {
      throw error instanceof ReaderThrew ? error.error : error;
    }
  }

  async endInput(): Promise<void> {
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
 * Runs one turn of `backend` over {@link WarmUpTransport}, validating options shaped like a
 * query's on the way (the option checks compile on first use too). Resolves when the session is
 * closed; rejects if the turn did not complete, which would be a bug of this SDK.
 */
export async function warmUpClaude(backend: Backend): Promise<void> {
  const options = { cliPath: "claude", model: "warm-up" };
  backend.validateOptions(options);
  buildClaudeArgs(options, { sdkMcpServerNames: [] });
  buildClaudeEnv({ env: {} }, SDK_VERSION);
  const session = await backend.openSession({
    options: { transport: new WarmUpTransport() },
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
