/**
 * A scripted fake of the OpenAI Chat Completions API (`POST /v1/chat/completions`, SSE and JSON) on
 * `node:http`, for running agents that speak it (Qwen Code, OpenCode, Kilo, GitHub Copilot CLI)
 * offline. Binds to 127.0.0.1 on an ephemeral port.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { describeError } from "../../wire/safe-json.js";
import { openAIErrorBody } from "../openai/script.js";
import { type FakeServerBase, FakeServerCore } from "../shared/fake-server.js";
import {
  pause,
  readJsonRequest,
  sendJson as sendJsonWithId,
  sendUnfinishedStream,
  startSse,
  streamSseEvents,
  writeSseData,
} from "../shared/http.js";
import { estimateTokens, randomId, splitChunks } from "../shared/script.js";
import { findSideCall, type SideCall } from "../shared/side-calls.js";
import {
  type ChatToolCall,
  type ChatTurn,
  type ChatUsage,
  describeChatBody,
  type RecordedChatRequest,
  type ResolvedChatTurn,
  resolveChatTurn,
} from "./script.js";

/** A side call of the Chat Completions fake (see {@link SideCall}). */
export type ChatSideCall = SideCall<RecordedChatRequest, ChatTurn>;

/** Options for {@link startFakeChatCompletions}. */
export interface FakeChatCompletionsOptions {
  /** The script: one turn per `POST /v1/chat/completions` that is not a side call. */
  turns?: ChatTurn[];
  /** Used when the script runs out. Default: `{ text: "OK" }`. */
  defaultTurn?: ChatTurn;
  /**
   * Requests answered outside the script, checked in order before a turn is taken (e.g. an agent's
   * title generator or memory sub-agent; the agent presets of `acp-agents` list theirs). A side call
   * without a `turn` is answered with `{ text: "OK" }`.
   */
  sideCalls?: ChatSideCall[];
  /** Model name echoed when the request has none and listed by `GET /v1/models`. Default `"fake-model"`. */
  model?: string;
}

/** A running fake Chat Completions API. `await using server = await startFakeChatCompletions(...)` closes it. */
export interface FakeChatCompletionsServer extends FakeServerBase<RecordedChatRequest, ChatTurn> {
  /** Base URL, e.g. `http://127.0.0.1:PORT`; the API lives under `/v1` (see {@link baseUrlV1}). */
  readonly url: string;
  /** `url + "/v1"`: what `OPENAI_BASE_URL`-style settings want. */
  readonly baseUrlV1: string;
  /** The model name the server reports. */
  readonly model: string;
  /** Adds side calls (checked after the ones already registered). */
  addSideCalls(...sideCalls: ChatSideCall[]): void;
}

const DEFAULT_MODEL = "fake-model";
const REQUEST_ID_HEADER = "x-request-id";

/**
 * Starts a fake OpenAI Chat Completions server on 127.0.0.1 (ephemeral port).
 *
 * Routing:
 * - `POST /v1/chat/completions` (or `/chat/completions`, or `/api/v1/chat/completions` as Cline's
 *   `cline` provider sends it): answered by the first matching side call,
 *   else by the next scripted turn (or `defaultTurn`). SSE when `stream: true` — data-only chunks
 *   `chat.completion.chunk`, a usage chunk when `stream_options.include_usage` is set, then
 *   `data: [DONE]` — else one `chat.completion` JSON.
 * - `GET /v1/models` (or `/models`): an OpenAI model list holding `model`.
 * - anything else: 404 with an OpenAI error body. Malformed JSON: 400.
 *
 * Every request is recorded in `requests`; only those answered by scripted turns in `turnRequests`.
 * A function turn that throws is answered with a 400 `invalid_request_error` naming the exception.
 *
 * @param options - Script, default turn, side calls, model name.
 * @returns The running server.
 */
export async function startFakeChatCompletions(
  options: FakeChatCompletionsOptions = {},
): Promise<FakeChatCompletionsServer> {
  const defaultModel = options.model ?? DEFAULT_MODEL;
  const sideCalls: ChatSideCall[] = [...(options.sideCalls ?? [])];
  const core = new FakeServerCore<RecordedChatRequest, ChatTurn>({
    label: "fake-chat",
    turns: options.turns,
    defaultTurn: options.defaultTurn ?? { text: "OK" },
    cleanup: async () => {},
  });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { method, path, query, headers, body, malformed, validBody } = await readJsonRequest(req);
    const isChat = method === "POST" && /^((\/api)?\/v1)?\/chat\/completions\/?$/.test(path);
    const record: RecordedChatRequest = {
      method,
      path,
      query,
      headers,
      body,
      scripted: false,
      sideCall: undefined,
      ...describeChatBody(validBody ? body : undefined),
    };
    const side = isChat && validBody ? findSideCall(sideCalls, record) : undefined;
    record.sideCall = side?.name;
    const consumes = isChat && validBody && side === undefined;
    record.scripted = consumes;
    const scripted = core.record(record, consumes);

    if (isChat && !validBody) {
      sendError(res, 400, malformed ? "Malformed JSON body" : "Body must be a JSON object");
      return;
    }
    if (isChat) {
      const turn = side ? (side.turn ?? { text: "OK" }) : scripted!;
      let resolved: ResolvedChatTurn;
      try {
        resolved = await resolveChatTurn(turn, record);
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        sendError(res, 400, `fake-chat: scripted turn failed: ${msg}`);
        return;
      }
      await answerTurn(req, res, resolved, {
        stream: body.stream === true,
        includeUsage: body.stream_options?.include_usage === true,
        model: typeof body.model === "string" ? body.model : defaultModel,
        promptTokens: estimateTokens({ messages: body.messages, tools: body.tools }),
        signal: core.signal,
      });
      return;
    }
    if ((method === "GET" || method === "HEAD") && /^(\/v1)?\/models\/?$/.test(path)) {
      const list = {
        object: "list",
        data: [{ id: defaultModel, object: "model", created: 1_700_000_000, owned_by: "fake-chat" }],
      };
      sendJsonWithId(res, 200, list, REQUEST_ID_HEADER, method === "HEAD");
      return;
    }
    sendError(res, 404, `fake-chat: no route for ${method} ${path}`, "not_found");
  };

  const url = await core.listen(handle, (res, err) =>
    sendError(res, 500, `fake-chat internal error: ${describeError(err)}`, "server_error"),
  );
  return {
    ...core.base(url),
    baseUrlV1: `${url}/v1`,
    model: defaultModel,
    addSideCalls(...more: ChatSideCall[]): void {
      sideCalls.push(...more);
    },
  };
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  type = "invalid_request_error",
  code: string | null = null,
): void {
  sendJsonWithId(res, status, openAIErrorBody(message, type, code), REQUEST_ID_HEADER);
}

interface AnswerContext {
  stream: boolean;
  includeUsage: boolean;
  model: string;
  promptTokens: number;
  signal: AbortSignal;
}

/** The wire form of a tool call: arguments JSON-encoded, an id generated when absent. */
function wireToolCall(call: ChatToolCall): { id: string; name: string; arguments: string } {
  return {
    id: call.id ?? randomId("call"),
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
  };
}

/** Chat Completions `usage`, from the script or estimated. */
function buildChatUsage(
  promptTokens: number,
  answer: unknown,
  scripted: ChatUsage | undefined,
): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const prompt = scripted?.prompt_tokens ?? promptTokens;
  const completion = scripted?.completion_tokens ?? estimateTokens(answer);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** One `chat.completion.chunk` with a single choice. */
function chatChunk(
  meta: { id: string; model: string; created: number },
  delta: Record<string, unknown>,
  finish: string | null = null,
): Record<string, unknown> {
  return {
    id: meta.id,
    object: "chat.completion.chunk",
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  };
}

/**
 * The chunks of a streamed answer: role, content deltas, one opening delta per tool call (id, name,
 * empty arguments) followed by its argument deltas, the finish chunk, the usage chunk, `[DONE]`.
 *
 * @param turn - The text and the wire tool calls.
 * @param meta - Completion id, model and creation time shared by all chunks.
 * @param usage - The usage chunk's `usage`, or undefined for none.
 * @returns The payloads in order.
 */
export function chatStreamChunks(
  turn: { text?: string; toolCalls: ReadonlyArray<{ id: string; name: string; arguments: string }> },
  meta: { id: string; model: string; created: number },
  usage: Record<string, number> | undefined,
): Array<Record<string, unknown> | "[DONE]"> {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): Record<string, unknown> =>
    chatChunk(meta, delta, finish);
  const out: Array<Record<string, unknown> | "[DONE]"> = [chunk({ role: "assistant", content: "" })];
  if (turn.text !== undefined && turn.text !== "") {
    for (const part of splitChunks(turn.text)) out.push(chunk({ content: part }));
  }
  turn.toolCalls.forEach((call, index) => {
    out.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
      }),
    );
    for (const part of splitChunks(call.arguments)) {
      if (part !== "") out.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  out.push(chunk({}, turn.toolCalls.length > 0 ? "tool_calls" : "stop"));
  if (usage) {
    out.push({
      id: meta.id,
      object: "chat.completion.chunk",
      created: meta.created,
      model: meta.model,
      choices: [],
      usage,
    });
  }
  out.push("[DONE]");
  return out;
}

async function answerTurn(
  req: IncomingMessage,
  res: ServerResponse,
  turn: ResolvedChatTurn,
  ctx: AnswerContext,
): Promise<void> {
  const meta = { id: randomId("chatcmpl"), model: ctx.model, created: Math.floor(Date.now() / 1000) };
  const startStream = (): void => startSse(res, REQUEST_ID_HEADER);
  switch (turn.kind) {
    case "error":
      sendError(res, turn.status, turn.message, turn.errorType, turn.code);
      return;
    case "message": {
      const toolCalls = turn.toolCalls.map(wireToolCall);
      const usage = buildChatUsage(ctx.promptTokens, { text: turn.text, toolCalls }, turn.usage);
      if (!ctx.stream) {
        const message: Record<string, unknown> = { role: "assistant", content: turn.text ?? null };
        if (toolCalls.length > 0) {
          message.tool_calls = toolCalls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: c.arguments },
          }));
        }
        const completion = {
          ...meta,
          object: "chat.completion",
          choices: [
            {
              index: 0,
              message,
              logprobs: null,
              finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
            },
          ],
          usage,
        };
        if (await pause(turn.delayMs, ctx.signal)) sendJsonWithId(res, 200, completion, REQUEST_ID_HEADER);
        return;
      }
      startStream();
      const chunks = chatStreamChunks(
        { ...(turn.text !== undefined ? { text: turn.text } : {}), toolCalls },
        meta,
        ctx.includeUsage ? usage : undefined,
      );
      await streamSseEvents(res, chunks, (c) => writeSseData(res, c), turn.delayMs, ctx.signal);
      return;
    }
    case "stall":
    case "broken":
      await sendUnfinishedStream(
        req,
        turn.kind,
        ctx.stream,
        () => {
          startStream();
          writeSseData(res, chatChunk(meta, { role: "assistant", content: "" }));
          if (turn.text !== undefined) writeSseData(res, chatChunk(meta, { content: turn.text }));
        },
        ctx.signal,
      );
      return;
  }
}
