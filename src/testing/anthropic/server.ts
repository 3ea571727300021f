/**
 * A scripted fake of the Anthropic Messages API on `node:http`, for running the real `claude` CLI
 * offline. Binds to 127.0.0.1 on an ephemeral port.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describeError } from "../../wire/safe-json.js";
import { type ClaudeTestEnv, createClaudeTestEnv } from "../claude-env.js";
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
import { estimateTokens } from "../shared/script.js";
import type { SseEvent } from "../shared/sse.js";
import {
  type AnthropicMessage,
  anthropicErrorBody,
  buildMessage,
  contentBlockEvents,
  extractLastUserText,
  messageStartEvent,
  messageToSseEvents,
  normalizeTurn,
  pingEvent,
  type RecordedRequest,
  type ResolvedTurn,
  resolveTurn,
  type ScriptedTurn,
} from "./script.js";

export type { WaitForRequestOptions } from "../shared/request-log.js";

/** Options for {@link startFakeAnthropic}. */
export interface FakeAnthropicOptions {
  /** The script: one turn per `POST /v1/messages` that is not a model check. */
  turns?: ScriptedTurn[];
  /** Used when the script runs out. Default: `{ text: "OK" }`. */
  defaultTurn?: ScriptedTurn;
  /** Model name echoed in responses when the request has none. Default: `"claude-fake-model"`. */
  model?: string;
}

/** A running fake Anthropic API. `await using server = await startFakeAnthropic(...)` closes it. */
export interface FakeAnthropicServer extends FakeServerBase<RecordedRequest, ScriptedTurn> {
  /** Base URL, e.g. `http://127.0.0.1:PORT` (use as `ANTHROPIC_BASE_URL`). */
  readonly url: string;
  /**
   * Environment for the CLI (see {@link createClaudeTestEnv}) with `ANTHROPIC_BASE_URL` = {@link url},
   * merged with `extra`. The isolated temp home is created on the first call and removed by
   * {@link close}.
   */
  env(extra?: Record<string, string>): Record<string, string>;
}

const DEFAULT_MODEL = "claude-fake-model";

/** Where the Anthropic API puts its request id. */
const REQUEST_ID_HEADER = "request-id";

/**
 * Starts a fake Anthropic Messages API server on 127.0.0.1 (ephemeral port).
 *
 * Routing:
 * - `POST /v1/messages` (any query): a non-streaming request with `max_tokens: 1` is the CLI's model
 *   check (sent on `set_model`) and is answered automatically without consuming a turn. Any other
 *   request consumes the next scripted turn (or `defaultTurn`) and is answered with SSE when
 *   `stream: true`, else with the complete message JSON.
 *   A request whose one user message is `Warmup` (Claude Code 2.0.x warming its prompt cache) is
 *   answered `OK` without consuming a turn either.
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
  const defaultModel = options.model ?? DEFAULT_MODEL;
  let testEnv: ClaudeTestEnv | undefined;
  const core = new FakeServerCore<RecordedRequest, ScriptedTurn>({
    label: "fake-anthropic",
    turns: options.turns,
    defaultTurn: options.defaultTurn ?? { text: "OK" },
    cleanup: async () => {
      await testEnv?.cleanup();
    },
  });
  /** The last request refused by a deterministic (sticky) error turn, see {@link isStickyStatus}. */
  let rejected: { key: string; turn: Extract<ResolvedTurn, { kind: "error" }> } | undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { method, path, query, headers, body, malformed, validBody } = await readJsonRequest(req);
    const isMessages = method === "POST" && path === "/v1/messages";
    const isCountTokens = method === "POST" && path === "/v1/messages/count_tokens";
    const isModelCheck = isMessages && validBody && body.stream !== true && body.max_tokens === 1;
    const isWarmup = isMessages && validBody && isWarmupRequest(body);
    const key = isMessages && validBody && !isModelCheck && !isWarmup ? conversationKey(body) : undefined;
    // The CLI re-sends a request refused with a 4xx (e.g. dropping optional betas on a 400): give the
    // re-send the same error, as the real API would, instead of consuming the next turn.
    const replay = key !== undefined && rejected?.key === key ? rejected.turn : undefined;
    const consumes = key !== undefined && replay === undefined;

    const record: RecordedRequest = {
      method,
      path,
      query,
      headers,
      body,
      scripted: consumes,
      lastUserText: validBody ? extractLastUserText(body) : "",
    };
    const turn = core.record(record, consumes);

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
    if (isWarmup) {
      const ctx = {
        stream: body.stream === true,
        model,
        inputTokens: inputTokensOf(body),
        signal: core.signal,
      };
      await answerTurn(req, res, normalizeTurn({ text: "OK" }), ctx);
      return;
    }
    if (replay !== undefined) {
      await answerTurn(req, res, replay, { stream: false, model, inputTokens: 0, signal: core.signal });
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
        signal: core.signal,
      });
      return;
    }
    if (method === "GET" || method === "HEAD") {
      sendJson(res, 200, {}, method === "HEAD");
      return;
    }
    sendError(res, 404, "not_found_error", `fake-anthropic: no route for ${method} ${path}`);
  };

  const baseUrl = await core.listen(handle, (res, err) =>
    sendError(res, 500, "api_error", `fake-anthropic internal error: ${describeError(err)}`),
  );

  return {
    ...core.base(baseUrl),
    env(extra?: Record<string, string>): Record<string, string> {
      if (core.isClosed) throw new Error("fake-anthropic: env() called after close()");
      testEnv ??= createClaudeTestEnv(baseUrl);
      return { ...testEnv.env, ...extra };
    },
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

function inputTokensOf(body: any): number {
  return estimateTokens({ system: body?.system, messages: body?.messages, tools: body?.tools });
}

function sendJson(res: ServerResponse, status: number, payload: unknown, headOnly = false): void {
  sendJsonWithId(res, status, payload, REQUEST_ID_HEADER, headOnly);
}

function sendError(res: ServerResponse, status: number, errorType: string, message: string): void {
  sendJson(res, status, anthropicErrorBody(errorType, message));
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

/**
 * Claude Code 2.0.x warms the prompt cache of its agents at start-up with requests whose one user
 * message is the text `Warmup`; they are answered without consuming a scripted turn.
 */
function isWarmupRequest(body: Record<string, unknown>): boolean {
  const messages = body.messages;
  return Array.isArray(messages) && messages.length === 1 && extractLastUserText(body) === "Warmup";
}

async function answerTurn(
  req: IncomingMessage,
  res: ServerResponse,
  turn: ResolvedTurn,
  ctx: { stream: boolean; model: string; inputTokens: number; signal: AbortSignal },
): Promise<void> {
  switch (turn.kind) {
    case "error":
      if (turn.retryAfter !== undefined) res.setHeader("retry-after", String(turn.retryAfter));
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
      startSse(res, REQUEST_ID_HEADER);
      const write = (event: SseEvent) => writeSseEvent(res, event);
      await streamSseEvents(res, messageToSseEvents(message), write, turn.delayMs, ctx.signal);
      return;
    }
    case "stall":
    case "broken":
      await sendUnfinishedStream(
        req,
        turn.kind,
        ctx.stream,
        () => {
          startSse(res, REQUEST_ID_HEADER);
          const partial = buildMessage([], { model: ctx.model, inputTokens: ctx.inputTokens });
          for (const e of partialEvents(partial, turn.text)) writeSseEvent(res, e);
        },
        ctx.signal,
      );
      return;
  }
}
