import { describe, expect, it } from "vitest";
import { cursorToolName, decodeCursorToolCall } from "../../../src/backends/cursor/tool-call.js";

describe("cursorToolName", () => {
  it("strips the ToolCall suffix and upper-cases the first letter; ls is LS", () => {
    const names = Object.fromEntries(
      [
        "shellToolCall",
        "readToolCall",
        "writeToolCall",
        "editToolCall",
        "grepToolCall",
        "globToolCall",
        "deleteToolCall",
        "lsToolCall",
        "updateTodosToolCall",
        "mcpToolCall",
      ].map((wire) => [wire, cursorToolName(wire)]),
    );
    expect(names).toEqual({
      shellToolCall: "Shell",
      readToolCall: "Read",
      writeToolCall: "Write",
      editToolCall: "Edit",
      grepToolCall: "Grep",
      globToolCall: "Glob",
      deleteToolCall: "Delete",
      lsToolCall: "LS",
      updateTodosToolCall: "UpdateTodos",
      mcpToolCall: "Mcp",
    });
  });

  it("leaves a name without the suffix as it is, apart from the first letter", () => {
    expect(cursorToolName("webFetch")).toBe("WebFetch");
    expect(cursorToolName("")).toBe("");
  });
});

describe("decodeCursorToolCall", () => {
  it("a call without result is still running", () => {
    expect(decodeCursorToolCall({ tool: { case: "editToolCall", value: { args: { path: "a" } } } })).toEqual({
      name: "Edit",
      input: { path: "a", file_path: "a" },
    });
    expect(decodeCursorToolCall({ globToolCall: { args: { pattern: "*.ts" } } })).toEqual({
      name: "Glob",
      input: { pattern: "*.ts" },
    });
  });

  it("maps Cursor's tools into the unified vocabulary, keeping Cursor's argument names beside", () => {
    const decode = (key: string, args: Record<string, unknown>) => decodeCursorToolCall({ [key]: { args } });
    expect(decode("shellToolCall", { command: "npm test", workingDirectory: "/w" })).toEqual({
      name: "Bash",
      input: { command: "npm test", cwd: "/w", workingDirectory: "/w" },
    });
    expect(decode("readToolCall", { path: "a.ts", limit: 5 })).toEqual({
      name: "Read",
      input: { path: "a.ts", file_path: "a.ts", limit: 5 },
    });
    expect(decode("writeToolCall", { path: "b.ts", fileText: "x" })).toEqual({
      name: "Write",
      input: { path: "b.ts", fileText: "x", file_path: "b.ts", content: "x" },
    });
    expect(decode("globToolCall", { globPattern: "*.md", targetDirectory: "docs" })).toMatchObject({
      name: "Glob",
      input: { pattern: "*.md", path: "docs" },
    });
    expect(
      decode("updateTodosToolCall", {
        todos: [
          { content: "a", status: "TODO_STATUS_COMPLETED" },
          { content: "b", status: "TODO_STATUS_IN_PROGRESS" },
          { content: "c", status: "TODO_STATUS_PENDING" },
        ],
      }),
    ).toMatchObject({
      name: "TodoWrite",
      input: {
        todos: [
          { content: "a", status: "completed" },
          { content: "b", status: "in_progress" },
          { content: "c", status: "pending" },
        ],
      },
    });
    expect(decode("mcpToolCall", { providerIdentifier: "docs", toolName: "find", args: { q: 1 } })).toEqual({
      name: "mcp__docs__find",
      input: { q: 1 },
    });
    expect(decode("lsToolCall", { path: "." })).toEqual({ name: "LS", input: { path: "." } });
  });

  it("never throws on odd payloads", () => {
    expect(decodeCursorToolCall(undefined)).toEqual({ name: "unknown", input: {} });
    expect(decodeCursorToolCall({})).toEqual({ name: "unknown", input: {} });
    expect(decodeCursorToolCall({ function: { name: "x", arguments: "not json" } })).toEqual({
      name: "x",
      input: { arguments: "not json" },
    });
    expect(decodeCursorToolCall({ somethingNew: { args: [1] } })).toEqual({
      name: "SomethingNew",
      input: {},
    });
  });

  it("outcome text: content, then command output, then the error message, else JSON", () => {
    const outcome = (result: unknown) => decodeCursorToolCall({ x: { result } }).outcome;
    expect(outcome({ success: { content: "file" } })).toMatchObject({ isError: false, content: "file" });
    expect(outcome({ success: { stdout: "out", stderr: "err" } })).toMatchObject({ content: "out\nerr" });
    expect(outcome({ failure: { message: "denied", stdout: "" } })).toMatchObject({
      isError: true,
      content: "denied",
    });
    expect(outcome({ success: { linesCreated: 19 } })).toMatchObject({ content: '{"linesCreated":19}' });
    expect(outcome({ rejected: {} })).toMatchObject({ isError: true, content: "{}" });
  });
});
