/**
 * The Claude Code control protocol over a `Transport`: request/response correlation for requests we
 * send (with a timeout each), dispatch of requests the CLI sends us (`can_use_tool`,
 * `hook_callback`, `mcp_message`), cancellation, and forwarding of every other line as a message.
 */
import {
  AbortError,
  CliConnectionError,
  ControlRequestError,
  ControlTimeoutError,
  JsonDecodeError,
} from "../../errors.js";
import type { RawObject } from "../../messages.js";
import type { Transport } from "../../transport/transport.js";

/** Handles one incoming control request; the returned object is the success payload. */
export type IncomingRequestHandler = (request: RawObject, signal: AbortSignal) => Promise<RawObject>;

interface PendingRequest {
  subtype: string;
  resolve: (response: RawObject) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
}

/** Callbacks the protocol reports to. */
export interface ControlProtocolEvents {
  /** Every non-control line, in order. */
  onMessage(raw: RawObject): void;
  /** A line that was not valid JSON (non-fatal). */
  onMalformedLine(error: JsonDecodeError): void;
  /** The transport ended: `error` is set when it failed. Called once. */
  onEnd(error: unknown): void;
}

let requestCounter = 0;

/** How long a user callback may take before the CLI gets an error answer. */
export const DEFAULT_CALLBACK_TIMEOUT_MS = 600_000;

/** Drives one Claude Code process's stdin/stdout. */
export class ControlProtocol {
  private readonly pending = new Map<string, PendingRequest>();
  private readonly inflight = new Map<string, AbortController>();
  private closedError: unknown;
  private readLoop: Promise<void> | undefined;
  private writeChain: Promise<void> = Promise.resolve();

  constructor(
    private readonly transport: Transport,
    private readonly handlers: Partial<Record<string, IncomingRequestHandler>>,
    private readonly events: ControlProtocolEvents,
    private readonly timeoutMs: number,
    private readonly callbackTimeoutMs: number = DEFAULT_CALLBACK_TIMEOUT_MS,
  ) {}

  /** Starts consuming the transport. Call once, after `transport.connect()`. */
  start(): void {
    this.readLoop ??= this.consume();
  }

  /** Resolves when the read loop has finished (the process output ended). */
  get finished(): Promise<void> {
    return this.readLoop ?? Promise.resolve();
  }

  /**
   * Writes one JSON message. Writes are serialized so concurrent callers never interleave lines.
   * Rejects if the transport is gone.
   */
  write(message: RawObject): Promise<void> {
    const line = JSON.stringify(message);
    const next = this.writeChain.then(() => {
      if (this.closedError !== undefined) throw this.connectionGone();
      return this.transport.write(line);
    });
    // Keep the chain alive after a failed write; the failure is reported to this caller.
    this.writeChain = next.catch(() => undefined);
    return next;
  }

  /** Sends a control request and resolves with the CLI's response payload. */
  async request(
    request: { subtype: string; [key: string]: unknown },
    timeoutMs = this.timeoutMs,
  ): Promise<RawObject> {
    if (this.closedError !== undefined) throw this.connectionGone();
    requestCounter += 1;
    const requestId = `req_${requestCounter}_${Math.random().toString(16).slice(2, 10)}`;
    const response = new Promise<RawObject>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        reject(new ControlTimeoutError(request.subtype, timeoutMs));
      }, timeoutMs);
      this.pending.set(requestId, { subtype: request.subtype, resolve, reject, timer });
    });
    // If the write below fails, nobody awaits `response`; shutdown() rejecting it meanwhile must
    // not become an unhandled rejection (which would crash the host process).
    response.catch(() => undefined);
    try {
      await this.write({ type: "control_request", request_id: requestId, request });
    } catch (error) {
      const entry = this.pending.get(requestId);
      if (entry) {
        clearTimeout(entry.timer);
        this.pending.delete(requestId);
      }
      throw error;
    }
    return response;
  }

  /** Fails every pending request and aborts running callbacks (the session is closing). */
  shutdown(reason: unknown = new AbortError("The session was closed")): void {
    if (this.closedError === undefined) this.closedError = reason;
    for (const [id, entry] of this.pending) {
      clearTimeout(entry.timer);
      entry.reject(reason);
      this.pending.delete(id);
    }
    for (const controller of this.inflight.values()) controller.abort(reason);
    this.inflight.clear();
  }

  private connectionGone(): Error {
    const cause = this.closedError;
    if (cause instanceof Error && !(cause instanceof AbortError)) return cause;
    return new CliConnectionError("The CLI connection is closed", { cause });
  }

  private async consume(): Promise<void> {
    let failure: unknown;
    try {
      for await (const item of this.transport.readMessages()) {
        if (item instanceof JsonDecodeError) {
          this.events.onMalformedLine(item);
          continue;
        }
        this.route(item);
      }
    } catch (error) {
      failure = error;
    }
    this.shutdown(failure ?? new CliConnectionError("The CLI exited"));
    this.events.onEnd(failure);
  }

  private route(raw: RawObject): void {
    switch (raw.type) {
      case "control_response":
        this.settle(raw.response as RawObject | undefined);
        return;
      case "control_request":
        void this.answer(raw);
        return;
      case "control_cancel_request": {
        const id = String(raw.request_id ?? "");
        this.inflight.get(id)?.abort(new AbortError("The CLI cancelled this request"));
        return;
      }
      case "keep_alive":
        return;
      default:
        this.events.onMessage(raw);
    }
  }

  private settle(response: RawObject | undefined): void {
    if (!response) return;
    const id = String(response.request_id ?? "");
    const entry = this.pending.get(id);
    if (!entry) return; // A late answer to a request that already timed out.
    this.pending.delete(id);
    clearTimeout(entry.timer);
    if (response.subtype === "error") {
      const code = typeof response.error_code === "string" ? response.error_code : undefined;
      entry.reject(new ControlRequestError(entry.subtype, String(response.error ?? "unknown error"), code));
    } else {
      entry.resolve((response.response as RawObject | undefined) ?? {});
    }
  }

  /** Runs the handler for an incoming request; any failure or a timeout becomes an error response. */
  private async answer(raw: RawObject): Promise<void> {
    const requestId = String(raw.request_id ?? "");
    const request = (raw.request as RawObject | undefined) ?? {};
    const subtype = String(request.subtype ?? "");
    const controller = new AbortController();
    this.inflight.set(requestId, controller);
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    let reply: RawObject;
    try {
      const handler = this.handlers[subtype];
      if (!handler) throw new Error(`Unsupported control request subtype: ${subtype}`);
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          timedOut = true;
          const error = new Error(
            `The ${subtype} callback did not answer within ${this.callbackTimeoutMs} ms`,
          );
          controller.abort(error);
          reject(error);
        }, this.callbackTimeoutMs);
      });
      const payload = await Promise.race([handler(request, controller.signal), expired]);
      reply = { subtype: "success", request_id: requestId, response: payload };
    } catch (error) {
      reply = {
        subtype: "error",
        request_id: requestId,
        error: error instanceof Error ? error.message : String(error),
      };
    } finally {
      clearTimeout(timer);
      this.inflight.delete(requestId);
    }
    // Cancelled by the CLI or the session is closing: nobody is waiting for the answer.
    if ((controller.signal.aborted && !timedOut) || this.closedError !== undefined) return;
    // A failed write means the process is gone; the read loop reports that.
    await this.write({ type: "control_response", response: reply }).catch(() => undefined);
  }
}
