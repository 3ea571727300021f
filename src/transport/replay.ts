/**
 * `ReplayTransport`: plays a recording (made with `options.record`) back to the SDK, so code that
 * consumes a session runs the same with no CLI installed and no model behind it.
 */
import { readFileSync } from "node:fs";
import { AgentSdkError, CliConnectionError, JsonDecodeError, ProcessError } from "../errors.js";
import {
  RECORDING_FORMAT,
  type RecordedError,
  type RecordedEvent,
  type RecordingHeader,
} from "./recording.js";
import type { Transport, TransportItem } from "./transport.js";

/** A recording that cannot be read, or a session that did not do what the recording did. */
export class ReplayError extends AgentSdkError {}

/** An event the CLI side produces, with how many SDK actions must have happened before it. */
type Playable =
  | { kind: "in"; line: Record<string, unknown>; gate: number }
  | { kind: "invalid"; text: string; gate: number }
  | { kind: "end"; error: RecordedError | undefined; gate: number };

/** What the SDK did, in recorded order: a line written, input ended, or the session closed. */
interface RecordedAction {
  kind: "out" | "end-input" | "close";
  line?: unknown;
}

/**
 * Replays a recording. Give it as `options.transport` (with the same `backend` and the same kind
 * of run — one-shot or client — as when it was recorded):
 *
 * @example
 * import { query } from "code-agent-sdk";
 * import { ReplayTransport } from "code-agent-sdk/testing";
 *
 * const transport = ReplayTransport.fromFile("test/recordings/hello.jsonl");
 * const turn = await query({ prompt: "Say hello", options: { backend: transport.backend, transport } }).collect();
 *
 * The CLI's lines come back in recorded order; each waits until the SDK has done what preceded
 * it in the recording (written as many lines, ended its input), so answers never overtake their
 * questions. Ids the SDK chooses afresh (Claude control `request_id`s, JSON-RPC ids) are mapped to
 * the recorded ones. A line the SDK writes that is not the kind the recording has at that point
 * (another request type or method) ends reading with {@link ReplayError}.
 */
export class ReplayTransport implements Transport {
  /** The backend the recording was made with (`claude`, `codex`). */
  readonly backend: string;
  /** The recording's header line. */
  readonly header: RecordingHeader;
  private readonly playable: Playable[];
  private readonly actions: RecordedAction[];
  private position = 0;
  private done = 0;
  private connected = false;
  private closed = false;
  private read = false;
  private divergence: ReplayError | undefined;
  /** Recorded id → the id the SDK used this time. */
  private readonly ids = new Map<string, unknown>();
  private wake: (() => void) | undefined;

  constructor(header: RecordingHeader, events: readonly RecordedEvent[]) {
    this.header = header;
    this.backend = header.backend;
    const playable: Playable[] = [];
    const actions: RecordedAction[] = [];
    for (const event of events) {
      switch (event.kind) {
        case "out":
          actions.push({ kind: "out", line: "line" in event ? event.line : undefined });
          break;
        case "end-input":
        case "close":
          actions.push({ kind: event.kind });
          break;
        case "in":
          playable.push({ kind: "in", line: event.line, gate: actions.length });
          break;
        case "invalid":
          playable.push({ kind: "invalid", text: event.text, gate: actions.length });
          break;
        case "end":
          playable.push({ kind: "end", error: event.error, gate: actions.length });
          break;
      }
    }
    this.playable = playable;
    this.actions = actions;
  }

  /** Reads a recording file. @throws ReplayError when it is not a recording. */
  static fromFile(path: string): ReplayTransport {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      throw new ReplayError(`Cannot read the recording ${path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return ReplayTransport.fromText(text, path);
  }

  /** Parses a recording's text. @throws ReplayError when it is not a recording. */
  static fromText(text: string, name = "recording"): ReplayTransport {
    const lines = text.split("\n").filter((line) => line.trim() !== "");
    const parsed = lines.map((line, index) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new ReplayError(`${name}:${index + 1} is not JSON`);
      }
    });
    const [header, ...events] = parsed;
    if (header?.kind !== "header" || header.format !== RECORDING_FORMAT) {
      throw new ReplayError(`${name} is not a code-agent-sdk recording (its first line is not the header)`);
    }
    if (header.version !== 1)
      throw new ReplayError(`${name}: recording version ${String(header.version)} is not supported`);
    return new ReplayTransport(header as unknown as RecordingHeader, events as unknown as RecordedEvent[]);
  }

  async connect(): Promise<void> {
    if (this.closed) throw new CliConnectionError("The replay transport is closed");
    this.connected = true;
  }

  async write(data: string): Promise<void> {
    if (!this.connected || this.closed) throw new CliConnectionError("The replay transport is not connected");
    const expected = this.actions[this.done];
    let line: unknown;
    try {
      line = JSON.parse(data);
    } catch {
      line = undefined;
    }
    if (expected?.kind !== "out") {
      this.diverge(
        `the SDK wrote ${describe(line, data)} where the recording has ${expected?.kind ?? "its end"}`,
      );
    } else if (describe(line, data) !== describe(expected.line, "text")) {
      this.diverge(
        `the SDK wrote ${describe(line, data)} where the recording has ${describe(expected.line, "text")}`,
      );
    } else {
      this.mapIds(expected.line, line);
    }
    this.advance();
  }

  /** Free text (a `codex exec` prompt): one write, as the recording has it. */
  async writeText(text: string): Promise<void> {
    await this.write(text);
  }

  async endInput(): Promise<void> {
    if (this.closed) return;
    // A one-shot CLI may end its output before the SDK ends its input: nothing to wait for then.
    if (this.actions[this.done]?.kind === "end-input") this.advance();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.connected = false;
    this.notify();
  }

  isReady(): boolean {
    return this.connected && !this.closed;
  }

  async *readMessages(): AsyncGenerator<TransportItem, void, undefined> {
    if (this.read) throw new CliConnectionError("readMessages() can be called once");
    this.read = true;
    for (;;) {
      if (this.closed) return;
      if (this.divergence) throw this.divergence;
      const next = this.playable[this.position];
      if (next === undefined) return;
      if (next.gate > this.done) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        continue;
      }
      this.position++;
      if (next.kind === "in") yield this.withLiveIds(next.line);
      else if (next.kind === "invalid")
        yield new JsonDecodeError("Invalid JSON from the CLI (replayed)", next.text);
      else {
        if (next.error) throw replayedError(next.error);
        return;
      }
    }
  }

  private advance(): void {
    this.done++;
    // A close the recording made right after this point is the SDK's to make, not ours to wait for.
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private diverge(message: string): void {
    this.divergence ??= new ReplayError(`Replay diverged from the recording: ${message}`);
  }

  /** Remembers which fresh id stands for which recorded one. */
  private mapIds(recorded: unknown, live: unknown): void {
    if (!isObject(recorded) || !isObject(live)) return;
    for (const key of ["request_id", "id"] as const) {
      if (recorded[key] !== undefined && live[key] !== undefined && recorded[key] !== live[key]) {
        this.ids.set(JSON.stringify(recorded[key]), live[key]);
      }
    }
  }

  /** A recorded CLI line with the ids of answers to the SDK's requests set to this run's ids. */
  private withLiveIds(line: Record<string, unknown>): Record<string, unknown> {
    if (this.ids.size === 0) return line;
    const response = line.response;
    if (line.type === "control_response" && isObject(response)) {
      const live = this.ids.get(JSON.stringify(response.request_id));
      if (live !== undefined) return { ...line, response: { ...response, request_id: live } };
    }
    if (line.id !== undefined && line.method === undefined && ("result" in line || "error" in line)) {
      const live = this.ids.get(JSON.stringify(line.id));
      if (live !== undefined) return { ...line, id: live };
    }
    return line;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What kind of line this is, for matching: its type and request subtype or JSON-RPC method. */
function describe(line: unknown, fallback: string): string {
  if (!isObject(line)) return fallback === "text" ? "a text line" : "a text line";
  const request = isObject(line.request) ? line.request.subtype : undefined;
  const parts = [line.type, request, line.method].filter((p) => typeof p === "string");
  if ("result" in line || "error" in line) parts.push("response");
  return parts.length > 0 ? parts.join(" ") : "a JSON line";
}

function replayedError(error: RecordedError): Error {
  if (error.name === "ProcessError") {
    return new ProcessError(`${error.message.split("\n--- stderr")[0]} (replayed)`, {
      exitCode: error.exitCode ?? null,
      signal: (error.signal ?? null) as NodeJS.Signals | null,
      stderrTail: error.stderrTail ?? "",
    });
  }
  return new CliConnectionError(`${error.message} (replayed ${error.name})`);
}
