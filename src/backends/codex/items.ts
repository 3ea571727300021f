/**
 * Codex items, as `codex exec --json` (snake_case) and `codex app-server` (camelCase) report them,
 * reduced to one view that the message mapping works on.
 *
 * Tools are named and shaped in the unified vocabulary (`src/tools.ts`), so a `canUseTool` callback or
 * a message consumer written for Claude reads Codex the same way:
 * - shell commands → `Bash` with `{ command, cwd?, argv? }`: the command the model asked for, with
 *   the `/bin/bash -lc '…'` wrapper Codex runs it in removed (kept in `argv`);
 * - file changes → `Write` (one file added, `content` when the wire carries it) or `Edit` (anything
 *   else, with `patch` for a single file's diff); both with every file in `changes`, since one Codex
 *   patch may add, update, move and delete several files;
 * - MCP tools → `mcp__<server>__<tool>` with the tool arguments;
 * - web searches → `WebSearch` with `{ query }`; todo lists → `TodoWrite` with `{ todos }`.
 */

import type { RawObject } from "../../messages.js";
import { type FileChange, mcpToolName } from "../../tools.js";
import { isObject, str } from "../../wire/read.js";
import { unwrapShellCommand } from "../shell-command.js";

/** One file of a file change. `kind` is `add`, `delete` or `update`. */
export type FileChangeEntry = FileChange;

/** The outcome of a finished tool item. */
export interface ToolOutcome {
  content: unknown;
  isError: boolean;
  /** A command's exit code. */
  exitCode?: number;
}

/** An item, reduced to what the message model needs. */
export type ItemView =
  | { kind: "text"; id: string; text: string }
  | { kind: "reasoning"; id: string; text: string }
  | { kind: "tool"; id: string; name: string; input: Record<string, unknown>; outcome?: ToolOutcome }
  | { kind: "todo"; id: string; items: unknown[] }
  | { kind: "warning"; id: string; message: string }
  | { kind: "compaction"; id: string }
  /** The user's own input, echoed back by the app-server. */
  | { kind: "user"; id: string }
  | { kind: "other"; id: string; type: string };

/** Tool name for shell commands. */
export const BASH_TOOL = "Bash";
/** Tool name for web searches. */
export const WEB_SEARCH_TOOL = "WebSearch";
export { mcpToolName };

/** A tool call's vocabulary name and input. */
export interface NamedInput {
  name: string;
  input: Record<string, unknown>;
}

/** A shell command: `Bash` with the command the model meant, the wrapper's argv kept in `argv`. */
export function commandInput(command: string | readonly string[], cwd?: string): Record<string, unknown> {
  const unwrapped = unwrapShellCommand(command);
  const input: Record<string, unknown> = { command: unwrapped.command };
  if (cwd !== undefined) input.cwd = cwd;
  if (unwrapped.argv) input.argv = unwrapped.argv;
  return input;
}

/**
 * A file change: `Write` when it adds one file, `Edit` otherwise; `file_path` is the first file,
 * `changes` every file.
 */
export function fileChangeTool(changes: FileChangeEntry[]): NamedInput {
  const first = changes[0];
  const input: Record<string, unknown> = { file_path: first?.path ?? "", changes };
  if (changes.length === 1 && first?.kind === "add") {
    if (first.diff !== undefined) input.content = first.diff;
    return { name: "Write", input };
  }
  if (changes.length === 1 && first?.diff !== undefined) input.patch = first.diff;
  return { name: "Edit", input };
}

/** A Codex todo list (`[{ text, completed }]`) as `TodoWrite` todos. */
export function todoInput(items: unknown[]): Record<string, unknown> {
  const todos = items.filter(isObject).map((item) => ({
    content: str(item.text) ?? str(item.step) ?? "",
    status:
      item.completed === true || item.status === "completed"
        ? "completed"
        : item.status === "inProgress" || item.status === "in_progress"
          ? "in_progress"
          : "pending",
  }));
  return { todos };
}

/**
 * Reduces an item of `codex exec --json`. `finished` is true for `item.completed`: only then does a
 * tool view carry its outcome.
 */
export function viewExecItem(item: RawObject, finished: boolean): ItemView {
  const id = str(item.id) ?? "";
  switch (item.type) {
    case "agent_message":
      return { kind: "text", id, text: str(item.text) ?? "" };
    case "reasoning":
      return { kind: "reasoning", id, text: str(item.text) ?? "" };
    case "command_execution":
      return tool(
        id,
        BASH_TOOL,
        commandInput(str(item.command) ?? ""),
        finished && commandOutcome(item.status, item.aggregated_output, item.exit_code),
      );
    case "file_change": {
      const changes = fileChanges(item.changes);
      const call = fileChangeTool(changes);
      return tool(id, call.name, call.input, finished && patchOutcome(item.status, changes));
    }
    case "mcp_tool_call":
      return tool(
        id,
        mcpToolName(str(item.server) ?? "", str(item.tool) ?? ""),
        objectOr(item.arguments),
        finished && mcpOutcome(item.status, item.result, item.error),
      );
    case "web_search":
      return tool(
        id,
        WEB_SEARCH_TOOL,
        { query: str(item.query) ?? "" },
        finished && { content: item.action ?? str(item.query) ?? "", isError: false },
      );
    case "todo_list":
      return { kind: "todo", id, items: Array.isArray(item.items) ? item.items : [] };
    case "error":
      return { kind: "warning", id, message: str(item.message) ?? "" };
    default:
      return { kind: "other", id, type: str(item.type) ?? "" };
  }
}

/** Reduces an app-server `ThreadItem` (see {@link viewExecItem}). */
export function viewThreadItem(item: RawObject, finished: boolean): ItemView {
  const id = str(item.id) ?? "";
  switch (item.type) {
    case "agentMessage":
      return { kind: "text", id, text: str(item.text) ?? "" };
    case "reasoning": {
      const parts = [...strings(item.summary), ...strings(item.content)];
      return { kind: "reasoning", id, text: parts.join("\n\n") };
    }
    case "commandExecution": {
      return tool(
        id,
        BASH_TOOL,
        commandInput(str(item.command) ?? "", str(item.cwd)),
        finished && commandOutcome(item.status, item.aggregatedOutput, item.exitCode),
      );
    }
    case "fileChange": {
      const changes = fileChanges(item.changes);
      const call = fileChangeTool(changes);
      return tool(id, call.name, call.input, finished && patchOutcome(item.status, changes));
    }
    case "mcpToolCall":
      return tool(
        id,
        mcpToolName(str(item.server) ?? "", str(item.tool) ?? ""),
        objectOr(item.arguments),
        finished && mcpOutcome(item.status, item.result, item.error),
      );
    case "dynamicToolCall": {
      const name = str(item.namespace) ? `${item.namespace}__${item.tool}` : (str(item.tool) ?? "");
      return tool(
        id,
        name,
        objectOr(item.arguments),
        finished && { content: item.contentItems ?? [], isError: item.success === false },
      );
    }
    case "webSearch":
      return tool(
        id,
        WEB_SEARCH_TOOL,
        { query: str(item.query) ?? "" },
        finished && { content: item.results ?? item.action ?? "", isError: false },
      );
    case "contextCompaction":
      return { kind: "compaction", id };
    case "userMessage":
      return { kind: "user", id };
    default:
      return { kind: "other", id, type: str(item.type) ?? "" };
  }
}

/**
 * The files of a file change, from either dialect: exec gives `{path, kind: "add"}`, the app-server
 * `{path, kind: {type: "update", move_path}, diff}`.
 */
export function fileChanges(value: unknown): FileChangeEntry[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((change) => {
    const kind = isObject(change.kind) ? change.kind : { type: change.kind };
    const entry: FileChangeEntry = { path: str(change.path) ?? "", kind: str(kind.type) ?? "" };
    if (typeof change.diff === "string") entry.diff = change.diff;
    const movePath = str(kind.move_path) ?? str(change.move_path);
    if (movePath) entry.movePath = movePath;
    return entry;
  });
}

function tool(
  id: string,
  name: string,
  input: Record<string, unknown>,
  outcome: ToolOutcome | false,
): ItemView {
  return outcome ? { kind: "tool", id, name, input, outcome } : { kind: "tool", id, name, input };
}

/** Statuses meaning the tool did not do what the model asked. */
function failedStatus(status: unknown): boolean {
  return status === "failed" || status === "declined";
}

function commandOutcome(status: unknown, output: unknown, exitCode: unknown): ToolOutcome {
  const isError = failedStatus(status) || (typeof exitCode === "number" && exitCode !== 0);
  const text = str(output) ?? "";
  const content = text === "" && status === "declined" ? "The command was declined" : text;
  return typeof exitCode === "number" ? { content, isError, exitCode } : { content, isError };
}

function patchOutcome(status: unknown, changes: FileChangeEntry[]): ToolOutcome {
  if (status === "declined") return { content: "The file change was declined", isError: true };
  const summary = changes.map((c) => `${c.kind} ${c.path}${c.movePath ? ` -> ${c.movePath}` : ""}`);
  return { content: summary.join("\n"), isError: failedStatus(status) };
}

function mcpOutcome(status: unknown, result: unknown, error: unknown): ToolOutcome {
  if (isObject(error)) return { content: str(error.message) ?? JSON.stringify(error), isError: true };
  const content = isObject(result) ? (result.content ?? []) : "";
  return { content, isError: failedStatus(status) || (isObject(result) && result.isError === true) };
}

function objectOr(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : value === undefined || value === null ? {} : { value };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
