/**
 * Server-Sent Events framing, as the Anthropic and OpenAI streaming APIs (and so the fake servers)
 * use it.
 *
 * @module
 */

/** One streaming event: the SSE `event:` name and its JSON `data:` payload. */
export interface SseEvent {
  /** Event name, e.g. `message_start` or `response.output_text.delta`. Equals `data.type`. */
  event: string;
  /** JSON payload written on the `data:` line. */
  data: Record<string, unknown>;
}

/**
 * Frames one event the way the Anthropic and OpenAI APIs do: `event: <type>\ndata: <json>\n\n`.
 *
 * @param event - The event to frame.
 * @returns The SSE text for the event.
 */
export function formatSseEvent(event: SseEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/**
 * Parses an SSE stream body (as produced by {@link formatSseEvent}) back into events. Handy for
 * assertions in tests that call the fake server with `fetch`.
 *
 * @param body - The whole SSE response text.
 * @returns The events in order; `data` is JSON-parsed (or `{}` if absent/unparseable).
 */
export function parseSseEvents(body: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const frame of body.split(/\r?\n\r?\n/)) {
    if (frame.trim() === "") continue;
    let event = "message";
    const dataLines: string[] = [];
    for (const line of frame.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) dataLines.push(line.slice(5).replace(/^ /, ""));
    }
    let data: Record<string, unknown> = {};
    try {
      data = dataLines.length > 0 ? (JSON.parse(dataLines.join("\n")) as Record<string, unknown>) : {};
    } catch {
      data = {};
    }
    out.push({ event, data });
  }
  return out;
}

/**
 * Frames a data-only SSE event, as the OpenAI Chat Completions and Gemini streaming APIs send them:
 * `data: <json>\n\n`. The string `"[DONE]"` is written verbatim (Chat Completions' end marker).
 *
 * @param data - The JSON payload, or `"[DONE]"`.
 * @returns The SSE text.
 */
export function formatSseData(data: unknown): string {
  return `data: ${data === "[DONE]" ? "[DONE]" : JSON.stringify(data)}\n\n`;
}

/**
 * Parses a data-only SSE stream body (Chat Completions, Gemini `alt=sse`) into its JSON payloads,
 * dropping the `[DONE]` marker and frames whose data is not JSON.
 *
 * @param body - The whole SSE response text.
 * @returns The payloads in order.
 */
export function parseSseData(body: string): unknown[] {
  const out: unknown[] = [];
  for (const frame of body.split(/\r?\n\r?\n/)) {
    const data = frame
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    if (data === "" || data === "[DONE]") continue;
    try {
      out.push(JSON.parse(data));
    } catch {
      // Not JSON: not a payload.
    }
  }
  return out;
}
