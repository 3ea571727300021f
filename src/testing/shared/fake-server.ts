/**
 * The part of a fake API server that does not depend on the API: the script of turns, the request
 * journal, the `node:http` server on 127.0.0.1, and closing it all with streams still open.
 *
 * @module
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import {
  createRequestLog,
  type LoggableRequest,
  type RequestLog,
  type WaitForRequestOptions,
} from "./request-log.js";

/** What every fake server offers, whatever the API. */
export interface FakeServerBase<R, T> extends AsyncDisposable {
  /** Base URL, e.g. `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Every request received, in arrival order. */
  readonly requests: R[];
  /** Only the requests that consumed a scripted turn, in order: `turnRequests[i]` answered turn `i`. */
  readonly turnRequests: R[];
  /** Appends turns to the script. */
  push(...turns: T[]): void;
  /**
   * Resolves with the next request matching `predicate` (checking already recorded ones first when
   * `includePast` is true). Rejects after `timeoutMs` (default 30000) with an Error naming the predicate
   * and the requests seen, or when the server closes.
   */
  waitForRequest(predicate: (r: R) => boolean, opts?: WaitForRequestOptions): Promise<R>;
  /** Closes the server, destroys open sockets (ending stalled streams), removes temp dirs. Idempotent. */
  close(): Promise<void>;
}

/** How a fake server is set up. */
export interface FakeServerCoreOptions<T> {
  /** Prefix of error messages, e.g. `fake-openai`. */
  label: string;
  /** The script. */
  turns: T[] | undefined;
  /** Used when the script runs out. */
  defaultTurn: T;
  /** Removes what the server created besides itself (temp homes). Runs last in `close()`. */
  cleanup: () => Promise<void>;
}

/** The script, journal and HTTP server of one fake server; the API-specific routing sits on top. */
export class FakeServerCore<R extends LoggableRequest, T> {
  /** The request journal. */
  readonly log: RequestLog<R>;
  private readonly script: T[];
  private readonly defaultTurn: T;
  private readonly cleanup: () => Promise<void>;
  private readonly lifetime = new AbortController();
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: FakeServerCoreOptions<T>) {
    this.log = createRequestLog<R>(options.label);
    this.script = [...(options.turns ?? [])];
    this.defaultTurn = options.defaultTurn;
    this.cleanup = options.cleanup;
  }

  /** Aborts when the server starts closing: pending pauses end, so no response outlives it. */
  get signal(): AbortSignal {
    return this.lifetime.signal;
  }

  /** True from the first `close()` on. */
  get isClosed(): boolean {
    return this.closing !== undefined;
  }

  /**
   * Records a request and, when it `consumes` one, takes the next scripted turn (or the default).
   * Both happen at once, so `turnRequests[i]` always corresponds to script turn `i` even when
   * requests overlap.
   *
   * @returns The turn, when the request consumes one.
   */
  record(request: R, consumes: boolean): T | undefined {
    const turn = consumes ? (this.script.length > 0 ? this.script.shift() : this.defaultTurn) : undefined;
    this.log.record(request, consumes);
    return turn;
  }

  /**
   * Listens on 127.0.0.1 (ephemeral port).
   *
   * @param handle - Answers one request.
   * @param internalError - Answers a request whose `handle` threw before anything was sent; after
   *   that, the response is destroyed instead.
   * @returns The base URL.
   */
  async listen(
    handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
    internalError: (res: ServerResponse, error: unknown) => void,
  ): Promise<string> {
    const server = createServer((req, res) => {
      handle(req, res).catch((err: unknown) => {
        if (!res.headersSent && !res.destroyed) internalError(res, err);
        else res.destroy();
      });
    });
    server.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    this.server = server;
    const { port } = server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** The members of {@link FakeServerBase}, for the server object to spread. */
  base(url: string): FakeServerBase<R, T> {
    const close = (): Promise<void> => this.close();
    return {
      url,
      requests: this.log.requests,
      turnRequests: this.log.turnRequests,
      push: (...turns: T[]): void => {
        this.script.push(...turns);
      },
      waitForRequest: (predicate, opts) => this.log.waitFor(predicate, opts),
      close,
      [Symbol.asyncDispose]: close,
    };
  }

  /** Closes the server: see {@link FakeServerBase.close}. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.lifetime.abort();
      this.log.close();
      const server = this.server;
      if (server) {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
          for (const s of this.sockets) s.destroy();
        });
      }
      await this.cleanup();
    })();
    return this.closing;
  }
}
