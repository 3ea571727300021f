/**
 * The Claude Code control protocol over a `Transport`: request/response correlation for requests we
 * send (with a timeout each), dispatch of requests the CLI sends us (`can_use_tool`,
 * `hook_callback`, `mcp_message`), cancellation, and forwarding of every other line as a message.
 */
import { AbortError, ControlRequestError, type JsonDecodeError } from "../../errors.js";
import type { RawObject } from "../../messages.js";
import { PeerChannel } from "../../session/peer-channel.js";
import type { ReadFlow } from "../../transport/read-flow.js";
import type { Transport } from "../../transport/transport.js";
import { describeError } from "../../wire/safe-json.js";

/**
 * A handler's way to leave a request unanswered on purpose (another client, or the CLI's own
 * deadline, settles it), as the official SDK does for dialogs it cannot render.
 */
export const NO_ANSWER: unique symbol = Symbol("no answer");

/** Handles one incoming control request; the returned object is the success payload. */
export type IncomingRequestHandler = (
  request: RawObject,
  signal: AbortSignal,
  requestId: string,
) => Promise<RawObject | typeof NO_ANSWER>;

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

function nextRequestId(): string {
  requestCounter += 1;
  return `req_${requestCounter}_${Math.random().toString(16).slice(2, 10)}`;
}

/** How long a user callback may take before the CLI gets an error answer. */
export const DEFAULT_CALLBACK_TIMEOUT_MS = 600_000;

/** Drives one Claude Code process's stdin/stdout. */
export class ControlProtocol {
  private readonly channel: PeerChannel<string>;

  constructor(
    transport: Transport,
    private readonly handlers: Partial<Record<string, IncomingRequestHandler>>,
    private readonly events: ControlProtocolEvents,
    private readonly timeoutMs: number,
    private readonly callbackTimeoutMs: number = DEFAULT_CALLBACK_TIMEOUT_MS,
    flow?: ReadFlow,
  ) {
    this.channel = new PeerChannel(
      transport,
      "CLI",
      nextRequestId,
      {
        onLine: (raw) => this.route(raw),
        onMalformedLine: (error) => events.onMalformedLine(error),
        onEnd: (error) => events.onEnd(error),
      },
      flow,
    );
  }

  /** Starts consuming the transport. Call once, after `transport.connect()`. */
  start(): void {
    this.channel.start();
  }

  /** Resolves when the read loop has finished (the process output ended). */
  get finished(): Promise<void> {
    return this.channel.finished;
  }

  /**
   * Writes one JSON message. Writes are serialized so concurrent callers never interleave lines.
   * Rejects if the transport is gone.
   */
  write(message: RawObject): Promise<void> {
    return this.channel.write(message);
  }

  /**
   * Closes the CLI's stdin through `end`, after every answer being computed and every queued write
   * has gone out.
   */
  endInput(end: () => Promise<void>): Promise<void> {
    return this.channel.endInput(end);
  }

  /** Sends a control request and resolves with the CLI's response payload. */
  request(
    request: { subtype: string; [key: string]: unknown },
    timeoutMs = this.timeoutMs,
  ): Promise<RawObject> {
    return this.channel.request(
      request.subtype,
      (requestId) => ({ type: "control_request", request_id: requestId, request }),
      timeoutMs,
    );
  }

  /** Fails every pending request and aborts running callbacks (the session is closing). */
  shutdown(reason?: unknown): void {
    this.channel.shutdown(reason);
  }

  private route(raw: RawObject): void {
    switch (raw.type) {
      case "control_response":
        this.settle(raw.response as RawObject | undefined);
        return;
      case "control_request":
        void this.answer(raw);
        return;
      case "control_cancel_request":
        this.channel.cancelIncoming(
          String(raw.request_id ?? ""),
          new AbortError("The CLI cancelled this request"),
        );
        return;
      case "keep_alive":
        return;
      default:
        this.events.onMessage(raw);
    }
  }

  private settle(response: RawObject | undefined): void {
    if (!response) return;
    const request = this.channel.settle(String(response.request_id ?? ""));
    if (!request) return; // A late answer to a request that already timed out.
    if (response.subtype === "error") {
      const code = typeof response.error_code === "string" ? response.error_code : undefined;
      request.reject(new ControlRequestError(request.name, String(response.error ?? "unknown error"), code));
    } else {
      request.resolve((response.response as RawObject | undefined) ?? {});
    }
  }

  /** Runs the handler for an incoming request; any failure or a timeout becomes an error response. */
  private answer(raw: RawObject): Promise<void> {
    const requestId = String(raw.request_id ?? "");
    const request = (raw.request as RawObject | undefined) ?? {};
    const subtype = String(request.subtype ?? "");
    const reply = (response: RawObject): RawObject => ({ type: "control_response", response });
    return this.channel.answer(requestId, {
      name: subtype,
      handle: (signal) => {
        const handler = this.handlers[subtype];
        if (!handler) throw new Error(`Unsupported control request subtype: ${subtype}`);
        return handler(request, signal, requestId);
      },
      success: (payload) =>
        payload === NO_ANSWER
          ? undefined
          : reply({ subtype: "success", request_id: requestId, response: payload }),
      failure: (error) =>
        reply({
          subtype: "error",
          request_id: requestId,
          error: describeError(error),
        }),
      timeoutMs: this.callbackTimeoutMs,
      // Cancelled by the CLI: nobody is waiting for the answer.
      silentWhenCancelled: true,
    });
  }
}
