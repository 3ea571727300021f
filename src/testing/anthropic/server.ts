/**
 * A scripted fake of the Anthropic Messages API on `node:http`, for running the real `claude` CLI
 * offline. Binds to 127.0.0.1 on an ephemeral port.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { type ClaudeTestEnv, createClaudeTestEnv } from "../claude-env.js";
import {
  type AnthropicMessage,
  anthropicErrorBody,
  buildMessage,
  contentBlockEvents,
  estimateTokens,
  extractLastUserText,
  messageStartEvent,
  messageToSseEvents,
  pingEvent,
  type RecordedRequest,
  type ResolvedTurn,
  randomId,
  resolveTurn,
  type ScriptedTurn,
} from "./script.js";
import { formatSseEvent, type SseEvent } from "./sse.js";

/** Options for {@link startFakeAnthropic}. */
export interface FakeAnthropicOptions {
  /** The script: one turn per `POST /v1/messages` that is not a model check. */
  turns?: ScriptedTurn[];
  /** Used when the script runs out. Default: `{ text: "OK" }`. */
  defaultTurn?: ScriptedTurn;
  /** Model name echoed in responses when the request has none. Default: `"claude-fake-model"`. */
  model?: string;
}

/** Options for {@link FakeAnthropicServer.waitForRequest}. */
export interface WaitForRequestOptions {
  /** Reject after this many milliseconds. Default 30000. */
  timeoutMs?: number;
  /** Also match requests that were already recorded (the first match wins). Default false. */
  includePast?: boolean;
}

/** A running fake Anthropic API. `await using server = await startFakeAnthropic(...)` closes it. */
export interface FakeAnthropicServer extends AsyncDisposable {
  /** Base URL, e.g. `http://127.0.0.1:PORT` (use as `ANTHROPIC_BASE_URL`). */
  readonly url: string;
  /** Every request received, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Only the requests that consumed a scripted turn, in order. */
  readonly turnRequests: RecordedRequest[];
  /** Appends turns to the script. */
  push(...turns: ScriptedTurn[]): void;
  /**
   * Resolves with the next request matching `predicate` (checking already recorded ones first when
   * `includePast` is true). Rejects after `timeoutMs` (default 30000) with an Error naming the predicate
   * and the requests seen, or when the server closes.
   */
  waitForRequest(
    predicate: (r: RecordedRequest) => boolean,
    opts?: WaitForRequestOptions,
  ): Promise<RecordedRequest>;
  /**
   * Environment for the CLI (see {@link createClaudeTestEnv}) with `ANTHROPIC_BASE_URL` = {@link url},
   * merged with `extra`. The isolated temp home is created on the first call and removed by
   * {@link close}.
   */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Closes the server, destroys open sockets (stalled streams), removes temp dirs. Idempotent. */
  close(): Promise<void>;
}

interface Waiter {
  predicate: (r: RecordedRequest) => boolean;
  resolve: (r: RecordedRequest) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

const DEFAULT_MODEL = "claude-fake-model";

/**
 * Starts a fake Anthropic Messages API server on 127.0.0.1 (ephemeral port).
 *
 * Routing:
 * - `POST /v1/messages` (any query): a non-streaming request with `max_tokens: 1` is the CLI's model
 *   check (sent on `set_model`) and is answered automatically without consuming a turn. Any other
 *   request consumes the next scripted turn (or `defaultTurn`) and is answered with SSE when
 *   `stream: true`, else with the complete message JSON.
 * - `POST /v1/messages/count_tokens`: `{ input_tokens }` (rough estimate), no turn.
 * - other `GET`/`HEAD`: 200 `{}`; other methods/paths: 404 Anthropic error.
 * - malformed JSON bodies on the API endpoints: 400 `invalid_request_error`.
 *
 * Every request is recorded in `requests`. A function turn that throws is answered with a 400
 * `invalid_request_error` naming the exception.
 *
 * Error turns: the real CLI silently re-sends a request refused with 400/422 (up to twice, dropping
 * optional betas) and retries 401, 408, 409, 429, 5xx and 529 with backoff (≈0.5 s, then growing, up
 * to 10 retries, each reported as a `system`/`api_retry` line). To make a single scripted 4xx behave like
 * the real API, a 4xx error turn (other than 408/409/429) is "sticky": a re-send of the same conversation
 * (same `model` and `messages`) gets the same error without consuming a turn (it is recorded with
 * `scripted: false`). So `{ error: { status: 400 } }` or `403` makes the CLI report the API error within
 * milliseconds, while `401` makes it retry for minutes. Transient errors (429/5xx/529) are not sticky:
 * `[{ error: { status: 500 } }, { text: "ok" }]` shows one `api_retry`, then "ok" (≈0.5 s later).
 *
 * @param options - Script, default turn, model name.
 * @returns The running server.
 */
export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropicServer> {
  const script: ScriptedTurn[] = [...(options.turns ?? [])];
  const defaultTurn: ScriptedTurn = options.defaultTurn ?? { text: "OK" };
  const defaultModel = options.model ?? DEFAULT_MODEL;
  const requests: RecordedRequest[] = [];
  const turnRequests: RecordedRequest[] = [];
  const waiters = new Set<Waiter>();
  const sockets = new Set<Socket>();
  const lifetime = new AbortController();
  let testEnv: ClaudeTestEnv | undefined;
  let closing: Promise<void> | undefined;
  /** The last request refused by a deterministic (sticky) error turn, see {@link isStickyStatus}. */
  let rejected: { key: string; turn: Extract<ResolvedTurn, { kind: "error" }> } | undefined;

  const notify = (record: RecordedRequest): void => {
    for (const w of [...waiters]) {
      if (safeMatch(w.predicate, record)) {
        waiters.delete(w);
        clearTimeout(w.timer);
        w.resolve(record);
      }
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const method = (req.method ?? "GET").toUpperCase();
    const raw = await readBody(req);
    let body: any;
    let malformed = false;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        malformed = true;
      }
    }
    const isMessages = method === "POST" && url.pathname === "/v1/messages";
    const isCountTokens = method === "POST" && url.pathname === "/v1/messages/count_tokens";
    const validBody = !malformed && body !== null && typeof body === "object" && !Array.isArray(body);
    const isModelCheck = isMessages && validBody && body.stream !== true && body.max_tokens === 1;
    const key = isMessages && validBody && !isModelCheck ? conversationKey(body) : undefined;
    // The CLI re-sends a request refused with a 4xx (e.g. dropping optional betas on a 400): give the
    // re-send the same error, as the real API would, instead of consuming the next turn.
    const replay = key !== undefined && rejected?.key === key ? rejected.turn : undefined;
    const consumes = key !== undefined && replay === undefined;

    const record: RecordedRequest = {
      method,
      path: url.pathname,
      query: url.search,
      headers: { ...req.headers },
      body,
      scripted: consumes,
      lastUserText: validBody ? extractLastUserText(body) : "",
    };
    requests.push(record);
    // Take the turn synchronously so that turnRequests[i] always corresponds to script turn i.
    let turn: ScriptedTurn | undefined;
    if (consumes) {
      turnRequests.push(record);
      turn = script.length > 0 ? script.shift() : defaultTurn;
    }
    notify(record);

    if ((isMessages || isCountTokens) && !validBody) {
      sendError(
        res,
        400,
        "invalid_request_error",
        malformed ? "Malformed JSON body" : "Body must be a JSON object",
      );
      return;
    }
    const model = typeof body?.model === "string" ? (body.model as string) : defaultModel;

    if (isCountTokens) {
      sendJson(res, 200, { input_tokens: inputTokensOf(body) });
      return;
    }
    if (isModelCheck) {
      const message = buildMessage([{ type: "text", text: "OK" }], {
        model,
        stopReason: "max_tokens",
        inputTokens: inputTokensOf(body),
      });
      message.usage.output_tokens = 1;
      sendJson(res, 200, message);
      return;
    }
    if (replay !== undefined) {
      await answerTurn(req, res, replay, { stream: false, model, inputTokens: 0, signal: lifetime.signal });
      return;
    }
    if (isMessages && turn !== undefined && key !== undefined) {
      rejected = undefined;
      let resolved: ResolvedTurn;
      try {
        resolved = await resolveTurn(turn, record);
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        sendError(res, 400, "invalid_request_error", `fake-anthropic: scripted turn failed: ${msg}`);
        return;
      }
      if (resolved.kind === "error" && isStickyStatus(resolved.status)) rejected = { key, turn: resolved };
      await answerTurn(req, res, resolved, {
        stream: body.stream === true,
        model,
        inputTokens: inputTokensOf(body),
        signal: lifetime.signal,
      });
      return;
    }
    if (method === "GET" || method === "HEAD") {
      sendJson(res, 200, {}, method === "HEAD");
      return;
    }
    sendError(res, 404, "not_found_error", `fake-anthropic: no route for ${method} ${url.pathname}`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        sendError(res, 500, "api_error", `fake-anthropic internal error: ${String(err)}`);
      } else {
        res.destroy();
      }
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;

  const close = (): Promise<void> => {
    closing ??= (async () => {
      lifetime.abort();
      for (const w of [...waiters]) {
        waiters.delete(w);
        clearTimeout(w.timer);
        w.reject(
          new Error(
            `fake-anthropic: server closed while waiting for a request matching ${describe(w.predicate)}`,
          ),
        );
      }
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
      await testEnv?.cleanup();
    })();
    return closing;
  };

  return {
    url: baseUrl,
    requests,
    turnRequests,
    push(...turns: ScriptedTurn[]): void {
      script.push(...turns);
    },
    waitForRequest(predicate, opts = {}): Promise<RecordedRequest> {
      const { timeoutMs = 30_000, includePast = false } = opts;
      if (includePast) {
        const found = requests.find((r) => safeMatch(predicate, r));
        if (found) return Promise.resolve(found);
      }
      if (closing) {
        return Promise.reject(
          new Error(`fake-anthropic: server is closed (waiting for ${describe(predicate)})`),
        );
      }
      return new Promise<RecordedRequest>((resolve, reject) => {
        const waiter: Waiter = {
          predicate,
          resolve,
          reject,
          timer: setTimeout(() => {
            waiters.delete(waiter);
            const seen = requests.map((r) => `${r.method} ${r.path}${r.query}`).join(", ") || "none";
            reject(
              new Error(
                `fake-anthropic: timed out after ${timeoutMs} ms waiting for a request matching ${describe(predicate)} (received ${requests.length}: ${seen})`,
              ),
            );
          }, timeoutMs),
        };
        waiters.add(waiter);
      });
    },
    env(extra?: Record<string, string>): Record<string, string> {
      if (closing) throw new Error("fake-anthropic: env() called after close()");
      testEnv ??= createClaudeTestEnv(baseUrl);
      return { ...testEnv.env, ...extra };
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Client errors that the real API would return again for the same request. 408, 409 and 429 are
 * transient by definition, so the CLI's retry of those consumes the next turn.
 */
function isStickyStatus(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429;
}

/** Identifies "the same request" across the CLI's re-sends (which may change headers, betas, thinking). */
function conversationKey(body: any): string {
  return createHash("sha256")
    .update(JSON.stringify([body.model, body.messages]) ?? "")
    .digest("hex");
}

function safeMatch(predicate: (r: RecordedRequest) => boolean, r: RecordedRequest): boolean {
  try {
    return predicate(r) === true;
  } catch {
    return false;
  }
}

function describe(predicate: (...args: never[]) => unknown): string {
  const src = predicate.toString().replace(/\s+/g, " ");
  return src.length > 200 ? `${src.slice(0, 200)}…` : src;
}

function inputTokensOf(body: any): number {
  return estimateTokens({ system: body?.system, messages: body?.messages, tools: body?.tools });
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch {
    // Client went away mid-body: treat what arrived as the body.
  }
  return Buffer.concat(chunks);
}

function sendJson(res: ServerResponse, status: number, payload: unknown, headOnly = false): void {
  if (res.destroyed || res.writableEnded) return;
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "request-id": randomId("req"),
  });
  res.end(headOnly ? undefined : text);
}

function sendError(res: ServerResponse, status: number, errorType: string, message: string): void {
  sendJson(res, status, anthropicErrorBody(errorType, message));
}

function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    "request-id": randomId("req"),
  });
  res.flushHeaders();
}

function writeEvent(res: ServerResponse, event: SseEvent): boolean {
  if (res.destroyed || res.writableEnded) return false;
  res.write(formatSseEvent(event));
  return true;
}

/** The first events of a stream that is then stalled or broken: message_start, ping, optional text. */
function partialEvents(message: AnthropicMessage, text: string | undefined): SseEvent[] {
  const events = [messageStartEvent(message), pingEvent()];
  if (text !== undefined) {
    // Only the start and the deltas: the block is never stopped.
    events.push(...contentBlockEvents({ type: "text", text }, 0).slice(0, -1));
  }
  return events;
}

async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (ms <= 0) return !signal.aborted;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

async function answerTurn(
  req: IncomingMessage,
  res: ServerResponse,
  turn: ResolvedTurn,
  ctx: { stream: boolean; model: string; inputTokens: number; signal: AbortSignal },
): Promise<void> {
  switch (turn.kind) {
    case "error":
      sendError(res, turn.status, turn.errorType, turn.message);
      return;
    case "message": {
      const message = buildMessage(turn.blocks, {
        model: ctx.model,
        ...(turn.stopReason !== undefined ? { stopReason: turn.stopReason } : {}),
        inputTokens: ctx.inputTokens,
      });
      if (!ctx.stream) {
        if (await pause(turn.delayMs, ctx.signal)) sendJson(res, 200, message);
        return;
      }
      startSse(res);
      const events = messageToSseEvents(message);
      for (let i = 0; i < events.length; i++) {
        if (i > 0 && !(await pause(turn.delayMs, ctx.signal))) return;
        if (!writeEvent(res, events[i]!)) return;
      }
      res.end();
      return;
    }
    case "stall": {
      if (ctx.stream) {
        startSse(res);
        for (const e of partialEvents(
          buildMessage([], { model: ctx.model, inputTokens: ctx.inputTokens }),
          turn.text,
        )) {
          writeEvent(res, e);
        }
      }
      // Leave the response open: it ends when the client disconnects or close() destroys the socket.
      return;
    }
    case "broken": {
      if (ctx.stream) {
        startSse(res);
        for (const e of partialEvents(
          buildMessage([], { model: ctx.model, inputTokens: ctx.inputTokens }),
          turn.text,
        )) {
          writeEvent(res, e);
        }
        // Let the partial stream reach the client before cutting the connection.
        await pause(20, ctx.signal);
      }
      req.socket.destroy();
      return;
    }
  }
}
