/**
 * Type-level compatibility: programs written against the official SDKs' `.d.ts` compile unchanged
 * with the official module names resolved to the compat entry points (`paths` in a test tsconfig),
 * and also against the official packages themselves (so the programs are real uses of their API).
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

function compile(
  project: string,
  moduleName = "@openai/codex-sdk",
): { status: number | null; output: string; resolved: string } {
  const result = spawnSync(
    process.execPath,
    [tsc, "-p", join(import.meta.dirname, project), "--traceResolution"],
    {
      encoding: "utf8",
      // --traceResolution is verbose (the official Claude types pull in @anthropic-ai/sdk).
      maxBuffer: 512 * 1024 * 1024,
    },
  );
  const output = `${result.stdout}${result.stderr}`;
  const escaped = moduleName.replace(/[/.*+?^${}()|[\]\\-]/g, "\\$&");
  const resolved =
    new RegExp(`Module name '${escaped}' was successfully resolved to '([^']+)'`).exec(output)?.[1] ?? "";
  return {
    status: result.status,
    output: output
      .split("\n")
      .filter((l) => l.includes("error TS"))
      .join("\n"),
    resolved,
  };
}

describe("type-level compatibility", () => {
  it("the Codex program compiles against @openai/codex-sdk itself", () => {
    const result = compile("tsconfig.official.json");
    expect(result.output).toBe("");
    expect(result.resolved).toContain("node_modules/@openai/codex-sdk/");
    expect(result.status).toBe(0);
  });

  it("the same program compiles unchanged against code-agent-sdk/compat/codex-sdk", () => {
    const result = compile("tsconfig.compat.json");
    expect(result.output).toBe("");
    expect(result.resolved).toContain("src/compat/codex-sdk/index.ts");
    expect(result.status).toBe(0);
  });

  it("the Claude program compiles against @anthropic-ai/claude-agent-sdk itself", () => {
    const result = compile("tsconfig.claude-official.json", "@anthropic-ai/claude-agent-sdk");
    expect(result.output).toBe("");
    expect(result.resolved).toContain("node_modules/@anthropic-ai/claude-agent-sdk/");
    expect(result.status).toBe(0);
  });

  it("the same program compiles unchanged against code-agent-sdk/compat/claude-agent-sdk", () => {
    const result = compile("tsconfig.claude-compat.json", "@anthropic-ai/claude-agent-sdk");
    expect(result.output).toBe("");
    expect(result.resolved).toContain("src/compat/claude-agent-sdk/index.ts");
    expect(result.status).toBe(0);
  });
});
