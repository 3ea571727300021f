/**
 * The unified tool vocabulary: classification of names, MCP names, shell-wrapper unwrapping.
 */
import { describe, expect, it } from "vitest";
import { shellJoin, splitShellWords, unwrapShellCommand } from "../../../src/backends/shell-command.js";
import { isTool, mcpToolName, parseMcpToolName, toolCall } from "../../../src/tools.js";

describe("toolCall", () => {
  it("classifies the canonical tools by what the agent does", () => {
    expect(toolCall("Bash", { command: "ls" })).toEqual({
      kind: "command",
      name: "Bash",
      input: { command: "ls" },
    });
    expect(toolCall("Edit", { file_path: "a" }).kind).toBe("edit");
    expect(toolCall("Write", { file_path: "a" }).kind).toBe("write");
    expect(toolCall("Read", { file_path: "a" }).kind).toBe("read");
    expect(toolCall("Grep", { pattern: "x" }).kind).toBe("search");
    expect(toolCall("TodoWrite", { todos: [] }).kind).toBe("todo");
    expect(toolCall("Agent", { prompt: "p" })).toMatchObject({ kind: "subagent", name: "Task" });
  });

  it("reads MCP tool names into server and tool; other names stay other", () => {
    expect(toolCall("mcp__docs__find_page", { q: 1 })).toEqual({
      kind: "mcp",
      name: "mcp__docs__find_page",
      server: "docs",
      tool: "find_page",
      input: { q: 1 },
    });
    expect(parseMcpToolName(mcpToolName("a", "b__c"))).toEqual({ server: "a", tool: "b__c" });
    expect(parseMcpToolName("mcp__nope")).toBeUndefined();
    expect(toolCall("NotebookEdit", {})).toEqual({ kind: "other", name: "NotebookEdit", input: {} });
  });

  it("isTool narrows the input type", () => {
    const input: Record<string, unknown> = { command: "npm test" };
    if (isTool("Bash", "Bash", input)) expect(input.command.startsWith("npm ")).toBe(true);
    expect(isTool("Bash", "Read", input)).toBe(false);
  });
});

describe("unwrapShellCommand", () => {
  it("removes bash/sh/zsh -c and -lc wrappers, keeping the argv", () => {
    expect(unwrapShellCommand("/bin/bash -lc 'npm --version'")).toEqual({
      command: "npm --version",
      argv: ["/bin/bash", "-lc", "npm --version"],
    });
    expect(unwrapShellCommand(["bash", "-c", "echo 'hi' && ls"]).command).toBe("echo 'hi' && ls");
    expect(unwrapShellCommand(["/usr/bin/env", "zsh", "-l", "-c", "make"]).command).toBe("make");
    expect(unwrapShellCommand(`sh -c "echo \\"q\\" \\$HOME"`).command).toBe(`echo "q" $HOME`);
  });

  it("leaves anything else as it came", () => {
    expect(unwrapShellCommand("npm test")).toEqual({ command: "npm test" });
    expect(unwrapShellCommand("bash script.sh")).toEqual({ command: "bash script.sh" });
    // Words after the script are its $0…: not a plain wrapper.
    expect(unwrapShellCommand(["bash", "-c", "echo $1", "x", "y"]).command).toBe("bash -c 'echo $1' x y");
    expect(unwrapShellCommand("bash -c 'unterminated")).toEqual({ command: "bash -c 'unterminated" });
    expect(unwrapShellCommand(["python3", "-V"])).toEqual({ command: "python3 -V", argv: ["python3", "-V"] });
  });

  it("splits and joins shell words", () => {
    expect(splitShellWords(`a 'b c' "d\\"e" f\\ g`)).toEqual(["a", "b c", 'd"e', "f g"]);
    expect(shellJoin(["echo", "it's"])).toBe(`echo 'it'\\''s'`);
    expect(splitShellWords(shellJoin(["echo", "it's", "a b"]))).toEqual(["echo", "it's", "a b"]);
  });
});
