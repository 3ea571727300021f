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
      input: { path: "a" },
    });
    expect(decodeCursorToolCall({ globToolCall: { args: { pattern: "*.ts" } } })).toEqual({
      name: "Glob",
      input: { pattern: "*.ts" },
    });
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
