/**
 * The events and items of `codex exec --experimental-json`, as the official Codex SDK types them:
 * the wire's own snake_case shapes, one JSON object per line. The compat `Thread` yields them as
 * the CLI wrote them.
 */

/** The status of a command execution. */
export type CommandExecutionStatus = "in_progress" | "completed" | "failed";

/** A command executed by the agent. */
export interface CommandExecutionItem {
  id: string;
  type: "command_execution";
  /** The command line executed by the agent. */
  command: string;
  /** Aggregated stdout and stderr captured while the command was running. */
  aggregated_output: string;
  /** Set when the command exits; omitted while still running. */
  exit_code?: number;
  status: CommandExecutionStatus;
}

/** The kind of a file change. */
export type PatchChangeKind = "add" | "delete" | "update";

/** One file of a file change. */
export interface FileUpdateChange {
  path: string;
  kind: PatchChangeKind;
}

/** The status of a file change. */
export type PatchApplyStatus = "completed" | "failed";

/** A set of file changes by the agent, emitted once the patch succeeds or fails. */
export interface FileChangeItem {
  id: string;
  type: "file_change";
  changes: FileUpdateChange[];
  status: PatchApplyStatus;
}

/** The status of an MCP tool call. */
export type McpToolCallStatus = "in_progress" | "completed" | "failed";

/** A call to a tool of an MCP server. */
export interface McpToolCallItem {
  id: string;
  type: "mcp_tool_call";
  server: string;
  tool: string;
  arguments: unknown;
  /** The server's result, for successful calls. */
  result?: { content: unknown[]; _meta?: unknown; structured_content: unknown };
  /** The error, for failed calls. */
  error?: { message: string };
  status: McpToolCallStatus;
}

/** A response of the agent: text, or JSON when structured output was requested. */
export interface AgentMessageItem {
  id: string;
  type: "agent_message";
  text: string;
}

/** The agent's reasoning summary. */
export interface ReasoningItem {
  id: string;
  type: "reasoning";
  text: string;
}

/** A web search request. */
export interface WebSearchItem {
  id: string;
  type: "web_search";
  query: string;
}

/** A non-fatal error surfaced as an item. */
export interface ErrorItem {
  id: string;
  type: "error";
  message: string;
}

/** One entry of the agent's to-do list. */
export interface TodoItem {
  text: string;
  completed: boolean;
}

/** The agent's running to-do list. */
export interface TodoListItem {
  id: string;
  type: "todo_list";
  items: TodoItem[];
}

/** Every item of a thread. */
export type ThreadItem =
  | AgentMessageItem
  | ReasoningItem
  | CommandExecutionItem
  | FileChangeItem
  | McpToolCallItem
  | WebSearchItem
  | TodoListItem
  | ErrorItem;

/** The first event of a new thread. */
export interface ThreadStartedEvent {
  type: "thread.started";
  /** The thread's id, for `resumeThread()`. */
  thread_id: string;
}

/** A turn started. */
export interface TurnStartedEvent {
  type: "turn.started";
}

/** Token usage of a turn. */
export interface Usage {
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
}

/** A turn completed. */
export interface TurnCompletedEvent {
  type: "turn.completed";
  usage: Usage;
}

/** The error of a failed turn or of the stream. */
export interface ThreadError {
  message: string;
}

/** A turn failed. */
export interface TurnFailedEvent {
  type: "turn.failed";
  error: ThreadError;
}

/** An item was added (usually in progress). */
export interface ItemStartedEvent {
  type: "item.started";
  item: ThreadItem;
}

/** An item changed. */
export interface ItemUpdatedEvent {
  type: "item.updated";
  item: ThreadItem;
}

/** An item reached its end (success or failure). */
export interface ItemCompletedEvent {
  type: "item.completed";
  item: ThreadItem;
}

/** An unrecoverable error of the stream. */
export interface ThreadErrorEvent {
  type: "error";
  message: string;
}

/** Every event of `codex exec --experimental-json`. */
export type ThreadEvent =
  | ThreadStartedEvent
  | TurnStartedEvent
  | TurnCompletedEvent
  | TurnFailedEvent
  | ItemStartedEvent
  | ItemUpdatedEvent
  | ItemCompletedEvent
  | ThreadErrorEvent;
