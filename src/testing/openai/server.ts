/**
 * A scripted fake of the OpenAI Responses API (`POST /v1/responses`, SSE) on `node:http`, for running
 * the real `codex` CLI offline. Binds to 127.0.0.1 on an ephemeral port.
 *
 * @module
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { estimateTokens, randomId } from "../anthropic/script.js";
import { formatSseEvent, type SseEvent } from "../anthropic/sse.js";
import { type CodexHome, type CodexHomeOptions, createCodexHome } from "../codex-home.js";
import { parseJsonBody, pause, readBody } from "../shared/http.js";
import { createRequestLog, type WaitForRequestOptions } from "../shared/request-log.js";
import {
  buildResponse,
  buildUsage,
  buildWireItem,
  failedResponseEvents,
  partialResponseEvents,
  type ResponsesObject,
  type ResponsesWireItem,
  responseToSseEvents,
  withSequence,
} from "./events.js";
import {
  extractLastUserText,
  extractToolOutputs,
  mcpFunctionCall,
  mcpNamespace,
  openAIErrorBody,
  type PendingMcpCall,
  type RecordedResponsesRequest,
  type ResolvedResponsesTurn,
  type ResponsesTurn,
  resolveResponsesTurn,
} from "./script.js";

/** Options for {@link startFakeOpenAI}. */
export interface FakeOpenAIOptions {
  /** The script: one turn per `POST /v1/responses`. */
  turns?: ResponsesTurn[];
  /** Used when the script runs out. Default: `{ text: "OK" }`. */
  defaultTurn?: ResponsesTurn;
  /**
   * Model name: echoed in responses when the request has none, listed by `GET /v1/models`, and the
   * default `model` of {@link FakeOpenAIServer.codexHome}. Default `"gpt-5.5"`.
   */
  model?: string;
}

/** Options for {@link FakeOpenAIServer.codexHome}: {@link CodexHomeOptions} without `baseUrl`. */
export type FakeOpenAICodexHomeOptions = Omit<CodexHomeOptions, "baseUrl">;

/** A running fake OpenAI Responses API. `await using server = await startFakeOpenAI(...)` closes it. */
export interface FakeOpenAIServer extends AsyncDisposable {
  /** Base URL, e.g. `http://127.0.0.1:PORT` (the API lives under `/v1`). */
  readonly url: string;
  /** Every request received, in arrival order. */
  readonly requests: RecordedResponsesRequest[];
  /** Only the requests that consumed a scripted turn, in order: `turnRequests[i]` answered turn `i`. */
  readonly turnRequests: RecordedResponsesRequest[];
  /** Appends turns to the script. */
  push(...turns: ResponsesTurn[]): void;
  /**
   * Resolves with the next request matching `predicate` (checking already recorded ones first when
   * `includePast` is true). Rejects after `timeoutMs` (default 30000) with an Error naming the predicate
   * and the requests seen, or when the server closes.
   */
  waitForRequest(
    predicate: (r: RecordedResponsesRequest) => boolean,
    opts?: WaitForRequestOptions,
  ): Promise<RecordedResponsesRequest>;
  /**
   * Writes a new isolated `CODEX_HOME` whose `config.toml` points the CLI at this server (see
   * {@link createCodexHome}; `model` defaults to the server's model). Every call creates a new home;
   * all are removed by {@link close}.
   */
  codexHome(opts?: FakeOpenAICodexHomeOptions): CodexHome;
  /** Closes the server, destroys open sockets (ending stalled streams), removes the homes. Idempotent. */
  close(): Promise<void>;
}

const DEFAULT_MODEL = "gpt-5.5";

/**
 * Starts a fake OpenAI Responses API server on 127.0.0.1 (ephemeral port).
 *
 * Routing:
 * - `POST /v1/responses` (or `/responses`): consumes the next scripted turn (or `defaultTurn`) and
 *   answers with SSE when `stream: true` (the CLI always streams), else with the `response` JSON.
 *   Exception: the CLI's follow-up to a searching `mcpCall` (a request whose `input` holds the
 *   `tool_search_output` of the fake's `tool_search_call`) is answered with the MCP `function_call`
 *   without consuming a turn (`scripted: false`).
 * - `GET /v1/models` (or `/models`): an OpenAI model list holding `model`.
 * - anything else: 404 with an OpenAI error body. Malformed JSON on `/v1/responses`: 400.
 *
 * Every request is recorded in `requests`. A function turn that throws is answered with a 400
 * `invalid_request_error` naming the exception.
 *
 * With the config of {@link createCodexHome} (`request_max_retries = 0`, `stream_max_retries = 0`) the
 * CLI makes exactly one request per model call and reports an error turn, `response.failed` or a
 * broken stream at once (`error` + `turn.failed`, exit code 1). With the CLI's default retries, each
 * retry would consume the next scripted turn.
 *
 * @param options - Script, default turn, model name.
 * @returns The running server.
 */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAIServer> {
  const script: ResponsesTurn[] = [...(options.turns ?? [])];
  const defaultTurn: ResponsesTurn = options.defaultTurn ?? { text: "OK" };
  const defaultModel = options.model ?? DEFAULT_MODEL;
  const log = createRequestLog<RecordedResponsesRequest>("fake-openai");
  const sockets = new Set<Socket>();
  const homes: CodexHome[] = [];
  const lifetime = new AbortController();
  /** Second halves of searching `mcpCall`s, keyed by the `tool_search_call` call id. */
  const pendingMcp = new Map<string, PendingMcpCall>();
  const newCallId = (): string => randomId("call");
  let closing: Promise<void> | undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const method = (req.method ?? "GET").toUpperCase();
    const { body, malformed } = parseJsonBody(await readBody(req));
    const isResponses = method === "POST" && /^(\/v1)?\/responses\/?$/.test(url.pathname);
    const validBody = !malformed && body !== null && typeof body === "object" && !Array.isArray(body);
    const toolOutputs = validBody ? extractToolOutputs(body) : [];
    const continuation =
      isResponses && validBody
        ? findContinuation(
            pendingMcp,
            toolOutputs.map((o) => o.call_id),
          )
        : undefined;
    const consumes = isResponses && validBody && continuation === undefined;

    const record: RecordedResponsesRequest = {
      method,
      path: url.pathname,
      query: url.search,
      headers: { ...req.headers },
      body,
      scripted: consumes,
      lastUserText: validBody ? extractLastUserText(body) : "",
      toolOutputs,
    };
    // Take the turn synchronously so that turnRequests[i] always corresponds to script turn i.
    let turn: ResponsesTurn | undefined;
    if (consumes) turn = script.length > 0 ? script.shift() : defaultTurn;
    log.record(record, consumes);

    if (isResponses && !validBody) {
      sendError(res, 400, malformed ? "Malformed JSON body" : "Body must be a JSON object");
      return;
    }
    if (isResponses) {
      const model = typeof body.model === "string" ? (body.model as string) : defaultModel;
      const ctx = {
        stream: body.stream === true,
        model,
        inputTokens: estimateTokens({
          instructions: body.instructions,
          input: body.input,
          tools: body.tools,
        }),
        signal: lifetime.signal,
      };
      let resolved: ResolvedResponsesTurn;
      if (continuation !== undefined) {
        pendingMcp.delete(continuation.searchCallId);
        resolved = {
          kind: "response",
          items: [mcpFunctionCall(continuation.call, searchedNamespace(continuation, toolOutputs))],
          delayMs: continuation.delayMs,
        };
      } else {
        try {
          resolved = await resolveResponsesTurn(turn!, record, newCallId);
        } catch (err) {
          const msg = err instanceof Error ? err.message : String(err);
          sendError(res, 400, `fake-openai: scripted turn failed: ${msg}`);
          return;
        }
      }
      if (resolved.kind === "response" && resolved.mcpSearch !== undefined) {
        pendingMcp.set(resolved.mcpSearch.searchCallId, resolved.mcpSearch);
      }
      await answerTurn(req, res, resolved, ctx);
      return;
    }
    if ((method === "GET" || method === "HEAD") && /^(\/v1)?\/models\/?$/.test(url.pathname)) {
      const list = {
        object: "list",
        data: [{ id: defaultModel, object: "model", created: 1_700_000_000, owned_by: "fake-openai" }],
      };
      sendJson(res, 200, list, method === "HEAD");
      return;
    }
    sendError(res, 404, `fake-openai: no route for ${method} ${url.pathname}`, "not_found");
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        sendError(res, 500, `fake-openai internal error: ${String(err)}`, "server_error");
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
      log.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
      await Promise.all(homes.map((h) => h.cleanup()));
    })();
    return closing;
  };

  return {
    url: baseUrl,
    requests: log.requests,
    turnRequests: log.turnRequests,
    push(...turns: ResponsesTurn[]): void {
      script.push(...turns);
    },
    waitForRequest(predicate, opts): Promise<RecordedResponsesRequest> {
      return log.waitFor(predicate, opts);
    },
    codexHome(opts: FakeOpenAICodexHomeOptions = {}): CodexHome {
      if (closing) throw new Error("fake-openai: codexHome() called after close()");
      const home = createCodexHome({ model: defaultModel, ...opts, baseUrl });
      homes.push(home);
      return home;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The pending searching `mcpCall` whose `tool_search_call` one of these call ids answers, if any. */
function findContinuation(
  pending: ReadonlyMap<string, PendingMcpCall>,
  callIds: ReadonlyArray<string | undefined>,
): PendingMcpCall | undefined {
  if (pending.size === 0) return undefined;
  for (const id of callIds) {
    const found = id !== undefined ? pending.get(id) : undefined;
    if (found) return found;
  }
  return undefined;
}

/**
 * The namespace to call after a tool search: the explicit one, else the namespace the CLI returned in
 * its `tool_search_output` for the server (matched by name, then by holding the tool), else the default.
 */
function searchedNamespace(
  pending: PendingMcpCall,
  outputs: RecordedResponsesRequest["toolOutputs"],
): string | undefined {
  if (pending.call.namespace !== undefined) return pending.call.namespace;
  const expected = mcpNamespace(pending.call.server);
  const result = outputs.find((o) => o.type === "tool_search_output" && o.call_id === pending.searchCallId);
  const namespaces = (result?.tools ?? []).filter(
    (t): t is { type: string; name: string; tools?: unknown } =>
      !!t && typeof (t as { name?: unknown }).name === "string",
  );
  if (namespaces.some((n) => n.name === expected)) return expected;
  const holder = namespaces.find(
    (n) =>
      Array.isArray(n.tools) &&
      n.tools.some((tool) => (tool as { name?: unknown } | null)?.name === pending.call.tool),
  );
  return holder?.name;
}

function sendJson(res: ServerResponse, status: number, payload: unknown, headOnly = false): void {
  if (res.destroyed || res.writableEnded) return;
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "x-request-id": randomId("req"),
  });
  res.end(headOnly ? undefined : text);
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  type = "invalid_request_error",
  code: string | null = null,
): void {
  sendJson(res, status, openAIErrorBody(message, type, code));
}

/** Writes SSE events with consecutive `sequence_number`s. */
class SseWriter {
  private seq = 0;
  constructor(private readonly res: ServerResponse) {
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "x-request-id": randomId("req"),
    });
    res.flushHeaders();
  }

  write(event: SseEvent): boolean {
    if (this.res.destroyed || this.res.writableEnded) return false;
    this.res.write(formatSseEvent(withSequence(event, this.seq++)));
    return true;
  }
}

async function answerTurn(
  req: IncomingMessage,
  res: ServerResponse,
  turn: ResolvedResponsesTurn,
  ctx: { stream: boolean; model: string; inputTokens: number; signal: AbortSignal },
): Promise<void> {
  const response = (status: ResponsesObject["status"], output: ResponsesWireItem[] = []): ResponsesObject =>
    buildResponse({
      id: randomId("resp"),
      model: ctx.model,
      createdAt: Math.floor(Date.now() / 1000),
      status,
      output,
    });
  switch (turn.kind) {
    case "error":
      sendError(res, turn.status, turn.message, turn.errorType, turn.code);
      return;
    case "response": {
      const output = turn.items.map(buildWireItem);
      const done = { ...response("completed", output), usage: buildUsage(ctx.inputTokens, output) };
      if (!ctx.stream) {
        if (await pause(turn.delayMs, ctx.signal)) sendJson(res, 200, done);
        return;
      }
      const sse = new SseWriter(res);
      const events = responseToSseEvents(done);
      for (let i = 0; i < events.length; i++) {
        if (i > 0 && !(await pause(turn.delayMs, ctx.signal))) return;
        if (!sse.write(events[i]!)) return;
      }
      res.end();
      return;
    }
    case "failed": {
      const failed = { ...response("failed"), error: { code: turn.code, message: turn.message } };
      if (!ctx.stream) {
        sendJson(res, 200, failed);
        return;
      }
      const sse = new SseWriter(res);
      for (const e of failedResponseEvents(failed)) sse.write(e);
      res.end();
      return;
    }
    case "stall": {
      if (ctx.stream) {
        const sse = new SseWriter(res);
        for (const e of partialResponseEvents(response("in_progress"), turn.text)) sse.write(e);
      }
      // Leave the response open: it ends when the client disconnects or close() destroys the socket.
      return;
    }
    case "broken": {
      if (ctx.stream) {
        const sse = new SseWriter(res);
        for (const e of partialResponseEvents(response("in_progress"), turn.text)) sse.write(e);
        // Let the partial stream reach the client before cutting the connection.
        await pause(20, ctx.signal);
      }
      req.socket.destroy();
      return;
    }
  }
}
