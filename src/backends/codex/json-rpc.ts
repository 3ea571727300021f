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
import {
  AbortError,
  CliConnectionError,
  ControlRequestError,
  ControlTimeoutError,
  JsonDecodeError,
} from "../../errors.js";
import type { RawObject } from "../../messages.js";
import type { Transport } from "../../transport/transport.js";
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

interface Pending {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
}

/** JSON-RPC error code for an exception thrown by a request handler. */
const INTERNAL_ERROR = -32603;

/** One JSON-RPC peer on a transport. */
export class JsonRpcConnection {
  private readonly pending = new Map<JsonRpcId, Pending>();
  private readonly inflight = new Map<JsonRpcId, AbortController>();
  private nextId = 0;
  private closedError: unknown;
  private readLoop: Promise<void> | undefined;
  private writeChain: Promise<void> = Promise.resolve();

  constructor(
    private readonly transport: Transport,
    private readonly handlers: JsonRpcHandlers,
    private readonly timeoutMs: number,
  ) {}

  /** Starts reading the transport. Call once, after `transport.connect()`. */
  start(): void {
    this.readLoop ??= this.consume();
  }

  /** Resolves when the read loop has finished. */
  get finished(): Promise<void> {
    return this.readLoop ?? Promise.resolve();
  }

  /**
   * Sends a request and resolves with its `result`. Rejects with `ControlTimeoutError` (naming the
   * method) when no answer comes within `timeoutMs`, `ControlRequestError` for an error response, and
   * the process's failure (e.g. `ProcessError`) when it dies first.
   */
  async request<T = unknown>(method: string, params?: unknown, timeoutMs = this.timeoutMs): Promise<T> {
    if (this.closedError !== undefined) throw this.connectionGone();
    const id = this.nextId++;
    const response = new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ControlTimeoutError(method, timeoutMs));
      }, timeoutMs);
      this.pending.set(id, { method, resolve: resolve as (r: unknown) => void, reject, timer });
    });
    try {
      await this.write({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    } catch (error) {
      this.forget(id);
      throw error;
    }
    return response;
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): Promise<void> {
    return this.write({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  }

  /** Aborts the handler of a server request that the server no longer needs answered. */
  cancelIncoming(id: JsonRpcId, reason: unknown): void {
    this.inflight.get(id)?.abort(reason);
  }

  /** Fails every pending request and aborts running handlers. Further requests fail at once. */
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

  private write(message: RawObject): Promise<void> {
    const line = JSON.stringify(message);
    const next = this.writeChain.then(() => {
      if (this.closedError !== undefined) throw this.connectionGone();
      return this.transport.write(line);
    });
    // Writes are serialized so lines never interleave; a failed one does not block the next.
    this.writeChain = next.catch(() => undefined);
    return next;
  }

  private forget(id: JsonRpcId): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.pending.delete(id);
  }

  private connectionGone(): Error {
    const cause = this.closedError;
    if (cause instanceof Error && !(cause instanceof AbortError)) return cause;
    return new CliConnectionError("The codex app-server connection is closed", { cause });
  }

  private async consume(): Promise<void> {
    let failure: unknown;
    try {
      for await (const item of this.transport.readMessages()) {
        if (item instanceof JsonDecodeError) {
          this.handlers.onMalformedLine(item);
          continue;
        }
        this.route(item);
      }
    } catch (error) {
      failure = error;
    }
    this.shutdown(failure ?? new CliConnectionError("The codex app-server exited"));
    this.handlers.onEnd(failure);
  }

  private route(raw: RawObject): void {
    const method = raw.method;
    const id = raw.id;
    if (typeof method === "string") {
      if (isId(id)) void this.answer(id, method, asObject(raw.params));
      else this.handlers.onNotification(method, asObject(raw.params), raw);
      return;
    }
    if (isId(id) && ("result" in raw || "error" in raw) && this.pending.has(id)) {
      this.settle(id, raw);
      return;
    }
    this.handlers.onStrayLine?.(raw);
  }

  private settle(id: JsonRpcId, raw: RawObject): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.forget(id);
    if ("error" in raw && raw.error !== undefined && raw.error !== null) {
      const error = asObject(raw.error);
      const code = typeof error.code === "number" || typeof error.code === "string" ? String(error.code) : "";
      const message = typeof error.message === "string" ? error.message : JSON.stringify(raw.error);
      entry.reject(new ControlRequestError(entry.method, message, code || undefined));
      return;
    }
    entry.resolve(raw.result);
  }

  /** Runs the request handler and always answers: a silent request would stall the turn forever. */
  private async answer(id: JsonRpcId, method: string, params: RawObject): Promise<void> {
    const controller = new AbortController();
    this.inflight.set(id, controller);
    let reply: RawObject;
    try {
      const result = await this.handlers.onRequest(method, params, id, controller.signal);
      reply = { jsonrpc: "2.0", id, result: result ?? {} };
    } catch (error) {
      const code = error instanceof JsonRpcError ? error.code : INTERNAL_ERROR;
      const message = error instanceof Error ? error.message : String(error);
      const data = error instanceof JsonRpcError && error.data !== undefined ? { data: error.data } : {};
      reply = { jsonrpc: "2.0", id, error: { code, message, ...data } };
    } finally {
      this.inflight.delete(id);
    }
    if (this.closedError !== undefined) return;
    // A failed write means the process is gone; the read loop reports that.
    await this.write(reply).catch(() => undefined);
  }
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === "number" || typeof value === "string";
}

function asObject(value: unknown): RawObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as RawObject) : {};
}
