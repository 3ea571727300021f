/**
 * A scripted fake of the Gemini API (`:generateContent`, `:streamGenerateContent` with and without
 * `alt=sse`) on `node:http`, for running Gemini CLI offline. Binds to 127.0.0.1 on an ephemeral port.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { describeError } from "../../wire/safe-json.js";
import { type FakeServerBase, FakeServerCore } from "../shared/fake-server.js";
import {
  pause,
  readJsonRequest,
  sendJson,
  sendUnfinishedStream,
  startSse,
  streamSseEvents,
  writeSseData,
} from "../shared/http.js";
import { estimateTokens, randomId, splitChunks } from "../shared/script.js";
import { findSideCall, type SideCall, sampleFromJsonSchema } from "../shared/side-calls.js";
import {
  describeGeminiBody,
  type GeminiFunctionCall,
  type GeminiTurn,
  type GeminiUsage,
  googleStatusName,
  type RecordedGeminiRequest,
  type ResolvedGeminiTurn,
  resolveGeminiTurn,
} from "./script.js";

/** A side call of the Gemini fake (see {@link SideCall}). */
export type GeminiSideCall = SideCall<RecordedGeminiRequest, GeminiTurn>;

/** Options for {@link startFakeGemini}. */
export interface FakeGeminiOptions {
  /** The script: one turn per content-generating request that is not a side call. */
  turns?: GeminiTurn[];
  /** Used when the script runs out. Default: `{ text: "OK" }`. */
  defaultTurn?: GeminiTurn;
  /**
   * Requests answered outside the script, checked in order before a turn is taken. A side call
   * without a `turn` is answered with `{ text: "OK" }`.
   */
  sideCalls?: GeminiSideCall[];
  /**
   * Answer every JSON-mode request (`responseMimeType: "application/json"`) — Gemini CLI's router
   * classifier before each turn, its next-speaker and loop checks — outside the script with a value
   * built from its `responseJsonSchema` (see {@link sampleFromJsonSchema}). Checked after `sideCalls`,
   * recorded as side call `"json-mode"`. Default true.
   */
  answerJsonMode?: boolean;
  /** Model listed by `GET /v1beta/models` and reported as `modelVersion`. Default `"gemini-fake"`. */
  model?: string;
}

/** A running fake Gemini API. `await using server = await startFakeGemini(...)` closes it. */
export interface FakeGeminiServer extends FakeServerBase<RecordedGeminiRequest, GeminiTurn> {
  /** Base URL, e.g. `http://127.0.0.1:PORT` (use as `GOOGLE_GEMINI_BASE_URL`). */
  readonly url: string;
  /** Adds side calls (checked after the ones already registered, before JSON mode). */
  addSideCalls(...sideCalls: GeminiSideCall[]): void;
}

/** Where Google APIs put a request id (the fakes add one for symmetry with the other servers). */
const REQUEST_ID_HEADER = "x-request-id";
const ROUTE = /^\/(v1|v1beta|v1alpha)\/models\/([^/:]+):([A-Za-z]+)$/;

/** The built-in JSON-mode side call. */
const JSON_MODE: GeminiSideCall = {
  name: "json-mode",
  match: (r) => r.jsonMode,
  turn: (r) => ({ json: sampleFromJsonSchema(r.responseSchema) ?? {} }),
};

/**
 * Starts a fake Gemini API server on 127.0.0.1 (ephemeral port).
 *
 * Routing (under `/v1beta`, `/v1` or `/v1alpha`):
 * - `POST /models/<model>:generateContent` — one `GenerateContentResponse` JSON.
 * - `POST /models/<model>:streamGenerateContent?alt=sse` — data-only SSE chunks; without `alt=sse`,
 *   a JSON array of the same chunks.
 *   Both are answered by the first matching side call, then (unless `answerJsonMode: false`) JSON mode
 *   from the schema, else by the next scripted turn (or `defaultTurn`).
 * - `POST /models/<model>:countTokens` — `{ totalTokens }` (estimated), not recorded as a turn.
 * - `GET /models` — a model list holding `model`.
 * - anything else: 404 with a Google error body. Malformed JSON: 400.
 *
 * @param options - Script, default turn, side calls, JSON mode, model name.
 * @returns The running server.
 */
export async function startFakeGemini(options: FakeGeminiOptions = {}): Promise<FakeGeminiServer> {
  const defaultModel = options.model ?? "gemini-fake";
  const sideCalls: GeminiSideCall[] = [...(options.sideCalls ?? [])];
  const answerJsonMode = options.answerJsonMode ?? true;
  const core = new FakeServerCore<RecordedGeminiRequest, GeminiTurn>({
    label: "fake-gemini",
    turns: options.turns,
    defaultTurn: options.defaultTurn ?? { text: "OK" },
    cleanup: async () => {},
  });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { method, path, query, headers, body, malformed, validBody } = await readJsonRequest(req);
    const route = method === "POST" ? ROUTE.exec(path) : null;
    const rpc = route?.[3] ?? "";
    const model = route ? decodeURIComponent(route[2]!) : "";
    const generates = rpc === "generateContent" || rpc === "streamGenerateContent";
    const record: RecordedGeminiRequest = {
      method,
      path,
      query,
      headers,
      body,
      model,
      rpc,
      stream: rpc === "streamGenerateContent",
      scripted: false,
      sideCall: undefined,
      ...describeGeminiBody(validBody ? body : undefined),
    };
    const rules = answerJsonMode ? [...sideCalls, JSON_MODE] : sideCalls;
    const side = generates && validBody ? findSideCall(rules, record) : undefined;
    record.sideCall = side?.name;
    const consumes = generates && validBody && side === undefined;
    record.scripted = consumes;
    const scripted = core.record(record, consumes);

    if (route && !validBody) {
      sendError(res, 400, malformed ? "Malformed JSON body" : "Body must be a JSON object");
      return;
    }
    if (generates) {
      let resolved: ResolvedGeminiTurn;
      try {
        resolved = await resolveGeminiTurn(side ? (side.turn ?? { text: "OK" }) : scripted!, record);
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        sendError(res, 400, `fake-gemini: scripted turn failed: ${msg}`);
        return;
      }
      await answerTurn(req, res, resolved, {
        stream: record.stream,
        sse: /(^|[?&])alt=sse(&|$)/.test(query),
        model: model || defaultModel,
        promptTokens: estimateTokens({ c: body.contents, s: body.systemInstruction, t: body.tools }),
        signal: core.signal,
      });
      return;
    }
    if (rpc === "countTokens") {
      sendJson(res, 200, { totalTokens: estimateTokens(body.contents) }, REQUEST_ID_HEADER);
      return;
    }
    if ((method === "GET" || method === "HEAD") && /^\/(v1|v1beta|v1alpha)\/models\/?$/.test(path)) {
      const list = {
        models: [
          {
            name: `models/${defaultModel}`,
            displayName: defaultModel,
            supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
          },
        ],
      };
      sendJson(res, 200, list, REQUEST_ID_HEADER, method === "HEAD");
      return;
    }
    sendError(res, 404, `fake-gemini: no route for ${method} ${path}`);
  };

  const url = await core.listen(handle, (res, err) =>
    sendError(res, 500, `fake-gemini internal error: ${describeError(err)}`),
  );
  return {
    ...core.base(url),
    addSideCalls(...more: GeminiSideCall[]): void {
      sideCalls.push(...more);
    },
  };
}

/**
 * The Google API error body.
 *
 * @param status - HTTP status.
 * @param message - Message.
 * @param statusName - Status name (default from the HTTP status).
 * @returns `{ error: { code, message, status } }`.
 */
export function geminiErrorBody(
  status: number,
  message: string,
  statusName = googleStatusName(status),
): { error: { code: number; message: string; status: string } } {
  return { error: { code: status, message, status: statusName } };
}

function sendError(res: ServerResponse, status: number, message: string, statusName?: string): void {
  sendJson(res, status, geminiErrorBody(status, message, statusName), REQUEST_ID_HEADER);
}

interface AnswerContext {
  stream: boolean;
  sse: boolean;
  model: string;
  promptTokens: number;
  signal: AbortSignal;
}

type GeminiPart = Record<string, unknown>;

/** One `GenerateContentResponse` with a single candidate. */
function geminiChunk(
  meta: { responseId: string; model: string },
  parts: GeminiPart[],
  extra: { finishReason?: string; usageMetadata?: Record<string, number> } = {},
): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { role: "model", parts }, index: 0 };
  if (extra.finishReason) candidate.finishReason = extra.finishReason;
  return {
    candidates: [candidate],
    ...(extra.usageMetadata ? { usageMetadata: extra.usageMetadata } : {}),
    modelVersion: meta.model,
    responseId: meta.responseId,
  };
}

function functionCallPart(call: GeminiFunctionCall): GeminiPart {
  return { functionCall: { name: call.name, args: call.args ?? {}, ...(call.id ? { id: call.id } : {}) } };
}

function buildUsageMetadata(
  promptTokens: number,
  answer: unknown,
  scripted: GeminiUsage | undefined,
): Record<string, number> {
  const prompt = scripted?.promptTokenCount ?? promptTokens;
  const candidates = scripted?.candidatesTokenCount ?? estimateTokens(answer);
  return { promptTokenCount: prompt, candidatesTokenCount: candidates, totalTokenCount: prompt + candidates };
}

/**
 * The chunks of a streamed answer: a thought part, text in a few chunks, the function calls, and a
 * last chunk carrying `finishReason: "STOP"` and `usageMetadata`.
 *
 * @param turn - What to answer.
 * @param meta - Response id and model shared by all chunks.
 * @param usageMetadata - Usage of the last chunk.
 * @returns The chunks in order.
 */
export function geminiStreamChunks(
  turn: { thought?: string; text?: string; functionCalls: readonly GeminiFunctionCall[] },
  meta: { responseId: string; model: string },
  usageMetadata: Record<string, number>,
): Array<Record<string, unknown>> {
  const parts: GeminiPart[][] = [];
  if (turn.thought !== undefined) parts.push([{ text: turn.thought, thought: true }]);
  if (turn.text !== undefined && turn.text !== "") {
    for (const piece of splitChunks(turn.text)) parts.push([{ text: piece }]);
  }
  if (turn.functionCalls.length > 0) parts.push(turn.functionCalls.map(functionCallPart));
  if (parts.length === 0) parts.push([{ text: "" }]);
  return parts.map((p, i) =>
    geminiChunk(meta, p, i === parts.length - 1 ? { finishReason: "STOP", usageMetadata } : {}),
  );
}

async function answerTurn(
  req: IncomingMessage,
  res: ServerResponse,
  turn: ResolvedGeminiTurn,
  ctx: AnswerContext,
): Promise<void> {
  const meta = { responseId: randomId("resp"), model: ctx.model };
  const startStream = (): void => startSse(res, REQUEST_ID_HEADER);
  switch (turn.kind) {
    case "error":
      sendError(res, turn.status, turn.message, turn.statusName);
      return;
    case "content": {
      const usage = buildUsageMetadata(ctx.promptTokens, turn, turn.usage);
      if (!ctx.stream || !ctx.sse) {
        // One response holding every part; `streamGenerateContent` without SSE wants a JSON array.
        const parts: GeminiPart[] = [];
        if (turn.thought !== undefined) parts.push({ text: turn.thought, thought: true });
        if (turn.text !== undefined) parts.push({ text: turn.text });
        parts.push(...turn.functionCalls.map(functionCallPart));
        const whole = geminiChunk(meta, parts, { finishReason: "STOP", usageMetadata: usage });
        if (await pause(turn.delayMs, ctx.signal)) {
          sendJson(res, 200, ctx.stream ? [whole] : whole, REQUEST_ID_HEADER);
        }
        return;
      }
      startStream();
      const chunks = geminiStreamChunks(turn, meta, usage);
      await streamSseEvents(res, chunks, (c) => writeSseData(res, c), turn.delayMs, ctx.signal);
      return;
    }
    case "stall":
    case "broken":
      await sendUnfinishedStream(
        req,
        turn.kind,
        ctx.stream && ctx.sse,
        () => {
          startStream();
          writeSseData(res, geminiChunk(meta, [{ text: turn.text ?? "" }]));
        },
        ctx.signal,
      );
      return;
  }
}
