/**
 * A turn with approvals: `ThreadOptions.canUseTool` (an addition of code-agent-sdk) runs the turn
 * on `codex app-server` through this SDK's Codex backend — exec cannot ask — and turns what the
 * app-server reports back into the exec events the official SDK's callers consume.
 *
 * The app-server's notifications ride on the messages as `raw`; each is converted once:
 * `item/started` / `item/completed` → `item.started` / `item.completed` with the item in exec's
 * snake_case shape, the session's start → `thread.started` + `turn.started`, the turn's result →
 * `turn.completed` (usage) or `turn.failed`. As in exec, only tool items report their start.
 */

import { CONFIG_KEYS, flattenConfig, type TomlValue } from "../../backends/codex/config.js";
import type { Message, RawObject } from "../../messages.js";
import type { AgentOptions } from "../../options.js";
import { type Prompt, text, type UserContentBlock } from "../../prompt.js";
import { query } from "../../query.js";
import { isObject, str } from "../../wire/read.js";
import type { ThreadEvent, ThreadItem } from "./events.js";
import { webSearchMode } from "./exec-spec.js";
import type { CodexOptions, ThreadOptions } from "./options.js";

/** What one approval turn needs. */
export interface AppServerTurn {
  codex: CodexOptions;
  thread: ThreadOptions;
  threadId: string | null;
  input: string;
  images: string[];
  outputSchema?: unknown;
  signal?: AbortSignal | undefined;
}

/** The turn's events, in exec's shapes. */
export async function* runAppServerTurn(turn: AppServerTurn): AsyncGenerator<ThreadEvent, void, undefined> {
  const q = query({ prompt: appServerPrompt(turn), options: agentOptions(turn) });
  const converted = new Set<RawObject>();
  let started = false;
  try {
    for await (const message of q) {
      if (!started && message.sessionId) {
        started = true;
        yield { type: "thread.started", thread_id: message.sessionId };
        yield { type: "turn.started" };
      }
      for (const event of toExecEvents(message, converted)) yield event;
    }
  } finally {
    await q.close();
  }
}

/**
 * The prompt: the local images by their paths (Codex reads them, wrapped in the same
 * `<image … path="…">` text as exec's `--image`), then the text — what exec sends the model.
 */
function appServerPrompt(turn: AppServerTurn): Prompt {
  if (turn.images.length === 0) return turn.input;
  const blocks = turn.images.map((path) => ({ type: "image", source: { type: "path", path } }));
  return [...blocks, text(turn.input)] as unknown as UserContentBlock[];
}

function agentOptions(turn: AppServerTurn): AgentOptions {
  const t = turn.thread;
  const config: Record<string, TomlValue> = {};
  const webSearch = webSearchMode(t);
  if (webSearch !== undefined) config[CONFIG_KEYS.webSearch] = webSearch;
  if (turn.codex.baseUrl) config[CONFIG_KEYS.baseUrl] = turn.codex.baseUrl;
  Object.assign(config, Object.fromEntries(flattenConfig(turn.codex.config)));
  const options: AgentOptions = {
    backend: "codex",
    canUseTool: t.canUseTool,
    codex: {
      approvalPolicy:
        t.approvalPolicy === "on-failure" || t.approvalPolicy === undefined ? "untrusted" : t.approvalPolicy,
      ...(t.sandboxMode ? { sandboxMode: t.sandboxMode } : {}),
      ...(t.networkAccessEnabled !== undefined ? { networkAccess: t.networkAccessEnabled } : {}),
      ...(t.modelReasoningEffort &&
      t.modelReasoningEffort !== "max" &&
      t.modelReasoningEffort !== "ultra" &&
      t.modelReasoningEffort !== "persistent"
        ? { reasoningEffort: t.modelReasoningEffort }
        : {}),
      ...(t.skipGitRepoCheck !== undefined ? { skipGitRepoCheck: t.skipGitRepoCheck } : {}),
      ...(Object.keys(config).length > 0 ? { config } : {}),
    },
  };
  if (t.model) options.model = t.model;
  if (t.workingDirectory) options.cwd = t.workingDirectory;
  if (t.additionalDirectories?.length) options.addDirs = t.additionalDirectories;
  if (turn.threadId) options.resume = turn.threadId;
  if (turn.codex.codexPathOverride) options.cliPath = turn.codex.codexPathOverride;
  const env: Record<string, string> = { ...(turn.codex.env ?? {}) };
  if (turn.codex.apiKey) env.CODEX_API_KEY = turn.codex.apiKey;
  if (turn.codex.env) {
    options.inheritEnv = false;
    options.env = env;
  } else if (turn.codex.apiKey) options.env = env;
  if (turn.outputSchema !== undefined)
    options.outputFormat = { type: "json_schema", schema: turn.outputSchema as Record<string, unknown> };
  if (turn.signal) options.signal = turn.signal;
  return options;
}

/** The exec events one message stands for (none if its notification was converted already). */
export function toExecEvents(message: Message, converted: Set<RawObject>): ThreadEvent[] {
  if (message.type === "result") {
    if (!message.isError) {
      const usage = message.usage ?? {};
      return [
        {
          type: "turn.completed",
          usage: {
            input_tokens: num(usage.input_tokens),
            cached_input_tokens: num(usage.cached_input_tokens),
            cache_write_input_tokens: num(usage.cache_write_input_tokens),
            output_tokens: num(usage.output_tokens),
            reasoning_output_tokens: num(usage.reasoning_output_tokens),
          },
        },
      ];
    }
    return [{ type: "turn.failed", error: { message: message.result ?? "The turn failed" } }];
  }
  const raw = message.raw;
  if (converted.has(raw)) return [];
  const method = raw.method;
  if (method !== "item/started" && method !== "item/completed") return [];
  converted.add(raw);
  const params = isObject(raw.params) ? raw.params : {};
  const item = isObject(params.item) ? execItem(params.item) : undefined;
  if (!item) return [];
  return [{ type: method === "item/started" ? "item.started" : "item.completed", item }];
}

const STATUS: Record<string, string> = {
  inProgress: "in_progress",
  completed: "completed",
  failed: "failed",
  declined: "failed",
};

/** An app-server `ThreadItem` (camelCase) in exec's shape; `undefined` for kinds exec does not report. */
export function execItem(item: RawObject): ThreadItem | undefined {
  const id = str(item.id) ?? "";
  const status = STATUS[str(item.status) ?? ""] ?? "completed";
  switch (item.type) {
    case "agentMessage":
      return { id, type: "agent_message", text: str(item.text) ?? "" };
    case "reasoning": {
      const parts = [item.summary, item.content].flatMap((v) =>
        Array.isArray(v) ? v.filter((s) => typeof s === "string") : [],
      );
      return { id, type: "reasoning", text: parts.join("\n\n") };
    }
    case "commandExecution": {
      const exec: ThreadItem = {
        id,
        type: "command_execution",
        command: str(item.command) ?? "",
        aggregated_output: str(item.aggregatedOutput) ?? "",
        status: status as "in_progress" | "completed" | "failed",
      };
      if (typeof item.exitCode === "number") exec.exit_code = item.exitCode;
      return exec;
    }
    case "fileChange":
      return {
        id,
        type: "file_change",
        changes: (Array.isArray(item.changes) ? item.changes : []).filter(isObject).map((change) => ({
          path: str(change.path) ?? "",
          kind: (isObject(change.kind) ? str(change.kind.type) : str(change.kind)) as
            | "add"
            | "delete"
            | "update",
        })),
        status: status === "failed" ? "failed" : "completed",
      };
    case "mcpToolCall": {
      const call: ThreadItem = {
        id,
        type: "mcp_tool_call",
        server: str(item.server) ?? "",
        tool: str(item.tool) ?? "",
        arguments: item.arguments ?? null,
        status: status as "in_progress" | "completed" | "failed",
      };
      if (isObject(item.result))
        call.result = {
          content: Array.isArray(item.result.content) ? item.result.content : [],
          structured_content: item.result.structuredContent ?? null,
        };
      if (isObject(item.error)) call.error = { message: str(item.error.message) ?? "" };
      return call;
    }
    case "webSearch":
      return { id, type: "web_search", query: str(item.query) ?? "" };
    default:
      return undefined;
  }
}

function num(value: unknown): number {
  return typeof value === "number" ? value : 0;
}
