/**
 * A scripted fake of the OpenAI Responses API (`POST /v1/responses`, SSE) on `node:http`, for running
 * the real `codex` CLI offline. Binds to 127.0.0.1 on an ephemeral port.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { describeError } from "../../wire/safe-json.js";
import { type CodexHome, type CodexHomeOptions, createCodexHome } from "../codex-home.js";
import { type FakeServerBase, FakeServerCore } from "../shared/fake-server.js";
import {
  pause,
  readJsonRequest,
  sendJson as sendJsonWithId,
  sendUnfinishedStream,
  startSse,
  streamSseEvents,
  writeSseEvent,
} from "../shared/http.js";
import { estimateTokens, randomId } from "../shared/script.js";
import type { SseEvent } from "../shared/sse.js";
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
export interface FakeOpenAIServer extends FakeServerBase<RecordedResponsesRequest, ResponsesTurn> {
  /** Base URL, e.g. `http://127.0.0.1:PORT` (the API lives under `/v1`). */
  readonly url: string;
  /**
   * Writes a new isolated `CODEX_HOME` whose `config.toml` points the CLI at this server (see
   * {@link createCodexHome}; `model` defaults to the server's model). Every call creates a new home;
   * all are removed by {@link close}.
   */
  codexHome(opts?: FakeOpenAICodexHomeOptions): CodexHome;
}

const DEFAULT_MODEL = "gpt-5.5";

/** Where the OpenAI API puts its request id. */
const REQUEST_ID_HEADER = "x-request-id";

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
  const defaultModel = options.model ?? DEFAULT_MODEL;
  const homes: CodexHome[] = [];
  const core = new FakeServerCore<RecordedResponsesRequest, ResponsesTurn>({
    label: "fake-openai",
    turns: options.turns,
    defaultTurn: options.defaultTurn ?? { text: "OK" },
    cleanup: async () => {
      await Promise.all(homes.map((h) => h.cleanup()));
    },
  });
  /** Second halves of searching `mcpCall`s, keyed by the `tool_search_call` call id. */
  const pendingMcp = new Map<string, PendingMcpCall>();
  const newCallId = (): string => randomId("call");

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { method, path, query, headers, body, malformed, validBody } = await readJsonRequest(req);
    const isResponses = method === "POST" && /^(\/v1)?\/responses\/?$/.test(path);
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
      path,
      query,
      headers,
      body,
      scripted: consumes,
      lastUserText: validBody ? extractLastUserText(body) : "",
      toolOutputs,
    };
    const turn = core.record(record, consumes);

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
        signal: core.signal,
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
    if ((method === "GET" || method === "HEAD") && /^(\/v1)?\/models\/?$/.test(path)) {
      const list = {
        object: "list",
        data: [{ id: defaultModel, object: "model", created: 1_700_000_000, owned_by: "fake-openai" }],
      };
      sendJson(res, 200, list, method === "HEAD");
      return;
    }
    sendError(res, 404, `fake-openai: no route for ${method} ${path}`, "not_found");
  };

  const baseUrl = await core.listen(handle, (res, err) =>
    sendError(res, 500, `fake-openai internal error: ${describeError(err)}`, "server_error"),
  );

  return {
    ...core.base(baseUrl),
    codexHome(opts: FakeOpenAICodexHomeOptions = {}): CodexHome {
      if (core.isClosed) throw new Error("fake-openai: codexHome() called after close()");
      const home = createCodexHome({ model: defaultModel, ...opts, baseUrl });
      homes.push(home);
      return home;
    },
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
  sendJsonWithId(res, status, payload, REQUEST_ID_HEADER, headOnly);
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

/** Starts an SSE response whose events get consecutive `sequence_number`s; returns their writer. */
function startSequencedSse(res: ServerResponse): (event: SseEvent) => boolean {
  startSse(res, REQUEST_ID_HEADER);
  let seq = 0;
  return (event) => writeSseEvent(res, withSequence(event, seq++));
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
      if (turn.retryAfter !== undefined) res.setHeader("retry-after", String(turn.retryAfter));
      sendError(res, turn.status, turn.message, turn.errorType, turn.code);
      return;
    case "response": {
      const output = turn.items.map(buildWireItem);
      const done = { ...response("completed", output), usage: buildUsage(ctx.inputTokens, output) };
      if (!ctx.stream) {
        if (await pause(turn.delayMs, ctx.signal)) sendJson(res, 200, done);
        return;
      }
      const write = startSequencedSse(res);
      await streamSseEvents(res, responseToSseEvents(done), write, turn.delayMs, ctx.signal);
      return;
    }
    case "failed": {
      const failed = { ...response("failed"), error: { code: turn.code, message: turn.message } };
      if (!ctx.stream) {
        sendJson(res, 200, failed);
        return;
      }
      const write = startSequencedSse(res);
      for (const e of failedResponseEvents(failed)) write(e);
      res.end();
      return;
    }
    case "stall":
    case "broken":
      await sendUnfinishedStream(
        req,
        turn.kind,
        ctx.stream,
        () => {
          const write = startSequencedSse(res);
          for (const e of partialResponseEvents(response("in_progress"), turn.text)) write(e);
        },
        ctx.signal,
      );
      return;
  }
}
