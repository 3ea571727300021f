/**
 * `ReplayTransport`: plays a recording (made with `options.record`) back to the SDK, so code that
 * consumes a session runs the same with no CLI installed and no model behind it.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { AgentSdkError, CliConnectionError, JsonDecodeError, ProcessError } from "../errors.js";
import { describeError } from "../wire/safe-json.js";
import {
  RECORDING_FORMAT,
  type RecordedError,
  type RecordedEvent,
  type RecordingHeader,
} from "./recording.js";
import { REDACTED, Redactor } from "./redact.js";
import type { Transport, TransportItem } from "./transport.js";

/**
 * A recording that cannot be read (not JSON, not a recording, a line that is not what its `kind`
 * says — the message names the line), or a session that did not do what the recording did.
 */
export class ReplayError extends AgentSdkError {}

/** How a replay checks what the SDK writes against the recording. */
export interface ReplayOptions {
  /**
   * `"content"` (default): each line the SDK writes must equal the recorded one — the prompt, the
   * permission answers, the control requests with their fields (a `[REDACTED]` in the recording
   * matches anything; ids, `uuid`s, `cwd` and the SDK's `clientInfo` may differ). `"kind"`: only
   * the kind of each line is compared (its type and request subtype or method), so a replay may
   * send another prompt and still get the recorded answers.
   */
  match?: "content" | "kind";
}

/** An event the CLI side produces, with how many SDK actions must have happened before it. */
type Playable =
  | { kind: "in"; line: Record<string, unknown>; gate: number; at: number }
  | { kind: "invalid"; text: string; gate: number; at: number }
  | { kind: "end"; error: RecordedError | undefined; gate: number; at: number }
  | { kind: "gap"; reason: string; gate: number; at: number };

/** What the SDK did, in recorded order: a line written, input ended, the session closed, or a gap. */
interface RecordedAction {
  kind: "out" | "end-input" | "close" | "gap";
  /** The recorded JSON line, or `undefined` for a text line. */
  line?: unknown;
  /** The recorded text line. */
  text?: string;
  reason?: string;
  /** Its line number in the recording. */
  at: number;
}

/**
 * Where the events `fromText` parsed come from: the file's name and each event's line number
 * (blank lines are skipped, so they are not index + 2).
 */
const sources = new WeakMap<readonly unknown[], { name: string; lines: number[] }>();

/** Keys whose values legitimately differ between the recorded run and a replay. */
const VOLATILE_KEYS = new Set(["cwd", "clientInfo"]);
const VOLATILE_TOP_KEYS = new Set(["id", "request_id", "uuid"]);

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
 * the recorded ones. A line the SDK writes that differs from the recording at that point (another
 * prompt, another request or answer: see {@link ReplayOptions.match}) ends reading with
 * {@link ReplayError} naming the recording's line and the difference. Options that reach the CLI
 * only on its command line (`model`, `allowedTools`, …) are not in the recording and not compared.
 */
export class ReplayTransport implements Transport {
  /** The backend the recording was made with (`claude`, `codex`). */
  readonly backend: string;
  /** The recording's header line. */
  readonly header: RecordingHeader;
  private readonly name: string;
  private readonly match: "content" | "kind";
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

  /**
   * @param header The recording's header line.
   * @param events The recording's other lines, in order.
   * @throws ReplayError when the header or an event is not what a recording has (naming its line).
   */
  constructor(header: RecordingHeader, events: readonly RecordedEvent[], options: ReplayOptions = {}) {
    const source = Array.isArray(events) ? sources.get(events) : undefined;
    this.name = source?.name ?? "recording";
    checkHeader(header, this.name);
    if (!Array.isArray(events)) throw new ReplayError(`${this.name}: the events are not an array`);
    if (options.match !== undefined && options.match !== "content" && options.match !== "kind")
      throw new ReplayError(`ReplayOptions.match must be "content" or "kind"`);
    this.header = header;
    this.backend = header.backend;
    this.match = options.match ?? "content";
    const playable: Playable[] = [];
    const actions: RecordedAction[] = [];
    events.forEach((event, index) => {
      const at = source?.lines[index] ?? index + 2;
      const where = `${this.name}:${at}`;
      if (!isObject(event)) throw new ReplayError(`${where} is not a JSON object`);
      const e = event as Record<string, unknown>;
      switch (e.kind) {
        case "out":
          if (typeof e.text === "string") actions.push({ kind: "out", text: e.text, at });
          else if ("line" in e && e.line !== undefined) actions.push({ kind: "out", line: e.line, at });
          else throw new ReplayError(`${where}: an "out" event without \`line\` or \`text\``);
          break;
        case "end-input":
        case "close":
          actions.push({ kind: e.kind, at });
          break;
        case "in":
          if (!isObject(e.line))
            throw new ReplayError(`${where}: an "in" event without a JSON object \`line\``);
          playable.push({ kind: "in", line: e.line, gate: actions.length, at });
          break;
        case "invalid":
          if (typeof e.text !== "string")
            throw new ReplayError(`${where}: an "invalid" event without \`text\``);
          playable.push({ kind: "invalid", text: e.text, gate: actions.length, at });
          break;
        case "end":
          playable.push({ kind: "end", error: checkError(e.error, where), gate: actions.length, at });
          break;
        case "gap": {
          const reason = typeof e.reason === "string" ? e.reason : "no reason recorded";
          if (e.direction === "out") actions.push({ kind: "gap", reason, at });
          else playable.push({ kind: "gap", reason, gate: actions.length, at });
          break;
        }
        default:
          throw new ReplayError(`${where}: unknown event kind ${short(e.kind)}`);
      }
    });
    this.playable = playable;
    this.actions = actions;
  }

  /**
   * Reads a recording file (a regular file: a FIFO or device there is refused, not waited on).
   * @throws ReplayError when it cannot be read or is not a recording.
   */
  static fromFile(path: string, options: ReplayOptions = {}): ReplayTransport {
    let text: string;
    try {
      text = readRegularFileSync(path);
    } catch (error) {
      throw new ReplayError(`Cannot read the recording ${path}: ${describeError(error)}`, {
        cause: error,
      });
    }
    return ReplayTransport.fromText(text, path, options);
  }

  /** Parses a recording's text. @throws ReplayError when it is not a recording (naming the line). */
  static fromText(text: string, name = "recording", options: ReplayOptions = {}): ReplayTransport {
    if (typeof text !== "string") throw new ReplayError(`${name} is not text`);
    const parsed: unknown[] = [];
    const lineNumbers: number[] = [];
    text.split("\n").forEach((line, index) => {
      if (line.trim() === "") return;
      try {
        parsed.push(JSON.parse(line));
      } catch (error) {
        throw new ReplayError(`${name}:${index + 1} is not JSON (${describeError(error)})`);
      }
      lineNumbers.push(index + 1);
    });
    const [header, ...events] = parsed;
    if (!isObject(header) || header.kind !== "header" || header.format !== RECORDING_FORMAT) {
      throw new ReplayError(`${name} is not a code-agent-sdk recording (its first line is not the header)`);
    }
    sources.set(events, { name, lines: lineNumbers.slice(1) });
    return new ReplayTransport(header as unknown as RecordingHeader, events as RecordedEvent[], options);
  }

  async connect(): Promise<void> {
    if (this.closed) throw new CliConnectionError("The replay transport is closed");
    this.connected = true;
  }

  async write(data: string): Promise<void> {
    if (!this.connected || this.closed) throw new CliConnectionError("The replay transport is not connected");
    this.check(data);
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
      else if (next.kind === "gap")
        throw new ReplayError(`${this.name}:${next.at}: the recording has a gap here (${next.reason})`);
      else {
        if (next.error) throw replayedError(next.error);
        return;
      }
    }
  }

  /** Compares what the SDK wrote with the recording's next action; a difference is the divergence. */
  private check(data: string): void {
    const expected = this.actions[this.done];
    let line: unknown;
    try {
      line = JSON.parse(data);
    } catch {
      line = undefined;
    }
    const written = describe(line);
    if (expected === undefined) {
      this.diverge(`the SDK wrote ${written} after the recording's last action`);
      return;
    }
    const where = `${this.name}:${expected.at}`;
    if (expected.kind === "gap") {
      this.diverge(`the SDK wrote ${written} where ${where} has a gap (${expected.reason})`);
      return;
    }
    if (expected.kind !== "out") {
      this.diverge(`the SDK wrote ${written} where ${where} has ${expected.kind}`);
      return;
    }
    const recorded = expected.text !== undefined ? "a text line" : describe(expected.line);
    if (written !== recorded) {
      this.diverge(`the SDK wrote ${written} where ${where} has ${recorded}`);
      return;
    }
    if (this.match === "content") {
      const found =
        expected.text !== undefined
          ? differs(expected.text, data, "the text")
          : difference(expected.line, line, "", 0);
      if (found !== undefined) {
        this.diverge(`the SDK wrote ${written} that differs from ${where}: ${found}`);
        return;
      }
    }
    this.mapIds(expected.line, line);
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

function checkHeader(header: unknown, name: string): void {
  if (!isObject(header) || header.kind !== "header" || header.format !== RECORDING_FORMAT)
    throw new ReplayError(`${name} is not a code-agent-sdk recording (its first line is not the header)`);
  if (header.version !== 1)
    throw new ReplayError(`${name}: recording version ${short(header.version)} is not supported`);
  if (typeof header.backend !== "string" || header.backend === "")
    throw new ReplayError(`${name}: the header names no backend`);
}

/** A recorded read failure, checked field by field. */
function checkError(error: unknown, where: string): RecordedError | undefined {
  if (error === undefined) return undefined;
  const bad = (what: string) => new ReplayError(`${where}: an "end" event whose error ${what}`);
  if (!isObject(error)) throw bad("is not an object");
  if (typeof error.name !== "string" || typeof error.message !== "string")
    throw bad("has no name and message");
  const nullableNumber = (v: unknown) => v === undefined || v === null || typeof v === "number";
  const nullableString = (v: unknown) => v === undefined || v === null || typeof v === "string";
  if (!nullableNumber(error.exitCode)) throw bad("has an exitCode that is not a number");
  if (!nullableString(error.signal)) throw bad("has a signal that is not a string");
  if (error.stderrTail !== undefined && typeof error.stderrTail !== "string")
    throw bad("has a stderrTail that is not a string");
  return error as unknown as RecordedError;
}

/** What kind of line this is, for matching: its type and request subtype or JSON-RPC method. */
function describe(line: unknown): string {
  if (!isObject(line)) return "a text line";
  const request = isObject(line.request) ? line.request.subtype : undefined;
  const parts = [line.type, request, line.method].filter((p) => typeof p === "string");
  if ("result" in line || "error" in line) parts.push("response");
  return parts.length > 0 ? parts.join(" ") : "a JSON line";
}

/** Deeper than this, a recorded line is not compared further (a recorder never writes one). */
const MAX_COMPARE_DEPTH = 1000;

/**
 * Where `live` differs from `recorded` (`undefined`: it does not), ignoring run-specific keys; a
 * `[REDACTED]` in a recorded string matches any text.
 */
function difference(recorded: unknown, live: unknown, path: string, depth: number): string | undefined {
  const at = path === "" ? "the line" : path;
  if (depth > MAX_COMPARE_DEPTH) return undefined;
  if (typeof recorded === "string") {
    if (typeof live === "string") return differs(recorded, live, at);
    if (recorded.includes(REDACTED) && (typeof live === "number" || typeof live === "boolean"))
      return differs(recorded, String(live), at);
    return `${at}: recorded ${short(recorded)}, written ${short(live)}`;
  }
  if (Array.isArray(recorded)) {
    if (!Array.isArray(live)) return `${at}: recorded an array, written ${short(live)}`;
    if (live.length !== recorded.length)
      return `${at}: recorded ${recorded.length} items, written ${live.length}`;
    for (let i = 0; i < recorded.length; i++) {
      const d = difference(recorded[i], live[i], `${path}[${i}]`, depth + 1);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (isObject(recorded)) {
    if (!isObject(live)) return `${at}: recorded an object, written ${short(live)}`;
    const keys = new Set([...Object.keys(recorded), ...Object.keys(live)]);
    for (const key of keys) {
      if (VOLATILE_KEYS.has(key) || (depth === 0 && VOLATILE_TOP_KEYS.has(key))) continue;
      const keyPath = path === "" ? key : `${path}.${key}`;
      if (!(key in live)) return `${keyPath}: recorded ${short(recorded[key])}, not written`;
      if (!(key in recorded)) return `${keyPath}: written ${short(live[key])}, not recorded`;
      const d = difference(recorded[key], live[key], keyPath, depth + 1);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return Object.is(recorded, live) ? undefined : `${at}: recorded ${short(recorded)}, written ${short(live)}`;
}

/** Whether text `live` matches recorded text `recorded`, where `[REDACTED]` stands for any text. */
function differs(recorded: string, live: string, at: string): string | undefined {
  return globMatches(recorded.split(REDACTED), live)
    ? undefined
    : `${at}: recorded ${short(recorded)}, written ${short(live)}`;
}

/** Linear glob match: `parts` joined by "anything" must make up the whole of `text`. */
function globMatches(parts: string[], text: string): boolean {
  if (parts.length === 1) return parts[0] === text;
  const first = parts[0] as string;
  const last = parts[parts.length - 1] as string;
  if (!text.startsWith(first) || text.length < first.length + last.length || !text.endsWith(last))
    return false;
  let position = first.length;
  const end = text.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = text.indexOf(part, position);
    if (found === -1 || found + part.length > end) return false;
    position = found + part.length;
  }
  return true;
}

/** Patterns only: an error message must not show a secret the SDK wrote, and the environment is not known here. */
const messageRedactor = new Redactor([]);

/** A short, redacted rendering of a value for a mismatch message. */
function short(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? "nothing" : (JSON.stringify(value) ?? String(value));
  } catch {
    text = "an unprintable value";
  }
  text = messageRedactor.text(text);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
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

/**
 * The text of `path`, opened non-blocking (a FIFO with no writer would block the event loop) and
 * read only when it is a regular file; throws otherwise.
 */
function readRegularFileSync(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
  try {
    if (!fstatSync(fd).isFile()) throw new Error("not a regular file");
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}
