/**
 * JSON-RPC 2.0 over a JSON-lines `Transport`, as `codex app-server` speaks it: requests we send
 * (each with a timeout), notifications both ways, and requests the server sends us.
 *
 * Lines are routed by direction, never by id alone: the server numbers its own requests from 0, so
 * its request `{id: 0, method}` and the response to our request 0 can carry the same id.
 * - `method` and `id` → a request from the server (answered through `onRequest`, always);
 * - `method`, no `id` → a notification;
 * - `result` or `error`, no `method` → the response to one of our requests.
 */
import { ControlRequestError, type JsonDecodeError } from "../../errors.js";
import type { RawObject } from "../../messages.js";
import { PeerChannel } from "../../session/peer-channel.js";
import type { ReadFlow } from "../../transport/read-flow.js";
import type { Transport } from "../../transport/transport.js";
import { asObject } from "../../wire/read.js";
import { describeError } from "../../wire/safe-json.js";
import type { JsonRpcId } from "./protocol.js";

/** An error to answer a server request with. Throw it from `onRequest` to choose the code. */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "JsonRpcError";
  }
}

/** What the connection reports to its owner. */
export interface JsonRpcHandlers {
  /** A notification from the server, in order. */
  onNotification(method: string, params: RawObject, raw: RawObject): void;
  /**
   * A request from the server. The resolved value is the `result`; a thrown `JsonRpcError` becomes
   * an error response with its code, anything else an internal error (-32603). `signal` aborts when
   * the connection shuts down.
   */
  onRequest(method: string, params: RawObject, id: JsonRpcId, signal: AbortSignal): Promise<unknown>;
  /** A line that was not a JSON object (non-fatal). */
  onMalformedLine(error: JsonDecodeError): void;
  /** A JSON object that is neither a request, a notification nor a response we are waiting for. */
  onStrayLine?(raw: RawObject): void;
  /** The transport ended; `error` is set when it failed. Called once. */
  onEnd(error: unknown): void;
}

/** JSON-RPC error code for an exception thrown by a request handler. */
const INTERNAL_ERROR = -32603;

/** One JSON-RPC peer on a transport. */
export class JsonRpcConnection {
  private readonly channel: PeerChannel<JsonRpcId>;
  private nextId = 0;

  constructor(
    transport: Transport,
    private readonly handlers: JsonRpcHandlers,
    private readonly timeoutMs: number,
    flow?: ReadFlow,
  ) {
    this.channel = new PeerChannel<JsonRpcId>(
      transport,
      "codex app-server",
      () => this.nextId++,
      {
        onLine: (raw) => this.route(raw),
        onMalformedLine: (error) => handlers.onMalformedLine(error),
        onEnd: (error) => handlers.onEnd(error),
      },
      flow,
    );
  }

  /** Starts reading the transport. Call once, after `transport.connect()`. */
  start(): void {
    this.channel.start();
  }

  /** Resolves when the read loop has finished. */
  get finished(): Promise<void> {
    return this.channel.finished;
  }

  /**
   * Sends a request and resolves with its `result`. Rejects with `ControlTimeoutError` (naming the
   * method) when no answer comes within `timeoutMs`, `ControlRequestError` for an error response, and
   * the process's failure (e.g. `ProcessError`) when it dies first.
   */
  request<T = unknown>(method: string, params?: unknown, timeoutMs = this.timeoutMs): Promise<T> {
    return this.channel.request<T>(
      method,
      (id) => ({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) }),
      timeoutMs,
    );
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): Promise<void> {
    return this.channel.write({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  }

  /**
   * Closes the server's stdin through `end`, after every answer being computed and every queued
   * write has gone out.
   */
  endInput(end: () => Promise<void>): Promise<void> {
    return this.channel.endInput(end);
  }

  /** Aborts the handler of a server request that the server no longer needs answered. */
  cancelIncoming(id: JsonRpcId, reason: unknown): void {
    this.channel.cancelIncoming(id, reason);
  }

  /** Fails every pending request and aborts running handlers. Further requests fail at once. */
  shutdown(reason?: unknown): void {
    this.channel.shutdown(reason);
  }

  private route(raw: RawObject): void {
    const method = raw.method;
    const id = raw.id;
    if (typeof method === "string") {
      if (isId(id)) void this.answer(id, method, asObject(raw.params));
      else this.handlers.onNotification(method, asObject(raw.params), raw);
      return;
    }
    if (isId(id) && ("result" in raw || "error" in raw) && this.channel.isPending(id)) {
      this.settle(id, raw);
      return;
    }
    this.handlers.onStrayLine?.(raw);
  }

  private settle(id: JsonRpcId, raw: RawObject): void {
    const request = this.channel.settle(id);
    if (!request) return;
    if ("error" in raw && raw.error !== undefined && raw.error !== null) {
      const error = asObject(raw.error);
      const code = typeof error.code === "number" || typeof error.code === "string" ? String(error.code) : "";
      const message = typeof error.message === "string" ? error.message : JSON.stringify(raw.error);
      request.reject(new ControlRequestError(request.name, message, code || undefined));
      return;
    }
    request.resolve(raw.result);
  }

  /** Runs the request handler and always answers: a silent request would stall the turn forever. */
  private answer(id: JsonRpcId, method: string, params: RawObject): Promise<void> {
    return this.channel.answer(id, {
      name: method,
      handle: (signal) => this.handlers.onRequest(method, params, id, signal),
      success: (result) => ({ jsonrpc: "2.0", id, result: result ?? {} }),
      failure: (error) => {
        const code = error instanceof JsonRpcError ? error.code : INTERNAL_ERROR;
        const message = describeError(error);
        const data = error instanceof JsonRpcError && error.data !== undefined ? { data: error.data } : {};
        return { jsonrpc: "2.0", id, error: { code, message, ...data } };
      },
    });
  }
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === "number" || typeof value === "string";
}
