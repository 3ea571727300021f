/**
 * One script for any ACP agent: agent-neutral turns (text, a shell command, a file write, a stall)
 * turned into the agent's own tool calls on the fake server of the API it calls.
 *
 * @module
 */

import { ACP_AGENTS, type AcpAgentName, type AgentToolCall } from "./acp-agents.js";
import type { ChatTurn, RecordedChatRequest } from "./chat/script.js";
import { type FakeChatCompletionsServer, startFakeChatCompletions } from "./chat/server.js";
import type { GeminiTurn, RecordedGeminiRequest } from "./gemini/script.js";
import { type FakeGeminiServer, startFakeGemini } from "./gemini/server.js";
import type { WaitForRequestOptions } from "./shared/request-log.js";

/**
 * An agent-neutral scripted turn:
 * - `{ text }` — a plain answer.
 * - `{ shell, text? }` — a call of the agent's shell tool running `shell` (text first, if given).
 * - `{ writeFile: { path, content }, text? }` — a call of the agent's file-creating tool.
 * - `{ tool: { name, args }, text? }` — any call in the agent's own tool vocabulary.
 * - `{ stall: true, text? }` — one chunk, then the stream hangs until the client goes away (cancel tests).
 * - `{ error: { status, message? } }` — an HTTP error.
 * - `{ api }` — a turn of the underlying fake as is (a {@link ChatTurn} or {@link GeminiTurn}).
 * - a function of the {@link AgentModelRequest} returning any of these — for stateless scripts that
 *   answer by the prompt (`r.lastUserText`) and by whether the request carries a tool result
 *   (`toolResultTexts(r)`), which keeps a script in step whatever number of requests an agent makes.
 */
export type AgentTurn =
  | { text: string }
  | { shell: string; text?: string }
  | { writeFile: { path: string; content: string }; text?: string }
  | { tool: AgentToolCall; text?: string }
  | { stall: true; text?: string }
  | { error: { status: number; message?: string } }
  | { api: ChatTurn | GeminiTurn }
  | ((request: AgentModelRequest) => AgentTurn | Promise<AgentTurn>);

/** A request seen by an agent's fake model server: Chat Completions or Gemini. */
export type AgentModelRequest = RecordedChatRequest | RecordedGeminiRequest;

/** The fake model server of one agent, from {@link startFakeModelForAgent}. */
export interface AgentModelServer extends AsyncDisposable {
  /** The agent. */
  readonly agent: AcpAgentName;
  /** Base URL (pass to `createAcpAgentEnv` as `baseUrl`). */
  readonly url: string;
  /** Every request, in arrival order (side calls included). */
  readonly requests: AgentModelRequest[];
  /** The requests answered by scripted turns, in order. */
  readonly turnRequests: AgentModelRequest[];
  /** The underlying server, for API-specific assertions. */
  readonly server: FakeChatCompletionsServer | FakeGeminiServer;
  /** Appends turns. */
  push(...turns: AgentTurn[]): void;
  /** See the servers' `waitForRequest`. */
  waitForRequest(
    predicate: (r: AgentModelRequest) => boolean,
    opts?: WaitForRequestOptions,
  ): Promise<AgentModelRequest>;
  /** Closes the server. Idempotent. */
  close(): Promise<void>;
}

/** Options for {@link startFakeModelForAgent}. */
export interface AgentModelOptions {
  /** The script. */
  turns?: AgentTurn[];
  /** When the script runs out. Default `{ text: "OK" }`. */
  defaultTurn?: AgentTurn;
}

/**
 * The text of every tool result the agent sent back in a request (Chat `role: "tool"` messages, or
 * Gemini `functionResponse` parts as JSON).
 *
 * @param request - A recorded request.
 * @returns The texts, in conversation order.
 */
export function toolResultTexts(request: AgentModelRequest): string[] {
  if ("toolResults" in request) return request.toolResults.map((r) => r.text);
  return request.functionResponses.map((r) => JSON.stringify(r.response));
}

/**
 * Whether a request continues a turn after a tool ran: its last message is a tool result (Chat
 * `role: "tool"`, Gemini `functionResponse`).
 *
 * @param request - A recorded request.
 * @returns True for a follow-up.
 */
export function isToolFollowUp(request: AgentModelRequest): boolean {
  return "toolResults" in request ? request.isToolFollowUp : request.isFunctionResponseFollowUp;
}

/**
 * Translates an agent-neutral turn into the agent's API turn.
 *
 * @param agent - The agent.
 * @param turn - The turn.
 * @returns A {@link ChatTurn} or {@link GeminiTurn}, per the agent's API.
 */
export function toAgentApiTurn(agent: AcpAgentName, turn: AgentTurn): ChatTurn | GeminiTurn {
  const preset = ACP_AGENTS[agent];
  if (typeof turn === "function") {
    const fn = turn;
    const dynamic = async (request: AgentModelRequest): Promise<ChatTurn | GeminiTurn> =>
      toAgentApiTurn(agent, await fn(request));
    return dynamic as ChatTurn & GeminiTurn;
  }
  if ("api" in turn) return turn.api;
  if ("stall" in turn || "error" in turn) return turn;
  const text = "text" in turn && turn.text !== undefined ? { text: turn.text } : {};
  let call: AgentToolCall | undefined;
  if ("shell" in turn) call = preset.shellCall(turn.shell);
  else if ("writeFile" in turn) call = preset.writeFileCall(turn.writeFile.path, turn.writeFile.content);
  else if ("tool" in turn) call = turn.tool;
  if (call === undefined) return { text: turn.text ?? "" };
  return preset.api === "gemini"
    ? { functionCall: { name: call.name, args: call.args }, ...text }
    : { toolCall: { name: call.name, arguments: call.args }, ...text };
}

/**
 * Starts the fake model server an agent calls (Gemini or Chat Completions) with the agent's side calls
 * registered, scripted with agent-neutral turns.
 *
 * @param agent - The agent.
 * @param options - Script and default turn.
 * @returns The running server.
 */
export async function startFakeModelForAgent(
  agent: AcpAgentName,
  options: AgentModelOptions = {},
): Promise<AgentModelServer> {
  const preset = ACP_AGENTS[agent];
  const convert = (t: AgentTurn): ChatTurn | GeminiTurn => toAgentApiTurn(agent, t);
  const turns = (options.turns ?? []).map(convert);
  const defaultTurn = convert(options.defaultTurn ?? { text: "OK" });
  const server =
    preset.api === "gemini"
      ? await startFakeGemini({
          turns: turns as GeminiTurn[],
          defaultTurn: defaultTurn as GeminiTurn,
          sideCalls: [...preset.geminiSideCalls],
        })
      : await startFakeChatCompletions({
          turns: turns as ChatTurn[],
          defaultTurn: defaultTurn as ChatTurn,
          sideCalls: [...preset.chatSideCalls],
        });
  const close = (): Promise<void> => server.close();
  return {
    agent,
    url: server.url,
    requests: server.requests,
    turnRequests: server.turnRequests,
    server,
    push: (...more) => (server.push as (...t: Array<ChatTurn | GeminiTurn>) => void)(...more.map(convert)),
    waitForRequest: (predicate, opts) =>
      (
        server.waitForRequest as (
          p: (r: AgentModelRequest) => boolean,
          o?: WaitForRequestOptions,
        ) => Promise<AgentModelRequest>
      )(predicate, opts),
    close,
    [Symbol.asyncDispose]: close,
  };
}
