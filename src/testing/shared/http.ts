/**
 * Small `node:http` helpers shared by the fake API servers of `code-agent-sdk/testing`.
 *
 * @module
 */

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { randomId } from "./script.js";
import { formatSseData, formatSseEvent, type SseEvent } from "./sse.js";

/**
 * Reads a request body completely. A client that goes away mid-body yields what arrived so far.
 *
 * @param req - The request.
 * @returns The raw body.
 */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch {
    // Client went away mid-body: treat what arrived as the body.
  }
  return Buffer.concat(chunks);
}

/**
 * Parses a JSON body leniently.
 *
 * @param raw - The raw body.
 * @returns `body` (`undefined` when empty or malformed) and whether it was malformed.
 */
export function parseJsonBody(raw: Buffer): { body: any; malformed: boolean } {
  if (raw.length === 0) return { body: undefined, malformed: false };
  try {
    return { body: JSON.parse(raw.toString("utf8")), malformed: false };
  } catch {
    return { body: undefined, malformed: true };
  }
}

/** A request as the fake servers route it. */
export interface JsonRequest {
  /** Upper-case method, `GET` when absent. */
  method: string;
  /** The path, without the query. */
  path: string;
  /** The query string with its `?`, or `""`. */
  query: string;
  /** A copy of the request headers. */
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; `undefined` when empty or malformed. */
  body: any;
  /** The body was not valid JSON. */
  malformed: boolean;
  /** The body is a JSON object (what every API endpoint requires). */
  validBody: boolean;
}

/**
 * Reads a whole request and parses its JSON body leniently.
 *
 * @param req - The request.
 * @returns Its method, path, query, headers and body.
 */
export async function readJsonRequest(req: IncomingMessage): Promise<JsonRequest> {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const { body, malformed } = parseJsonBody(await readBody(req));
  return {
    method: (req.method ?? "GET").toUpperCase(),
    path: url.pathname,
    query: url.search,
    headers: { ...req.headers },
    body,
    malformed,
    validBody: !malformed && body !== null && typeof body === "object" && !Array.isArray(body),
  };
}

/**
 * Answers with JSON and a random request id, as the real APIs do. Does nothing once the response is
 * gone (the client disconnected, or it was already answered).
 *
 * @param res - The response.
 * @param status - HTTP status.
 * @param payload - The JSON body.
 * @param requestIdHeader - Where the API puts its request id: `request-id` (Anthropic),
 *   `x-request-id` (OpenAI).
 * @param headOnly - Send the headers only (a `HEAD` request).
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  payload: unknown,
  requestIdHeader: string,
  headOnly = false,
): void {
  if (res.destroyed || res.writableEnded) return;
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    [requestIdHeader]: randomId("req"),
  });
  res.end(headOnly ? undefined : text);
}

/**
 * Starts a 200 Server-Sent Events response and flushes its headers, so the client sees the stream
 * open before the first event.
 *
 * @param res - The response.
 * @param requestIdHeader - See {@link sendJson}.
 */
export function startSse(res: ServerResponse, requestIdHeader: string): void {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    [requestIdHeader]: randomId("req"),
  });
  res.flushHeaders();
}

/**
 * Writes one event to a started SSE response.
 *
 * @param res - The response.
 * @param event - The event.
 * @returns False when the response is gone (nothing was written).
 */
export function writeSseEvent(res: ServerResponse, event: SseEvent): boolean {
  if (res.destroyed || res.writableEnded) return false;
  res.write(formatSseEvent(event));
  return true;
}

/**
 * Writes one data-only SSE frame (`data: <json>\n\n`, or `data: [DONE]\n\n` for the string
 * `"[DONE]"`), as the Chat Completions and Gemini streaming APIs frame their chunks.
 *
 * @param res - A started SSE response.
 * @param data - The JSON payload, or `"[DONE]"`.
 * @returns False when the response is gone (nothing was written).
 */
export function writeSseData(res: ServerResponse, data: unknown): boolean {
  if (res.destroyed || res.writableEnded) return false;
  res.write(formatSseData(data));
  return true;
}

/**
 * Writes `events` with `delayMs` between them, then ends the response. Stops early when the
 * response is gone or `signal` aborts (the server is closing).
 *
 * @param res - A started SSE response.
 * @param events - The events in order.
 * @param write - Writes one event (see {@link writeSseEvent}); false when the response is gone.
 * @param delayMs - Pause between two events.
 * @param signal - Aborts the pauses.
 */
export async function streamSseEvents<E = SseEvent>(
  res: ServerResponse,
  events: readonly E[],
  write: (event: E) => boolean,
  delayMs: number,
  signal: AbortSignal,
): Promise<void> {
  for (let i = 0; i < events.length; i++) {
    if (i > 0 && !(await pause(delayMs, signal))) return;
    if (!write(events[i]!)) return;
  }
  res.end();
}

/**
 * Answers a `stall` or `broken` turn. A streaming request first gets the partial stream
 * (`writePartial`, which starts the SSE response). A stall then stays open until the client
 * disconnects or the server closes; a broken stream has its connection cut.
 *
 * @param req - The request.
 * @param kind - `stall` or `broken`.
 * @param stream - Whether the request asked for a stream.
 * @param writePartial - Starts the SSE response and writes the partial events.
 * @param signal - Aborts the pause before the cut.
 */
export async function sendUnfinishedStream(
  req: IncomingMessage,
  kind: "stall" | "broken",
  stream: boolean,
  writePartial: () => void,
  signal: AbortSignal,
): Promise<void> {
  if (stream) writePartial();
  // A stall leaves the response open: it ends when the client disconnects or close() destroys the socket.
  if (kind === "stall") return;
  // Let the partial stream reach the client before cutting the connection.
  if (stream) await pause(20, signal);
  req.socket.destroy();
}

/**
 * Waits `ms` milliseconds unless `signal` aborts first.
 *
 * @param ms - Delay; `<= 0` returns at once.
 * @param signal - Aborts the wait.
 * @returns True when the wait completed (and the signal is not aborted), false when aborted.
 */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (ms <= 0) return !signal.aborted;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/**
 * Calls a user predicate, treating a throw as "no match".
 *
 * @param predicate - The predicate.
 * @param value - The value to test.
 * @returns True only when the predicate returned exactly `true`.
 */
export function safeMatch<T>(predicate: (value: T) => boolean, value: T): boolean {
  try {
    return predicate(value) === true;
  } catch {
    return false;
  }
}

/**
 * Source text of a predicate for error messages, whitespace-collapsed and cut at 200 characters.
 *
 * @param predicate - Any function.
 * @returns Its description.
 */
export function describePredicate(predicate: (...args: never[]) => unknown): string {
  const src = predicate.toString().replace(/\s+/g, " ");
  return src.length > 200 ? `${src.slice(0, 200)}…` : src;
}
