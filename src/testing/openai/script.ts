/**
 * Script model for the fake OpenAI Responses API: the turn types users write, the recorded request
 * shape, and the reduction of a turn to what the server has to do.
 *
 * @module
 */

import { callFunctionTurns, type RecordedHttpRequest } from "../shared/script.js";

/** Arguments of the Codex CLI's `exec_command` function tool (see its JSON schema in a request). */
export interface ExecCommandArguments {
  /** Shell command to execute. */
  cmd: string;
  /** Working directory. Defaults to the turn cwd. */
  workdir?: string;
  /** How long to wait for output before yielding (ms). The CLI's default is 10000. */
  yield_time_ms?: number;
  /** Login-shell semantics (`bash -lc`). The CLI's default is true. */
  login?: boolean;
  /** Allocate a PTY. */
  tty?: boolean;
  /** Shell binary. */
  shell?: string;
  /** `use_default` or `require_escalated` (run outside the sandbox, needs approval). */
  sandbox_permissions?: "use_default" | "require_escalated";
  /** Approval question shown for `require_escalated`. */
  justification?: string;
  /** Output token budget. */
  max_output_tokens?: number;
  /** Any other argument is passed through. */
  [key: string]: unknown;
}

/** An MCP tool call (see {@link ResponsesTurn}). */
export interface McpCallSpec {
  /** MCP server name as configured (`[mcp_servers.<server>]`). */
  server: string;
  /** Tool name. */
  tool: string;
  /** Tool arguments. */
  arguments: Record<string, unknown>;
  /**
   * Function namespace. Default `mcp__<server>` with every character outside `[A-Za-z0-9_]` replaced
   * by `_` (how the CLI names MCP namespaces, e.g. `my-srv.x` → `mcp__my_srv_x`).
   */
  namespace?: string;
  /**
   * Emulate the model discovering the tool first, as a real model does: answer with a
   * `tool_search_call` (query: this string, or the tool name when `true`), then answer the CLI's
   * follow-up request (the one carrying the `tool_search_output`) with the namespaced `function_call`
   * — automatically, without consuming another scripted turn. Default false: the CLI (0.169) runs a
   * namespaced `function_call` for any configured MCP tool without prior discovery, in one request.
   */
  search?: boolean | string;
}

/**
 * One output item of a scripted response (general form, see {@link ResponsesTurn}). Ids and call ids
 * are generated when absent.
 *
 * - `message` — an assistant message with one `output_text` part.
 * - `reasoning` — a reasoning item with one summary text (streamed as `reasoning_summary_text` deltas).
 * - `function_call` — `arguments` may be an object (JSON-encoded for you) or a string (sent verbatim).
 *   `namespace` is set for MCP tools (`mcp__<server>`).
 * - `custom_tool_call` — a freeform tool call, e.g. `apply_patch` with the patch as `input`.
 * - `tool_search_call` — a client-executed tool search (`execution: "client"`).
 * - `raw` — any other item, sent as-is in `output_item.added` / `.done`.
 */
export type ResponsesOutputItem =
  | { type: "message"; text: string; id?: string; phase?: string }
  | { type: "reasoning"; summary: string; id?: string; encrypted_content?: string | null }
  | {
      type: "function_call";
      name: string;
      arguments: string | Record<string, unknown>;
      namespace?: string;
      call_id?: string;
      id?: string;
    }
  | { type: "custom_tool_call"; name: string; input: string; call_id?: string; id?: string }
  | { type: "tool_search_call"; arguments: Record<string, unknown>; call_id?: string; id?: string }
  | { type: "raw"; item: Record<string, unknown> };

/**
 * One scripted model turn: what the fake server answers to the next `POST /v1/responses`.
 *
 * - `{ text, delayMs? }` — one assistant message.
 * - `{ reasoning, text? }` — a reasoning item (summary text), then an optional message.
 * - `{ execCommand, text? }` — an optional message, then a `function_call` of the CLI's `exec_command`
 *   tool with JSON arguments `{cmd, workdir?, ...}`. The CLI runs it and sends the output back as a
 *   `function_call_output` in the next request (see {@link RecordedResponsesRequest.toolOutputs}).
 * - `{ applyPatch, text? }` — an optional message, then a `custom_tool_call` `apply_patch` whose input is
 *   the patch (`"*** Begin Patch\n*** Add File: x.txt\n+hi\n*** End Patch\n"`).
 * - `{ mcpCall, text? }` — an optional message, then a `function_call` with `namespace: "mcp__<server>"`
 *   and `name: <tool>` (see {@link McpCallSpec.search} for the two-request discovery variant).
 * - `{ items, delayMs? }` — the general form.
 * - `{ error }` — an HTTP error with the OpenAI error body `{"error":{message,type,param,code}}`;
 *   `retryAfter` (seconds) adds a `retry-after` header. A quota error: status 429, code
 *   `insufficient_quota`.
 * - `{ failed }` — a stream that ends with `response.failed` (`error.code` defaults to `server_error`).
 * - `{ brokenStream: true, text? }` — a partial stream, then the socket is destroyed.
 * - `{ stall: true, text? }` — `response.created` (and a text delta of `text` if given), then the stream
 *   stays open until the client disconnects or the server closes. For interrupt tests.
 * - a function — called with the {@link RecordedResponsesRequest}; returns (or resolves to) any turn.
 *
 * `delayMs` is the pause between SSE events.
 *
 * How the real CLI (0.169, with the config of `createCodexHome`) reports failures — each as an `error`
 * line, then `turn.failed`, exit code 1, within ~200 ms and without retrying:
 * - HTTP 500 → the generic "We’re currently experiencing high demand, which may cause temporary
 *   errors."; HTTP 400 → the raw JSON error body as the message.
 * - `response.failed` → `"stream disconnected before completion: <message>"` for `server_error` and
 *   unknown codes; just `<message>` for `invalid_prompt`; `"rate limit exceeded: <message>"` for
 *   `rate_limit_exceeded`; canned texts for `context_length_exceeded`, `insufficient_quota`,
 *   `server_is_overloaded`.
 * - broken stream → `"stream disconnected before completion: Transport error: …"`; stall →
 *   `"stream disconnected before completion: idle timeout waiting for SSE"` after
 *   `stream_idle_timeout_ms`.
 */
export type ResponsesTurn =
  | { text: string; delayMs?: number }
  | { reasoning: string; text?: string; delayMs?: number }
  | { execCommand: ExecCommandArguments; text?: string; delayMs?: number }
  | { applyPatch: string; text?: string; delayMs?: number }
  | { mcpCall: McpCallSpec; text?: string; delayMs?: number }
  | { items: ResponsesOutputItem[]; delayMs?: number }
  | { error: { status: number; message?: string; type?: string; code?: string | null; retryAfter?: number } }
  | { failed: { message: string; code?: string } }
  | { brokenStream: true; text?: string }
  | { stall: true; text?: string }
  | ((request: RecordedResponsesRequest) => ResponsesTurn | Promise<ResponsesTurn>);

/**
 * A tool result the CLI sent back in `body.input`: a `function_call_output`, `custom_tool_call_output`
 * or `tool_search_output` item, as received. Use {@link toolOutputText} to flatten its output.
 */
export interface ResponsesToolOutput {
  type: "function_call_output" | "custom_tool_call_output" | "tool_search_output";
  call_id?: string;
  /** String, or a list of content items (`{type:"input_text", text}`) for MCP results. */
  output?: unknown;
  /** `tool_search_output` only: the tools found (e.g. `{type:"namespace", name:"mcp__srv", tools}`). */
  tools?: unknown[];
  [key: string]: unknown;
}

/** One HTTP request received by the fake OpenAI server. */
export interface RecordedResponsesRequest extends RecordedHttpRequest {
  /**
   * Text of the LAST `role: "user"` message in `body.input` (its `input_text` parts joined with `"\n"`),
   * skipping messages that are only a CLI-injected `<tag>…</tag>` block such as `<environment_context>`.
   * For `codex exec "say hi"` this is `"say hi"` — in every request of the turn, including the
   * follow-ups that carry tool outputs.
   */
  lastUserText: string;
  /** The tool result items of `body.input`, in order (all of the conversation so far). */
  toolOutputs: ResponsesToolOutput[];
}

/** A non-function turn, as produced by resolving function turns. */
export type StaticResponsesTurn = Exclude<ResponsesTurn, (request: RecordedResponsesRequest) => unknown>;

/** A scripted turn reduced to what the server has to do. */
export type ResolvedResponsesTurn =
  | { kind: "response"; items: ResponsesOutputItem[]; delayMs: number; mcpSearch?: PendingMcpCall }
  | {
      kind: "error";
      status: number;
      errorType: string;
      code: string | null;
      message: string;
      retryAfter?: number;
    }
  | { kind: "failed"; code: string; message: string }
  | { kind: "stall"; text?: string }
  | { kind: "broken"; text?: string };

/** The second half of an `mcpCall` with `search`: answered when the `tool_search_output` comes back. */
export interface PendingMcpCall {
  /** `call_id` of the emitted `tool_search_call`. */
  searchCallId: string;
  /** The call to make. */
  call: McpCallSpec;
  /** Pause between SSE events. */
  delayMs: number;
}

/** A user message text that is entirely one CLI-injected block, e.g. `<environment_context>…`. */
const INJECTED_BLOCK = /^\s*<([A-Za-z_][\w-]*)>[\s\S]*<\/\1>\s*$/;

/**
 * The namespace the CLI gives an MCP server's tools: `mcp__` + the server name with every character
 * outside `[A-Za-z0-9_]` replaced by `_`.
 *
 * @param server - Server name as configured.
 * @returns E.g. `mcp__echo` for `echo`, `mcp__my_srv` for `my-srv`.
 */
export function mcpNamespace(server: string): string {
  return `mcp__${server.replace(/[^A-Za-z0-9_]/g, "_")}`;
}

/**
 * The OpenAI error type for an HTTP status.
 *
 * @param status - HTTP status code.
 * @returns E.g. `invalid_request_error` for 400, `server_error` for 500.
 */
export function defaultOpenAIErrorType(status: number): string {
  switch (status) {
    case 401:
      return "invalid_api_key";
    case 403:
      return "permission_denied";
    case 404:
      return "not_found";
    case 429:
      return "rate_limit_exceeded";
    default:
      return status >= 500 ? "server_error" : "invalid_request_error";
  }
}

/**
 * Builds the OpenAI error body `{"error":{message,type,param,code}}`.
 *
 * @param message - Human-readable message.
 * @param type - Error type.
 * @param code - Error code (or null).
 * @returns The JSON-serialisable body.
 */
export function openAIErrorBody(
  message: string,
  type: string,
  code: string | null = null,
): { error: { message: string; type: string; param: null; code: string | null } } {
  return { error: { message, type, param: null, code } };
}

function withText(text: string | undefined, item: ResponsesOutputItem): ResponsesOutputItem[] {
  return text !== undefined ? [{ type: "message", text }, item] : [item];
}

/**
 * Turns a static (non-function) turn into a {@link ResolvedResponsesTurn}.
 *
 * @param turn - The turn.
 * @param newCallId - Call id generator (for the `tool_search_call` of a searching `mcpCall`).
 * @returns What the server has to do.
 * @throws TypeError when the turn has none of the known shapes.
 */
export function normalizeResponsesTurn(
  turn: StaticResponsesTurn,
  newCallId: () => string,
): ResolvedResponsesTurn {
  if (turn === null || typeof turn !== "object") {
    throw new TypeError(`fake-openai: invalid scripted turn: ${String(turn)}`);
  }
  if ("error" in turn) {
    const { status, message, type, code, retryAfter } = turn.error;
    return {
      kind: "error",
      status,
      errorType: type ?? defaultOpenAIErrorType(status),
      code: code ?? null,
      message: message ?? `fake-openai scripted error ${status}`,
      ...(retryAfter !== undefined ? { retryAfter } : {}),
    };
  }
  if ("failed" in turn) {
    return { kind: "failed", code: turn.failed.code ?? "server_error", message: turn.failed.message };
  }
  if ("stall" in turn) return { kind: "stall", ...(turn.text !== undefined ? { text: turn.text } : {}) };
  if ("brokenStream" in turn) {
    return { kind: "broken", ...(turn.text !== undefined ? { text: turn.text } : {}) };
  }
  const delayMs = turn.delayMs ?? 0;
  if ("items" in turn) return { kind: "response", items: turn.items, delayMs };
  if ("execCommand" in turn) {
    return {
      kind: "response",
      items: withText(turn.text, {
        type: "function_call",
        name: "exec_command",
        arguments: turn.execCommand,
      }),
      delayMs,
    };
  }
  if ("applyPatch" in turn) {
    return {
      kind: "response",
      items: withText(turn.text, { type: "custom_tool_call", name: "apply_patch", input: turn.applyPatch }),
      delayMs,
    };
  }
  if ("mcpCall" in turn) {
    const call = turn.mcpCall;
    if (call.search !== undefined && call.search !== false) {
      const searchCallId = newCallId();
      const query = typeof call.search === "string" ? call.search : call.tool;
      return {
        kind: "response",
        items: withText(turn.text, {
          type: "tool_search_call",
          call_id: searchCallId,
          arguments: { query, limit: 8 },
        }),
        delayMs,
        mcpSearch: { searchCallId, call, delayMs },
      };
    }
    return { kind: "response", items: withText(turn.text, mcpFunctionCall(call)), delayMs };
  }
  if ("reasoning" in turn) {
    const items: ResponsesOutputItem[] = [{ type: "reasoning", summary: turn.reasoning }];
    if (turn.text !== undefined) items.push({ type: "message", text: turn.text });
    return { kind: "response", items, delayMs };
  }
  if ("text" in turn) return { kind: "response", items: [{ type: "message", text: turn.text }], delayMs };
  throw new TypeError(`fake-openai: unrecognised scripted turn: ${JSON.stringify(turn)}`);
}

/**
 * The namespaced `function_call` item of an MCP call.
 *
 * @param call - The call.
 * @param namespace - Overrides `call.namespace` / the default namespace.
 * @returns The item.
 */
export function mcpFunctionCall(call: McpCallSpec, namespace?: string): ResponsesOutputItem {
  return {
    type: "function_call",
    name: call.tool,
    namespace: namespace ?? call.namespace ?? mcpNamespace(call.server),
    arguments: call.arguments ?? {},
  };
}

/**
 * Resolves a turn: calls function turns (repeatedly, if a function returns another function) with the
 * request, then normalises the result.
 *
 * @param turn - Any scripted turn.
 * @param request - The request the turn answers.
 * @param newCallId - Call id generator.
 * @returns What the server has to do.
 */
export async function resolveResponsesTurn(
  turn: ResponsesTurn,
  request: RecordedResponsesRequest,
  newCallId: () => string,
): Promise<ResolvedResponsesTurn> {
  return normalizeResponsesTurn(await callFunctionTurns(turn, request, "fake-openai"), newCallId);
}

/** Text parts of a message `content` (a string, or parts with a string `text`). */
function contentText(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content
    .filter((p): p is { text: string } => !!p && typeof (p as { text?: unknown }).text === "string")
    .map((p) => p.text);
}

/**
 * Text of the last `role: "user"` message of a Responses API body (see
 * {@link RecordedResponsesRequest.lastUserText}). `body.input` may also be a plain string.
 *
 * @param body - Parsed request body.
 * @returns The text, or `""`.
 */
export function extractLastUserText(body: unknown): string {
  const input = (body as { input?: unknown } | undefined)?.input;
  if (typeof input === "string") return input;
  if (!Array.isArray(input)) return "";
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i] as { type?: unknown; role?: unknown; content?: unknown } | null;
    if (item?.role !== "user" || (item.type !== undefined && item.type !== "message")) continue;
    const texts = contentText(item.content).filter((t) => !INJECTED_BLOCK.test(t));
    if (texts.length > 0) return texts.join("\n");
  }
  return "";
}

const TOOL_OUTPUT_TYPES = new Set(["function_call_output", "custom_tool_call_output", "tool_search_output"]);

/**
 * The tool result items of a Responses API body's `input`.
 *
 * @param body - Parsed request body.
 * @returns The items, in order.
 */
export function extractToolOutputs(body: unknown): ResponsesToolOutput[] {
  const input = (body as { input?: unknown } | undefined)?.input;
  if (!Array.isArray(input)) return [];
  return input.filter(
    (item): item is ResponsesToolOutput =>
      !!item &&
      typeof item === "object" &&
      TOOL_OUTPUT_TYPES.has((item as { type?: unknown }).type as string),
  );
}

/**
 * Flattens a tool output to text: a string output as is; a list of content items as their `text`
 * joined with `"\n"`; an object `{content}` as its content; a `tool_search_output` as the JSON of its
 * `tools`.
 *
 * @param item - A tool output item.
 * @returns The text.
 */
export function toolOutputText(item: ResponsesToolOutput): string {
  if (item.type === "tool_search_output") return JSON.stringify(item.tools ?? []);
  const out = item.output;
  if (typeof out === "string") return out;
  if (Array.isArray(out)) return contentText(out).join("\n");
  if (out && typeof out === "object") {
    const content = (out as { content?: unknown }).content;
    if (typeof content === "string") return content;
    if (Array.isArray(content)) return contentText(content).join("\n");
  }
  return out === undefined ? "" : JSON.stringify(out);
}
