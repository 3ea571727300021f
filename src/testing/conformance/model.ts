/**
 * A backend-neutral scripted model: what the model does in one request, written once and translated
 * into each fake server's script (Anthropic Messages for Claude Code, Responses for Codex). A
 * conformance target translates these steps for its own agent.
 */
import type { ScriptedTurn } from "../anthropic/script.js";
import type { ResponsesTurn } from "../openai/script.js";

/** One model response, in terms every agent understands. */
export type ModelStep =
  /** A final text answer. */
  | { text: string }
  /** A shell command tool call. */
  | { bash: string }
  /** Creating a file (relative to the workspace) with this content. */
  | { write: { path: string; content: string } }
  /** Calling a tool of an MCP server. */
  | { mcp: { server: string; tool: string; arguments: Record<string, unknown> } }
  /** Structured output matching the scenario's JSON schema. */
  | { json: unknown }
  /** Starts answering with `text`, then stalls until the client goes away. */
  | { stall: string }
  /** The API refuses the request: a transient rate limit (HTTP 429), or a used-up quota. */
  | { fail: "rate_limit" | "usage_limit" };

/** The kind of a {@link ModelStep}: `text`, `bash`, `write`, `mcp`, `json` or `stall`. */
export type ModelStepKind = "text" | "bash" | "write" | "mcp" | "json" | "stall" | "fail";

/** The kind of a step. */
export function stepKind(step: ModelStep): ModelStepKind {
  return Object.keys(step)[0] as ModelStepKind;
}

/**
 * The steps as fake Anthropic turns. `cwd` makes file paths absolute, as Claude Code's `Write`
 * requires. Structured output is Claude Code's `StructuredOutput` tool call, then an empty answer.
 */
export function anthropicTurns(steps: ModelStep[], cwd: string): ScriptedTurn[] {
  return steps.flatMap((step): ScriptedTurn[] => {
    if ("text" in step) return [{ text: step.text }];
    if ("bash" in step) return [{ toolUse: { name: "Bash", input: { command: step.bash } } }];
    if ("write" in step)
      return [
        {
          toolUse: {
            name: "Write",
            input: { file_path: `${cwd}/${step.write.path}`, content: step.write.content },
          },
        },
      ];
    if ("mcp" in step)
      return [{ toolUse: { name: `mcp__${step.mcp.server}__${step.mcp.tool}`, input: step.mcp.arguments } }];
    if ("json" in step)
      return [
        { toolUse: { name: "StructuredOutput", input: step.json as Record<string, unknown> } },
        { text: "" },
      ];
    if ("fail" in step)
      return [
        step.fail === "rate_limit"
          ? { error: { status: 429, retryAfter: 1 } }
          : { error: { status: 429, message: "You have exceeded your usage limit for this plan" } },
      ];
    return [{ stall: true, text: step.stall }];
  });
}

/** The steps as fake Responses turns (Codex). Structured output is the answer's JSON text. */
export function responsesTurns(steps: ModelStep[]): ResponsesTurn[] {
  return steps.map((step): ResponsesTurn => {
    if ("text" in step) return { text: step.text };
    if ("bash" in step) return { execCommand: { cmd: step.bash } };
    if ("write" in step) {
      const lines = step.write.content.replace(/\n$/, "").split("\n");
      const body = lines.map((line) => `+${line}`).join("\n");
      return { applyPatch: `*** Begin Patch\n*** Add File: ${step.write.path}\n${body}\n*** End Patch\n` };
    }
    if ("mcp" in step) return { mcpCall: step.mcp };
    if ("json" in step) return { text: JSON.stringify(step.json) };
    if ("fail" in step)
      return step.fail === "rate_limit"
        ? { error: { status: 429, retryAfter: 1 } }
        : {
            error: {
              status: 429,
              type: "insufficient_quota",
              code: "insufficient_quota",
              message: "You exceeded your current quota",
            },
          };
    return { stall: true, text: step.stall };
  });
}
