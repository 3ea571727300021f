/**
 * Script model for the fake Gemini API (`generateContent` / `streamGenerateContent`): the turn types
 * users write, the recorded request shape, and the reduction of a turn to what the server has to do.
 *
 * @module
 */

import { callFunctionTurns, type RecordedHttpRequest, stripInjectedBlocks } from "../shared/script.js";

/** One `functionCall` part of a scripted Gemini turn. */
export interface GeminiFunctionCall {
  /** Function name as declared in `tools[].functionDeclarations` (e.g. `run_shell_command`). */
  name: string;
  /** Arguments object. */
  args: Record<string, unknown>;
  /** Optional call id (the API may omit it; Gemini CLI then makes its own). */
  id?: string;
}

/** Token counts reported in `usageMetadata`; estimated from the request and answer when absent. */
export interface GeminiUsage {
  /** `usageMetadata.promptTokenCount`. */
  promptTokenCount: number;
  /** `usageMetadata.candidatesTokenCount`. */
  candidatesTokenCount: number;
}

/**
 * One scripted model turn: what the fake server answers to the next `:generateContent` or
 * `:streamGenerateContent` request that is not a side call.
 *
 * - `{ text, thought? }` — a model message (streamed in a few chunks), optionally preceded by a
 *   thought part (`{text, thought: true}`); `finishReason: "STOP"`.
 * - `{ functionCalls, text? }` / `{ functionCall, text? }` — an optional text, then `functionCall`
 *   parts. The agent runs them and sends `functionResponse` parts in the next request (see
 *   {@link RecordedGeminiRequest.functionResponses}).
 * - `{ json }` — a JSON-mode answer: the value JSON-encoded as the text.
 * - `{ error }` — an HTTP error with the Google error body `{"error":{code,message,status}}`.
 * - `{ brokenStream: true, text? }` — a partial stream, then the socket is destroyed.
 * - `{ stall: true, text? }` — the first chunk (with `text` if given), then the stream stays open until
 *   the client disconnects or the server closes. For cancel tests.
 * - a function — called with the {@link RecordedGeminiRequest}; returns (or resolves to) any turn.
 *
 * `delayMs` is the pause between SSE chunks; `usage` overrides the estimated token counts.
 */
export type GeminiTurn =
  | { text: string; thought?: string; delayMs?: number; usage?: GeminiUsage }
  | { functionCalls: GeminiFunctionCall[]; text?: string; delayMs?: number; usage?: GeminiUsage }
  | { functionCall: GeminiFunctionCall; text?: string; delayMs?: number; usage?: GeminiUsage }
  | { json: unknown; delayMs?: number; usage?: GeminiUsage }
  | { error: { status: number; message?: string; statusName?: string } }
  | { brokenStream: true; text?: string }
  | { stall: true; text?: string }
  | ((request: RecordedGeminiRequest) => GeminiTurn | Promise<GeminiTurn>);

/** A `functionResponse` part the agent sent back. */
export interface GeminiFunctionResponse {
  /** The function's name. */
  name: string;
  /** The call id, when the agent sent one. */
  id?: string;
  /** The response object (Gemini CLI sends `{output}` or `{error}`). */
  response: unknown;
}

/** One HTTP request received by the fake Gemini server. */
export interface RecordedGeminiRequest extends RecordedHttpRequest {
  /** The model from the path (`/v1beta/models/<model>:<method>`), `""` for other routes. */
  model: string;
  /** The method after the colon (`generateContent`, `streamGenerateContent`, `countTokens`, …), or `""`. */
  rpc: string;
  /** True for `streamGenerateContent`. */
  stream: boolean;
  /**
   * Text of the LAST `role: "user"` content with text parts (parts joined with `"\n"`), with the tag
   * blocks the agent adds (`<session_context>`, …) removed. Contents that only carry
   * `functionResponse` parts are skipped, so this is the prompt in every request of a turn.
   */
  lastUserText: string;
  /** Text of `systemInstruction`, `""` when none. */
  systemText: string;
  /** Names of every function declared in `tools`, in order. */
  toolNames: string[];
  /** Every `functionResponse` part of the conversation, in order. */
  functionResponses: GeminiFunctionResponse[];
  /** True when the last content carries `functionResponse` parts (a follow-up within a turn). */
  isFunctionResponseFollowUp: boolean;
  /** True when `generationConfig.responseMimeType` is `application/json` (JSON mode). */
  jsonMode: boolean;
  /** `generationConfig.responseJsonSchema` (or `responseSchema`), when given. */
  responseSchema: unknown;
  /** Name of the side call that answered this request, or undefined. */
  sideCall: string | undefined;
}

/** A non-function turn, as produced by resolving function turns. */
export type StaticGeminiTurn = Exclude<GeminiTurn, (request: RecordedGeminiRequest) => unknown>;

/** A scripted turn reduced to what the server has to do. */
export type ResolvedGeminiTurn =
  | {
      kind: "content";
      thought?: string;
      text?: string;
      functionCalls: GeminiFunctionCall[];
      delayMs: number;
      usage?: GeminiUsage;
    }
  | { kind: "error"; status: number; statusName: string; message: string }
  | { kind: "stall"; text?: string }
  | { kind: "broken"; text?: string };

/**
 * The Google API status name for an HTTP status.
 *
 * @param status - HTTP status code.
 * @returns E.g. `INVALID_ARGUMENT` for 400, `RESOURCE_EXHAUSTED` for 429.
 */
export function googleStatusName(status: number): string {
  switch (status) {
    case 400:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 503:
      return "UNAVAILABLE";
    default:
      return status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
  }
}

/**
 * Turns a static (non-function) turn into a {@link ResolvedGeminiTurn}.
 *
 * @param turn - The turn.
 * @returns What the server has to do.
 * @throws TypeError when the turn has none of the known shapes.
 */
export function normalizeGeminiTurn(turn: StaticGeminiTurn): ResolvedGeminiTurn {
  if (turn === null || typeof turn !== "object") {
    throw new TypeError(`fake-gemini: invalid scripted turn: ${String(turn)}`);
  }
  if ("error" in turn) {
    const { status, message, statusName } = turn.error;
    return {
      kind: "error",
      status,
      statusName: statusName ?? googleStatusName(status),
      message: message ?? `fake-gemini scripted error ${status}`,
    };
  }
  if ("stall" in turn) return { kind: "stall", ...(turn.text !== undefined ? { text: turn.text } : {}) };
  if ("brokenStream" in turn) {
    return { kind: "broken", ...(turn.text !== undefined ? { text: turn.text } : {}) };
  }
  const common = { delayMs: turn.delayMs ?? 0, ...(turn.usage ? { usage: turn.usage } : {}) };
  if ("json" in turn)
    return { kind: "content", text: JSON.stringify(turn.json), functionCalls: [], ...common };
  if ("functionCalls" in turn || "functionCall" in turn) {
    const functionCalls = "functionCalls" in turn ? turn.functionCalls : [turn.functionCall];
    if (!Array.isArray(functionCalls) || functionCalls.some((c) => typeof c?.name !== "string")) {
      throw new TypeError(`fake-gemini: a function call needs a name: ${JSON.stringify(turn)}`);
    }
    return {
      kind: "content",
      functionCalls,
      ...(turn.text !== undefined ? { text: turn.text } : {}),
      ...common,
    };
  }
  if ("text" in turn && typeof turn.text === "string") {
    return {
      kind: "content",
      text: turn.text,
      functionCalls: [],
      ...(turn.thought !== undefined ? { thought: turn.thought } : {}),
      ...common,
    };
  }
  throw new TypeError(`fake-gemini: unrecognised scripted turn: ${JSON.stringify(turn)}`);
}

/**
 * Resolves a turn: calls function turns with the request, then normalises the result.
 *
 * @param turn - Any scripted turn.
 * @param request - The request the turn answers.
 * @returns What the server has to do.
 */
export async function resolveGeminiTurn(
  turn: GeminiTurn,
  request: RecordedGeminiRequest,
): Promise<ResolvedGeminiTurn> {
  return normalizeGeminiTurn(await callFunctionTurns(turn, request, "fake-gemini"));
}

type Part = {
  text?: unknown;
  thought?: unknown;
  functionResponse?: { name?: unknown; id?: unknown; response?: unknown };
};
type Content = { role?: unknown; parts?: unknown };

function partsOf(content: Content | undefined): Part[] {
  return Array.isArray(content?.parts)
    ? content.parts.filter((p): p is Part => !!p && typeof p === "object")
    : [];
}

/**
 * The parts of a Gemini request body a test asserts on (see {@link RecordedGeminiRequest}).
 *
 * @param body - Parsed request body.
 * @returns The derived fields.
 */
export function describeGeminiBody(
  body: unknown,
): Pick<
  RecordedGeminiRequest,
  | "lastUserText"
  | "systemText"
  | "toolNames"
  | "functionResponses"
  | "isFunctionResponseFollowUp"
  | "jsonMode"
  | "responseSchema"
> {
  const b = (body ?? {}) as {
    contents?: unknown;
    systemInstruction?: Content;
    tools?: unknown;
    generationConfig?: Record<string, unknown>;
  };
  const contents: Content[] = Array.isArray(b.contents)
    ? b.contents.filter((c) => !!c && typeof c === "object")
    : [];
  let lastUserText = "";
  for (let i = contents.length - 1; i >= 0; i--) {
    if (contents[i]!.role !== "user") continue;
    const text = partsOf(contents[i])
      .filter((p) => typeof p.text === "string" && p.thought !== true)
      .map((p) => stripInjectedBlocks(p.text as string))
      .filter((t) => t !== "")
      .join("\n");
    if (text !== "") {
      lastUserText = text;
      break;
    }
  }
  const functionResponses: GeminiFunctionResponse[] = [];
  for (const c of contents) {
    for (const p of partsOf(c)) {
      const fr = p.functionResponse;
      if (!fr || typeof fr.name !== "string") continue;
      functionResponses.push({
        name: fr.name,
        ...(typeof fr.id === "string" ? { id: fr.id } : {}),
        response: fr.response,
      });
    }
  }
  const toolNames: string[] = [];
  if (Array.isArray(b.tools)) {
    for (const tool of b.tools as Array<{ functionDeclarations?: unknown }>) {
      if (!Array.isArray(tool?.functionDeclarations)) continue;
      for (const d of tool.functionDeclarations as Array<{ name?: unknown }>) {
        if (typeof d?.name === "string") toolNames.push(d.name);
      }
    }
  }
  const config = b.generationConfig ?? {};
  return {
    lastUserText,
    systemText: partsOf(b.systemInstruction)
      .filter((p) => typeof p.text === "string")
      .map((p) => p.text as string)
      .join("\n"),
    toolNames,
    functionResponses,
    isFunctionResponseFollowUp: partsOf(contents.at(-1)).some((p) => p.functionResponse !== undefined),
    jsonMode: config.responseMimeType === "application/json",
    responseSchema: config.responseJsonSchema ?? config.responseSchema,
  };
}
