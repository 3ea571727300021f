/**
 * The building blocks the other compat type modules share: ids, permission modes and updates, the
 * API message and its content blocks, the API's streaming events, usage, commands and models —
 * the official names and wire field names of `@anthropic-ai/claude-agent-sdk` 0.3.330 (which
 * takes the API types from `@anthropic-ai/sdk`; they are declared here so this entry point does
 * not need that package).
 */

import type { SettingSource } from "../../options.js";
import type {
  PermissionMode,
  PermissionRuleValue,
  PermissionUpdate,
  PermissionUpdateDestination,
} from "../../permissions.js";

/** A UUID string. */
export type UUID = `${string}-${string}-${string}-${string}-${string}`;

/** The same types as the core's (test/compat/type-shapes.test.ts checks them against the official ones). */
export type {
  PermissionMode,
  PermissionRuleValue,
  PermissionUpdate,
  PermissionUpdateDestination,
  SettingSource,
};

/** Reasoning effort. */
export type EffortLevel = "low" | "medium" | "high" | "xhigh" | "max";

/** Allow, deny or ask. */
export type PermissionBehavior = "allow" | "deny" | "ask";

/** Token usage as the API reports it. */
export type NonNullableUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  [key: string]: unknown;
};

/** A content block of an API message. */
export type ContentBlock =
  | { type: "text"; text: string; [key: string]: unknown }
  | { type: "thinking"; thinking: string; signature: string; [key: string]: unknown }
  | { type: "tool_use"; id: string; name: string; input: unknown; [key: string]: unknown }
  | {
      type: "tool_result";
      tool_use_id: string;
      content?: unknown;
      is_error?: boolean;
      [key: string]: unknown;
    }
  | { type: "redacted_thinking"; data: string; [key: string]: unknown }
  | { type: "image"; source: unknown; [key: string]: unknown }
  | {
      type: "server_tool_use" | "web_search_tool_result" | "mcp_tool_use" | "mcp_tool_result";
      [key: string]: unknown;
    };

/** The API message inside an assistant message. */
export type BetaMessage = {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: ContentBlock[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: NonNullableUsage;
  [key: string]: unknown;
};

/** A user message as sent to the API. */
export type MessageParam = { role: "user" | "assistant"; content: string | ContentBlock[] };

/** A slash command. */
export type SlashCommand = {
  name: string;
  description: string;
  argumentHint: string;
  [key: string]: unknown;
};
/** A model the account can use. */
export type ModelInfo = { value: string; displayName: string; description: string; [key: string]: unknown };
/** A subagent. */
export type AgentInfo = { name: string; description: string; model?: string; [key: string]: unknown };
/** An MCP server's state. */
export type McpServerStatus = {
  name: string;
  status: "connected" | "failed" | "needs-auth" | "pending" | "disabled";
  [key: string]: unknown;
};
/** Why the API stopped generating. */
export type StopReason =
  | "end_turn"
  | "max_tokens"
  | "stop_sequence"
  | "tool_use"
  | "pause_turn"
  | "refusal"
  | "model_context_window_exceeded"
  | (string & {});

/** A change inside a content block while it streams. */
export type RawContentBlockDelta =
  | { type: "text_delta"; text: string }
  | { type: "input_json_delta"; partial_json: string }
  | { type: "thinking_delta"; thinking: string }
  | { type: "signature_delta"; signature: string }
  | { type: "citations_delta"; citation: Record<string, unknown> }
  | { type: "compaction_delta"; content: string | null; [key: string]: unknown };

/**
 * An event of the Messages API's stream (`BetaRawMessageStreamEvent` of `@anthropic-ai/sdk`), as
 * `stream_event` messages carry it with `includePartialMessages`.
 */
export type BetaRawMessageStreamEvent =
  | { type: "message_start"; message: BetaMessage }
  | {
      type: "message_delta";
      delta: { stop_reason: StopReason | null; stop_sequence: string | null; [key: string]: unknown };
      usage: {
        output_tokens: number;
        input_tokens?: number | null;
        cache_creation_input_tokens?: number | null;
        cache_read_input_tokens?: number | null;
        [key: string]: unknown;
      };
      context_management?: unknown;
    }
  | { type: "message_stop" }
  | { type: "content_block_start"; index: number; content_block: ContentBlock }
  | { type: "content_block_delta"; index: number; delta: RawContentBlockDelta }
  | { type: "content_block_stop"; index: number };
