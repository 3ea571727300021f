/**
 * Request/response correlation over a JSON-lines `Transport`, for the CLIs that talk back: Claude's
 * control protocol and Codex's JSON-RPC. The dialects differ in how a line is framed and routed;
 * what is the same lives here: the read loop, serialized writes, our requests (each with a timeout)
 * awaiting their answers, and the peer's requests, each answered once.
 */
import {
  AbortError,
  AgentSdkError,
  CliConnectionError,
  ControlTimeoutError,
  JsonDecodeError,
} from "../errors.js";
import type { RawObject } from "../messages.js";
import { settleWithin } from "../signals/deadline.js";
import type { ReadFlow } from "../transport/read-flow.js";
import { readTransport } from "../transport/read-transport.js";
import type { Transport } from "../transport/transport.js";
import { describeError, trySerialise } from "../wire/safe-json.js";

/** The `process.emitWarning` code of an answer that could not be serialised. */
export const UNSENDABLE_ANSWER_WARNING = "CODE_AGENT_SDK_UNSENDABLE_ANSWER";

/** What the channel reports to the dialect on top of it. */
export interface PeerChannelEvents {
  /** Every line that is a JSON object, in order; the dialect routes it. */
  onLine(raw: RawObject): void;
  /** A line that was not valid JSON (non-fatal). */
  onMalformedLine(error: JsonDecodeError): void;
  /** The transport ended: `error` is set when it failed. Called once, after every request has failed. */
  onEnd(error: unknown): void;
}

/** One of our requests, as the dialect settles it when the answer arrives. */
export interface PendingRequest {
  /** The request's subtype or method, for errors. */
  name: string;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** A request from the peer, and how to answer it. */
export interface IncomingRequest<T> {
  /** The request's subtype or method, for the timeout message. */
  name: string;
  /** Computes the answer. `signal` aborts on cancellation, shutdown, or the timeout. */
  handle(signal: AbortSignal): Promise<T>;
  /** The line answering with `value`; `undefined` leaves the request unanswered on purpose. */
  success(value: T): RawObject | undefined;
  /**
   * The line answering with `error`: any thrown value, also one `String()` fails on (describe it
   * with `describeError`). Must not throw.
   */
  failure(error: unknown): RawObject;
  /**
   * After this long the handler is aborted and the peer gets an error answer. Default (and
   * `Infinity`): no limit.
   */
  timeoutMs?: number;
  /**
   * Whether a request the peer cancelled (see {@link PeerChannel.cancelIncoming}) goes unanswered,
   * because the peer no longer listens for the answer. Default: it is answered all the same.
   */
  silentWhenCancelled?: boolean;
}

interface Pending extends PendingRequest {
  timer: NodeJS.Timeout | undefined;
}

/** One peer on one transport. */
export class PeerChannel<Id extends string | number> {
  private readonly pending = new Map<Id, Pending>();
  private readonly inflight = new Map<Id, AbortController>();
  private closedError: unknown;
  private readLoop: Promise<void> | undefined;
  private writeChain: Promise<void> = Promise.resolve();
  /** Answers to the peer's requests not yet handed to the write chain. */
  private readonly answering = new Set<Promise<void>>();
  /** Aborts at {@link shutdown}: ends the wait for every handler, so none holds a timer after it. */
  private readonly closing = new AbortController();

  /**
   * @param peerName Names the peer in connection errors, e.g. `CLI` ("The CLI exited").
   * @param newId The id of our next request.
   * @param flow The session's backpressure: reading obeys it, and goes on while one of our
   *   requests awaits its answer (the answer is behind whatever output waits for the reader).
   */
  constructor(
    private readonly transport: Transport,
    private readonly peerName: string,
    private readonly newId: () => Id,
    private readonly events: PeerChannelEvents,
    private readonly flow?: ReadFlow,
  ) {}

  /** Starts reading the transport. Call once, after `transport.connect()`. */
  start(): void {
    this.readLoop ??= this.consume();
  }

  /** Resolves when the read loop has finished (the peer's output ended). */
  get finished(): Promise<void> {
    return this.readLoop ?? Promise.resolve();
  }

  /**
   * Writes one JSON line. Writes are serialized so concurrent callers never interleave lines.
   * Rejects if the transport is gone, or (never throws) when `message` cannot be serialised.
   */
  write(message: RawObject): Promise<void> {
    const serialised = trySerialise(message);
    if (!serialised.ok) {
      const what = typeof message.type === "string" ? `"${message.type}" message` : "message";
      return Promise.reject(
        new AgentSdkError(`Cannot send a ${what} to the ${this.peerName}: ${serialised.problem}`),
      );
    }
    return this.writeLine(serialised.line);
  }

  private writeLine(line: string): Promise<void> {
    const next = this.writeChain.then(() => {
      if (this.closedError !== undefined) throw this.connectionGone();
      return this.transport.write(line);
    });
    // Keep the chain alive after a failed write; the failure is reported to this caller.
    this.writeChain = next.catch(() => undefined);
    return next;
  }

  /**
   * Ends the peer's input with `end` (the transport's `endInput`), once every answer already being
   * computed and every queued write has gone out: ending it directly would drop the answers still
   * queued behind the write in progress. Rejects with `end`'s failure.
   */
  async endInput(end: () => Promise<void>): Promise<void> {
    for (;;) {
      const chain = this.writeChain;
      if (this.answering.size > 0) await Promise.all(this.answering);
      await chain;
      if (chain === this.writeChain && this.answering.size === 0) break;
    }
    await end();
  }

  /**
   * Sends the request `frame` builds around a new id and resolves with what {@link settle}'s
   * caller resolves it with. Rejects with `ControlTimeoutError` (naming `name`) when no answer
   * comes within `timeoutMs` (`Infinity`: no limit), and with the peer's failure when the
   * connection ends first.
   */
  async request<T>(name: string, frame: (id: Id) => RawObject, timeoutMs: number): Promise<T> {
    if (this.closedError !== undefined) throw this.connectionGone();
    const id = this.newId();
    const release = this.flow?.hold();
    const response = new Promise<T>((resolve, reject) => {
      const timer = Number.isFinite(timeoutMs)
        ? setTimeout(() => {
            this.pending.delete(id);
            reject(new ControlTimeoutError(name, timeoutMs));
          }, timeoutMs)
        : undefined;
      this.pending.set(id, { name, resolve: resolve as (value: unknown) => void, reject, timer });
    });
    // If the write below fails, nobody awaits `response`; shutdown() rejecting it meanwhile must
    // not become an unhandled rejection (which would crash the host process).
    response.catch(() => undefined);
    if (release !== undefined) response.then(release, release);
    try {
      await this.write(frame(id));
    } catch (error) {
      this.forget(id);
      release?.();
      throw error;
    }
    return response;
  }

  /** True while our request `id` awaits its answer. */
  isPending(id: Id): boolean {
    return this.pending.has(id);
  }

  /**
   * Takes our request `id` off the books, for the dialect to resolve or reject with the answer it
   * read. `undefined` when no such request is pending (a late answer to one that timed out).
   */
  settle(id: Id): PendingRequest | undefined {
    const entry = this.pending.get(id);
    if (!entry) return undefined;
    this.forget(id);
    return entry;
  }

  /**
   * Runs the handler of the peer's request `id` and writes the answer, once: the handler's value,
   * or its failure (a thrown error, or the timeout). An answer that cannot be serialised becomes an
   * error answer naming why, with a `process.emitWarning` ({@link UNSENDABLE_ANSWER_WARNING}). No
   * answer is written once the channel is shut down: the peer is gone or going. Never rejects.
   */
  answer<T>(id: Id, request: IncomingRequest<T>): Promise<void> {
    const answering = this.computeAndWrite(id, request);
    this.answering.add(answering);
    void answering.finally(() => this.answering.delete(answering));
    return answering;
  }

  private async computeAndWrite<T>(id: Id, request: IncomingRequest<T>): Promise<void> {
    const controller = new AbortController();
    this.inflight.set(id, controller);
    let timedOut = false;
    let line: string | undefined;
    try {
      const timeoutMs = request.timeoutMs;
      const value = await settleWithin(
        Promise.resolve().then(() => request.handle(controller.signal)),
        {
          timeoutMs,
          // Shutdown settles the wait too: a handler that never settles must not hold its timer
          // (and with it the host's event loop) after the session closed. A cancelled handler is
          // still waited for: its answer goes out all the same unless `silentWhenCancelled`.
          signal: this.closing.signal,
          // The session's process and pipes keep the host alive while it runs; this timer alone
          // must not (a session unref'd while a request waits on the caller, e.g. an AI SDK approval).
          keepAlive: false,
          onTimeout: () => {
            timedOut = true;
            const error = new Error(`The ${request.name} callback did not answer within ${timeoutMs} ms`);
            controller.abort(error);
            return error;
          },
        },
      );
      line = this.successLine(request, value);
    } catch (error) {
      line = failureLine(request, error);
    } finally {
      this.inflight.delete(id);
    }
    const cancelled = controller.signal.aborted && !timedOut;
    if ((cancelled && request.silentWhenCancelled) || this.closedError !== undefined) return;
    // `undefined`: the handler chose to leave the request unanswered.
    if (line === undefined) return;
    // A failed write means the process is gone; the read loop reports that.
    await this.writeLine(line).catch(() => undefined);
  }

  /**
   * The serialised success answer, `undefined` when the handler leaves the request unanswered, or
   * (with a warning) an error answer saying why it cannot be sent.
   */
  private successLine<T>(request: IncomingRequest<T>, value: T): string | undefined {
    let problem: string;
    try {
      const answer = request.success(value);
      if (answer === undefined) return undefined;
      const serialised = trySerialise(answer);
      if (serialised.ok) return serialised.line;
      problem = serialised.problem;
    } catch (error) {
      problem = `building it failed: ${describeError(error)}`;
    }
    const message = `The answer of the ${request.name} callback could not be sent to the ${this.peerName}: ${problem}`;
    process.emitWarning(message, { code: UNSENDABLE_ANSWER_WARNING });
    return failureLine(request, new AgentSdkError(message));
  }

  /** Aborts the handler of the peer's request `id`: the peer no longer needs the answer. */
  cancelIncoming(id: Id, reason: unknown): void {
    this.inflight.get(id)?.abort(reason);
  }

  /** Fails every pending request and aborts running handlers. Further requests and writes fail at once. */
  shutdown(reason: unknown = new AbortError("The session was closed")): void {
    if (this.closedError === undefined) this.closedError = reason;
    this.closing.abort(reason);
    for (const [id, entry] of this.pending) {
      clearTimeout(entry.timer);
      entry.reject(reason);
      this.pending.delete(id);
    }
    for (const controller of this.inflight.values()) controller.abort(reason);
    this.inflight.clear();
  }

  private forget(id: Id): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.pending.delete(id);
  }

  private connectionGone(): Error {
    const cause = this.closedError;
    if (cause instanceof Error && !(cause instanceof AbortError)) return cause;
    return new CliConnectionError(`The ${this.peerName} connection is closed`, { cause });
  }

  private async consume(): Promise<void> {
    let failure: unknown;
    try {
      await readTransport(
        this.transport,
        (item) => {
          if (item instanceof JsonDecodeError) this.events.onMalformedLine(item);
          else this.events.onLine(item);
        },
        this.flow,
      );
    } catch (error) {
      failure = error;
    }
    this.shutdown(failure ?? new CliConnectionError(`The ${this.peerName} exited`));
    this.events.onEnd(failure);
  }
}

/** The serialised error answer; a dialect's failure line that cannot be serialised is retried with the message alone. */
function failureLine<T>(request: IncomingRequest<T>, error: unknown): string {
  const first = trySerialise(safeFailure(request, error));
  if (first.ok) return first.line;
  const plain = trySerialise(safeFailure(request, new Error(describeError(error))));
  if (plain.ok) return plain.line;
  return JSON.stringify(request.failure(new Error(`The ${request.name} callback failed`)));
}

function safeFailure<T>(request: IncomingRequest<T>, error: unknown): RawObject {
  try {
    return request.failure(error);
  } catch {
    return request.failure(new Error(describeError(error)));
  }
}
