/**
 * The unified tool vocabulary. Every backend names and shapes its tool calls this way, in
 * `tool_use` blocks and in `canUseTool`, so a program that reacts to "the agent ran a command" or
 * "the agent edited a file" reads every backend the same. Claude Code's own tool names and input
 * shapes are the canonical ones: they are what most users already know.
 *
 * What each backend's wire maps to is tabled in docs/messages.md ("One tool vocabulary"). The wire payload
 * is never lost: `tool_use` messages keep it in `raw`, `canUseTool` in `context.raw`.
 */
import type { ToolUseBlock } from "./messages.js";

/** A shell command, as the agent meant it (not the shell wrapper the CLI ran it in). */
export interface BashInput {
  [key: string]: unknown;
  /** The command line, e.g. `npm test`. A `bash -lc '…'` wrapper is removed. */
  command: string;
  /** The directory the command runs in, when the wire says. */
  cwd?: string;
  /** The argv the CLI actually ran (e.g. `["/bin/bash", "-lc", "npm test"]`), when it differs from `command`. */
  argv?: string[];
  /** Claude Code: a short description of the command. */
  description?: string;
  /** Claude Code: a time limit in milliseconds. */
  timeout?: number;
  /** Claude Code: run it as a background task. */
  run_in_background?: boolean;
}

/** Reading a file. */
export interface ReadInput {
  [key: string]: unknown;
  file_path: string;
  /** First line to read (1-based), when the wire says. */
  offset?: number;
  /** Number of lines, when the wire says. */
  limit?: number;
}

/** Creating (or overwriting) a file. */
export interface WriteInput {
  [key: string]: unknown;
  file_path: string;
  /** The file's content, when the wire carries it (Codex `exec` does not). */
  content?: string;
}

/** One file of a multi-file change (Codex's `apply_patch`). */
export interface FileChange {
  path: string;
  /** `add`, `update` or `delete`. */
  kind: string;
  /** The unified diff (or, for `add`, the new content) when the wire carries it. */
  diff?: string;
  /** The new path of a moved file. */
  movePath?: string;
}

/**
 * Editing a file. Claude Code and Cursor give the replaced and replacing text; Codex gives a patch
 * (`patch`, and every file of the change in `changes`).
 */
export interface EditInput {
  [key: string]: unknown;
  file_path: string;
  old_string?: string;
  new_string?: string;
  replace_all?: boolean;
  /** The unified diff of this file, when the wire gives a patch instead of old/new text. */
  patch?: string;
  /** Every file of a multi-file change (Codex). The first one is `file_path`. */
  changes?: FileChange[];
}

/** Finding files by glob. */
export interface GlobInput {
  [key: string]: unknown;
  pattern: string;
  path?: string;
}

/** Searching file contents. */
export interface GrepInput {
  [key: string]: unknown;
  pattern: string;
  path?: string;
}

/** Fetching a URL. */
export interface WebFetchInput {
  [key: string]: unknown;
  url: string;
  prompt?: string;
}

/** A web search. */
export interface WebSearchInput {
  [key: string]: unknown;
  query: string;
}

/** Starting a subagent. */
export interface TaskInput {
  [key: string]: unknown;
  description?: string;
  prompt?: string;
  subagent_type?: string;
}

/** One entry of a todo list / plan. */
export interface TodoItem {
  [key: string]: unknown;
  content: string;
  status: "pending" | "in_progress" | "completed";
  activeForm?: string;
}

/** Replacing the agent's todo list / plan. */
export interface TodoWriteInput {
  [key: string]: unknown;
  todos: TodoItem[];
}

/** The input shape of each canonical tool. */
export interface ToolInputs {
  Bash: BashInput;
  Read: ReadInput;
  Write: WriteInput;
  Edit: EditInput;
  Glob: GlobInput;
  Grep: GrepInput;
  WebFetch: WebFetchInput;
  WebSearch: WebSearchInput;
  Task: TaskInput;
  TodoWrite: TodoWriteInput;
}

/** A canonical tool name. MCP tools are named `mcp__<server>__<tool>`; anything else keeps its wire name. */
export type ToolName = keyof ToolInputs;

/** The canonical tool names, for code that prefers constants to strings. */
export const TOOL_NAMES: readonly ToolName[] = [
  "Bash",
  "Read",
  "Write",
  "Edit",
  "Glob",
  "Grep",
  "WebFetch",
  "WebSearch",
  "Task",
  "TodoWrite",
];

const CANONICAL = new Set<string>(TOOL_NAMES);

/**
 * A tool call read through the vocabulary: `kind` says what the agent is doing, whatever the
 * backend. `other` carries any tool outside the vocabulary (Claude's `NotebookEdit`, Cursor's `LS`,
 * a Codex dynamic tool, …) with its input as the wire had it.
 */
export type ToolCall =
  | { kind: "command"; name: "Bash"; input: BashInput }
  | { kind: "read"; name: "Read"; input: ReadInput }
  | { kind: "write"; name: "Write"; input: WriteInput }
  | { kind: "edit"; name: "Edit"; input: EditInput }
  | { kind: "search"; name: "Glob" | "Grep"; input: GlobInput | GrepInput }
  | { kind: "web_fetch"; name: "WebFetch"; input: WebFetchInput }
  | { kind: "web_search"; name: "WebSearch"; input: WebSearchInput }
  | { kind: "subagent"; name: "Task"; input: TaskInput }
  | { kind: "todo"; name: "TodoWrite"; input: TodoWriteInput }
  | { kind: "mcp"; name: string; server: string; tool: string; input: Record<string, unknown> }
  | { kind: "other"; name: string; input: Record<string, unknown> };

const KINDS: Record<ToolName, ToolCall["kind"]> = {
  Bash: "command",
  Read: "read",
  Write: "write",
  Edit: "edit",
  Glob: "search",
  Grep: "search",
  WebFetch: "web_fetch",
  WebSearch: "web_search",
  Task: "subagent",
  TodoWrite: "todo",
};

/**
 * Reads a tool call (a `tool_use` block, or the name and input `canUseTool` receives) through the
 * vocabulary. Claude Code's `Agent` tool (the newer name of `Task`) reads as a subagent too.
 */
export function toolCall(name: string, input: Record<string, unknown>): ToolCall {
  if (CANONICAL.has(name)) return { kind: KINDS[name as ToolName], name, input } as ToolCall;
  if (name === "Agent") return { kind: "subagent", name: "Task", input: input as TaskInput };
  const mcp = parseMcpToolName(name);
  if (mcp) return { kind: "mcp", name, server: mcp.server, tool: mcp.tool, input };
  return { kind: "other", name, input };
}

/** {@link toolCall} of a `tool_use` block. */
export function toolCallOf(block: ToolUseBlock): ToolCall {
  return toolCall(block.name, block.input);
}

/**
 * Narrows a tool name and input to one canonical tool:
 * `if (isTool("Bash", toolName, input)) input.command.startsWith("npm ")`.
 */
export function isTool<N extends ToolName>(
  name: N,
  toolName: string,
  input: Record<string, unknown>,
): input is ToolInputs[N] {
  return toolName === name;
}

/** `mcp__<server>__<tool>` → its parts; `undefined` for other names. */
export function parseMcpToolName(name: string): { server: string; tool: string } | undefined {
  if (!name.startsWith("mcp__")) return undefined;
  const rest = name.slice("mcp__".length);
  const split = rest.indexOf("__");
  if (split <= 0) return undefined;
  return { server: rest.slice(0, split), tool: rest.slice(split + 2) };
}

/** The tool name of an MCP tool, as Claude Code names them: `mcp__<server>__<tool>`. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}
