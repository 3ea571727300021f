/**
 * Wire format of the fake OpenAI Responses API: complete output items, `response` objects and the
 * streaming (SSE) event sequence of a response.
 *
 * @module
 */

import { estimateTokens, randomId, splitChunks } from "../shared/script.js";
import type { SseEvent } from "../shared/sse.js";
import type { ResponsesOutputItem } from "./script.js";

/** A complete output item as it appears in `response.output` / `response.output_item.done`. */
export type ResponsesWireItem = Record<string, unknown> & { type: string };

/** Responses API usage object. */
export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** A Responses API `response` object (the subset the fake reports). */
export interface ResponsesObject {
  id: string;
  object: "response";
  created_at: number;
  status: "in_progress" | "completed" | "failed" | "incomplete";
  model: string;
  output: ResponsesWireItem[];
  usage: ResponsesUsage | null;
  error: { code: string; message: string } | null;
  incomplete_details: null;
  parallel_tool_calls: boolean;
  tool_choice: string;
  store: boolean;
}

/** Default `encrypted_content` of scripted reasoning items (the CLI sends it back verbatim). */
export const FAKE_REASONING_ENCRYPTED_CONTENT = "ZmFrZS1yZWFzb25pbmctZW5jcnlwdGVkLWNvbnRlbnQ=";

/**
 * Builds the complete wire item for a scripted item, assigning ids (`msg_…`, `rs_…`, `fc_…`, `ctc_…`,
 * `ts_…`) and call ids (`call_…`) where absent.
 *
 * @param item - The scripted item.
 * @returns The wire item (status `completed`).
 */
export function buildWireItem(item: ResponsesOutputItem): ResponsesWireItem {
  switch (item.type) {
    case "message":
      return {
        id: item.id ?? randomId("msg"),
        type: "message",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: item.text, annotations: [], logprobs: [] }],
        ...(item.phase !== undefined ? { phase: item.phase } : {}),
      };
    case "reasoning":
      return {
        id: item.id ?? randomId("rs"),
        type: "reasoning",
        summary: [{ type: "summary_text", text: item.summary }],
        encrypted_content:
          item.encrypted_content === undefined ? FAKE_REASONING_ENCRYPTED_CONTENT : item.encrypted_content,
      };
    case "function_call":
      return {
        id: item.id ?? randomId("fc"),
        type: "function_call",
        status: "completed",
        name: item.name,
        ...(item.namespace !== undefined ? { namespace: item.namespace } : {}),
        call_id: item.call_id ?? randomId("call"),
        arguments: typeof item.arguments === "string" ? item.arguments : JSON.stringify(item.arguments ?? {}),
      };
    case "custom_tool_call":
      return {
        id: item.id ?? randomId("ctc"),
        type: "custom_tool_call",
        status: "completed",
        call_id: item.call_id ?? randomId("call"),
        name: item.name,
        input: item.input,
      };
    case "tool_search_call":
      return {
        id: item.id ?? randomId("ts"),
        type: "tool_search_call",
        status: "completed",
        execution: "client",
        call_id: item.call_id ?? randomId("call"),
        arguments: item.arguments ?? {},
      };
    case "raw":
      return { ...item.item, type: String(item.item.type ?? "unknown") };
    default:
      throw new TypeError(`fake-openai: unknown output item type: ${JSON.stringify(item)}`);
  }
}

/**
 * Builds a `response` object.
 *
 * @param opts - Id, model, status, output, usage, error.
 * @returns The response object.
 */
export function buildResponse(opts: {
  id: string;
  model: string;
  createdAt: number;
  status: ResponsesObject["status"];
  output?: ResponsesWireItem[];
  usage?: ResponsesUsage | null;
  error?: ResponsesObject["error"];
}): ResponsesObject {
  return {
    id: opts.id,
    object: "response",
    created_at: opts.createdAt,
    status: opts.status,
    model: opts.model,
    output: opts.output ?? [],
    usage: opts.usage ?? null,
    error: opts.error ?? null,
    incomplete_details: null,
    parallel_tool_calls: true,
    tool_choice: "auto",
    store: false,
  };
}

/**
 * Rough usage for a response: input from the request body, output from the items (≈ 4 chars/token).
 *
 * @param inputTokens - Input token estimate.
 * @param output - The output items.
 * @returns The usage object.
 */
export function buildUsage(inputTokens: number, output: readonly ResponsesWireItem[]): ResponsesUsage {
  const reasoning = output.filter((i) => i.type === "reasoning");
  const outputTokens = output.length === 0 ? 1 : estimateTokens(output);
  const reasoningTokens = reasoning.length === 0 ? 0 : Math.min(outputTokens, estimateTokens(reasoning));
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: inputTokens + outputTokens,
  };
}

function ev(type: string, data: Record<string, unknown>): SseEvent {
  return { event: type, data: { type, ...data } };
}

/**
 * The streaming events of one output item: `response.output_item.added`, the item's deltas (text,
 * reasoning summary, function arguments or custom tool input, split into a few chunks) and
 * `response.output_item.done` with the complete item.
 *
 * @param item - The complete wire item.
 * @param outputIndex - Its index in `response.output`.
 * @returns The events in order (without `sequence_number`, which the writer assigns).
 */
export function outputItemEvents(item: ResponsesWireItem, outputIndex: number): SseEvent[] {
  const events: SseEvent[] = [];
  const itemId = item.id;
  const base = { item_id: itemId, output_index: outputIndex };
  switch (item.type) {
    case "message": {
      events.push(
        ev("response.output_item.added", {
          output_index: outputIndex,
          item: { ...item, status: "in_progress", content: [] },
        }),
      );
      const parts = Array.isArray(item.content) ? (item.content as Array<Record<string, unknown>>) : [];
      parts.forEach((part, contentIndex) => {
        const text = typeof part.text === "string" ? part.text : "";
        const at = { ...base, content_index: contentIndex };
        events.push(ev("response.content_part.added", { ...at, part: { ...part, text: "" } }));
        for (const delta of splitChunks(text)) {
          events.push(ev("response.output_text.delta", { ...at, delta, logprobs: [] }));
        }
        events.push(ev("response.output_text.done", { ...at, text, logprobs: [] }));
        events.push(ev("response.content_part.done", { ...at, part }));
      });
      break;
    }
    case "reasoning": {
      events.push(
        ev("response.output_item.added", { output_index: outputIndex, item: { ...item, summary: [] } }),
      );
      const summary = Array.isArray(item.summary) ? (item.summary as Array<Record<string, unknown>>) : [];
      summary.forEach((part, summaryIndex) => {
        const text = typeof part.text === "string" ? part.text : "";
        const at = { ...base, summary_index: summaryIndex };
        events.push(
          ev("response.reasoning_summary_part.added", { ...at, part: { type: "summary_text", text: "" } }),
        );
        for (const delta of splitChunks(text)) {
          events.push(ev("response.reasoning_summary_text.delta", { ...at, delta }));
        }
        events.push(ev("response.reasoning_summary_text.done", { ...at, text }));
        events.push(ev("response.reasoning_summary_part.done", { ...at, part }));
      });
      break;
    }
    case "function_call": {
      const args = String(item.arguments ?? "");
      events.push(
        ev("response.output_item.added", {
          output_index: outputIndex,
          item: { ...item, status: "in_progress", arguments: "" },
        }),
      );
      for (const delta of splitChunks(args)) {
        events.push(ev("response.function_call_arguments.delta", { ...base, delta }));
      }
      events.push(ev("response.function_call_arguments.done", { ...base, arguments: args }));
      break;
    }
    case "custom_tool_call": {
      const input = String(item.input ?? "");
      events.push(
        ev("response.output_item.added", {
          output_index: outputIndex,
          item: { ...item, status: "in_progress", input: "" },
        }),
      );
      for (const delta of splitChunks(input)) {
        events.push(ev("response.custom_tool_call_input.delta", { ...base, delta }));
      }
      events.push(ev("response.custom_tool_call_input.done", { ...base, input }));
      break;
    }
    default:
      events.push(ev("response.output_item.added", { output_index: outputIndex, item }));
  }
  events.push(ev("response.output_item.done", { output_index: outputIndex, item }));
  return events;
}

/** `response.created` and `response.in_progress` for a response. */
export function responseStartEvents(response: ResponsesObject): SseEvent[] {
  const inProgress = { ...response, status: "in_progress", output: [], usage: null, error: null };
  return [
    ev("response.created", { response: inProgress }),
    ev("response.in_progress", { response: inProgress }),
  ];
}

/**
 * The complete streaming event sequence of a completed response: `response.created`,
 * `response.in_progress`, each item's events (see {@link outputItemEvents}) and `response.completed`
 * (with `usage`).
 *
 * @param response - The completed response (status `completed`, output and usage set).
 * @returns The events in order.
 */
export function responseToSseEvents(response: ResponsesObject): SseEvent[] {
  const events = responseStartEvents(response);
  response.output.forEach((item, index) => {
    events.push(...outputItemEvents(item, index));
  });
  events.push(ev("response.completed", { response }));
  return events;
}

/**
 * Events of a stream that fails: `response.created`, `response.in_progress`, `response.failed` with
 * `response.error = {code, message}`.
 *
 * @param response - The failed response (status `failed`, `error` set).
 * @returns The events in order.
 */
export function failedResponseEvents(response: ResponsesObject): SseEvent[] {
  return [...responseStartEvents(response), ev("response.failed", { response })];
}

/**
 * The first events of a stream that is then stalled or broken: `response.created`,
 * `response.in_progress` and, with `text`, the start of a message carrying that text (never finished).
 *
 * @param response - The (in-progress) response.
 * @param text - Optional partial assistant text.
 * @returns The events in order.
 */
export function partialResponseEvents(response: ResponsesObject, text: string | undefined): SseEvent[] {
  const events = responseStartEvents(response);
  if (text !== undefined) {
    const item = buildWireItem({ type: "message", text });
    const all = outputItemEvents(item, 0);
    // Up to and including the last text delta: the message is never completed.
    const lastDelta = all.map((e) => e.event).lastIndexOf("response.output_text.delta");
    events.push(...all.slice(0, lastDelta + 1));
  }
  return events;
}

/**
 * Adds `sequence_number` to an event's payload.
 *
 * @param event - The event.
 * @param sequenceNumber - Its position in the stream.
 * @returns A new event.
 */
export function withSequence(event: SseEvent, sequenceNumber: number): SseEvent {
  return { event: event.event, data: { ...event.data, sequence_number: sequenceNumber } };
}
