/**
 * Decoding the `tool_call` payload of Cursor's `tool_call` events, in every encoding seen so far:
 *
 * - protobuf one-of (recent): `{ tool: { case: "shellToolCall", value: { args, result } } }` with
 *   `result` = `{ case: "success" | "failure" | "error" | "timeout" | "rejected" | …, value }`;
 * - keyed by tool (captured from real runs): `{ shellToolCall: { args, result } }` with `result`
 *   keyed by outcome, `{ success: {…} }` / `{ failure: {…} }` / …, beside flags such as `isBackground`;
 * - function style: `{ function: { name, arguments } }` with `arguments` a JSON string (or object).
 *
 * A missing `result` means the tool is still running. Any outcome other than `success` is an error.
 */

import { mcpToolName } from "../../tools.js";
import { asObject, isObject } from "../../wire/read.js";

/**
 * Cursor's own tool name, in PascalCase: the wire key minus its `ToolCall` suffix, first letter
 * upper-cased (`shellToolCall` → `Shell`, `readToolCall` → `Read`, `updateTodosToolCall` →
 * `UpdateTodos`), except `lsToolCall` → `LS`. {@link unifyCursorTool} then maps it into the
 * SDK's tool vocabulary. Function-style calls keep their name.
 */
export function cursorToolName(wireName: string): string {
  const base = wireName.endsWith("ToolCall") ? wireName.slice(0, -"ToolCall".length) : wireName;
  if (base === "ls") return "LS";
  return base.length > 0 ? base.charAt(0).toUpperCase() + base.slice(1) : wireName;
}

/** How a finished tool call ended. */
export interface CursorToolOutcome {
  isError: boolean;
  /** Text for the `tool_result` block: output, file content, or the error message. */
  content: string;
  /** The outcome's payload as the wire carried it. */
  value: unknown;
  /** A shell command's exit code, when the outcome carries one. */
  exitCode?: number;
}

/** One decoded tool call. */
export interface CursorToolCall {
  /** The tool's name in the SDK's vocabulary (see {@link unifyCursorTool}). */
  name: string;
  /** The tool's input in the SDK's vocabulary; Cursor's own argument names are kept beside it. */
  input: Record<string, unknown>;
  /** Set once the call has finished. */
  outcome?: CursorToolOutcome;
}

/** Decodes a `tool_call` payload. Never throws: an unrecognised shape becomes a tool named by its first key. */
export function decodeCursorToolCall(payload: unknown): CursorToolCall {
  if (!isObject(payload)) return { name: "unknown", input: {} };

  if (isObject(payload.tool) && typeof payload.tool.case === "string") {
    const value = asObject(payload.tool.value);
    return withOutcome(cursorToolName(payload.tool.case), value.args, oneOfOutcome(value.result));
  }

  if (isObject(payload.function)) {
    const fn = payload.function;
    const name = typeof fn.name === "string" ? fn.name : "unknown";
    const result = "result" in payload ? payload.result : fn.result;
    return withOutcome(name, parseArguments(fn.arguments), keyedOutcome(result));
  }

  const key =
    Object.keys(payload).find((k) => k.endsWith("ToolCall") && isObject(payload[k])) ??
    Object.keys(payload).find((k) => isObject(payload[k]));
  if (key === undefined) return { name: "unknown", input: {} };
  const call = payload[key] as Record<string, unknown>;
  return withOutcome(cursorToolName(key), call.args, keyedOutcome(call.result));
}

/**
 * A Cursor tool call in the SDK's vocabulary (Claude Code's names and input shapes):
 * `Shell` → `Bash` `{ command, cwd? }`; `Read` → `Read` `{ file_path, offset?, limit? }`;
 * `Write` → `Write` `{ file_path, content? }`; `Edit` → `Edit` `{ file_path, old_string?,
 * new_string? }`; `Grep` → `Grep` `{ pattern, path? }`; `Glob` → `Glob` `{ pattern, path? }`;
 * `UpdateTodos` → `TodoWrite` `{ todos }`; `Mcp` → `mcp__<server>__<tool>` with the tool's
 * arguments. Cursor's own argument names are kept beside the canonical ones; other tools
 * (`LS`, `Delete`, …) keep Cursor's name and arguments.
 */
export function unifyCursorTool(
  name: string,
  args: Record<string, unknown>,
): { name: string; input: Record<string, unknown> } {
  const text = (key: string) =>
    typeof args[key] === "string" && args[key] !== "" ? (args[key] as string) : undefined;
  const withDefined = (canonical: Record<string, unknown>) => {
    const input: Record<string, unknown> = { ...args };
    for (const [key, value] of Object.entries(canonical)) if (value !== undefined) input[key] = value;
    return input;
  };
  switch (name) {
    case "Shell":
      return {
        name: "Bash",
        input: withDefined({ command: text("command") ?? "", cwd: text("workingDirectory") }),
      };
    case "Read":
      return {
        name: "Read",
        input: withDefined({ file_path: text("path") ?? "", offset: args.offset, limit: args.limit }),
      };
    case "Write":
      return {
        name: "Write",
        input: withDefined({ file_path: text("path") ?? "", content: args.fileText ?? args.contents }),
      };
    case "Edit":
      return {
        name: "Edit",
        input: withDefined({
          file_path: text("path") ?? "",
          old_string: args.oldString ?? args.old_string,
          new_string: args.newString ?? args.new_string,
        }),
      };
    case "Grep":
      return { name: "Grep", input: withDefined({ pattern: text("pattern") ?? "", path: text("path") }) };
    case "Glob":
      return {
        name: "Glob",
        input: withDefined({
          pattern: text("globPattern") ?? text("pattern") ?? "",
          path: text("targetDirectory") ?? text("path"),
        }),
      };
    case "UpdateTodos":
      return { name: "TodoWrite", input: withDefined({ todos: cursorTodos(args.todos) }) };
    case "Mcp": {
      const server = text("providerIdentifier") ?? text("serverName") ?? text("server") ?? "";
      const tool = text("toolName") ?? text("name") ?? "";
      return { name: mcpToolName(server, tool), input: asObject(args.args ?? args.arguments) };
    }
    default:
      return { name, input: args };
  }
}

/** Cursor's todo statuses (`TODO_STATUS_IN_PROGRESS`, `completed`, …) as `TodoWrite`'s. */
function cursorTodos(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((todo) => {
    const status = String(todo.status ?? "").toLowerCase();
    return {
      content: typeof todo.content === "string" ? todo.content : "",
      status:
        status.includes("complete") || status.includes("done")
          ? "completed"
          : status.includes("progress")
            ? "in_progress"
            : "pending",
    };
  });
}

function withOutcome(name: string, args: unknown, outcome: CursorToolOutcome | undefined): CursorToolCall {
  const call: CursorToolCall = { ...unifyCursorTool(name, asObject(args)) };
  if (outcome) call.outcome = outcome;
  return call;
}

/** `{ case: "success", value }` (protobuf one-of). */
function oneOfOutcome(result: unknown): CursorToolOutcome | undefined {
  if (!isObject(result) || typeof result.case !== "string") return undefined;
  const isError = result.case !== "success";
  return withExitCode({ isError, content: outcomeText(result.value, isError), value: result }, result.value);
}

/** `{ success: {…} }`, `{ failure: {…} }`, … possibly beside plain flags. */
function keyedOutcome(result: unknown): CursorToolOutcome | undefined {
  if (result === undefined || result === null) return undefined;
  if (!isObject(result)) return { isError: false, content: outcomeText(result, false), value: result };
  if (isObject(result.success) || "success" in result) {
    return withExitCode(
      { isError: false, content: outcomeText(result.success, false), value: result },
      result.success,
    );
  }
  const failure = Object.keys(result).find((k) => isObject(result[k]));
  if (failure !== undefined)
    return withExitCode(
      { isError: true, content: outcomeText(result[failure], true), value: result },
      result[failure],
    );
  return { isError: false, content: "", value: result };
}

function withExitCode(outcome: CursorToolOutcome, payload: unknown): CursorToolOutcome {
  if (isObject(payload) && typeof payload.exitCode === "number") outcome.exitCode = payload.exitCode;
  return outcome;
}

/** The readable part of an outcome: a string as is; file content; command output; an error message. */
function outcomeText(value: unknown, isError: boolean): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (!isObject(value)) return JSON.stringify(value);
  if (typeof value.content === "string") return value.content;
  if (isError) {
    for (const key of ["message", "error", "errorMessage", "reason"]) {
      const text = value[key];
      if (typeof text === "string" && text !== "") return text;
    }
  }
  const output = [value.stdout, value.stderr].filter((s): s is string => typeof s === "string" && s !== "");
  if (typeof value.stdout === "string" || typeof value.stderr === "string") return output.join("\n");
  return JSON.stringify(value);
}

function parseArguments(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return { arguments: value };
  }
}
