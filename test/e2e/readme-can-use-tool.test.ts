/**
 * The README's `canUseTool` example, taken from the README itself, runs unchanged on Claude Code
 * and on Codex: an `npm` command is allowed and runs, anything else is denied and does not.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CanUseTool, Message } from "../../src/index.js";
import { query } from "../../src/index.js";
import {
  type ConformanceTarget,
  claudeConformanceTarget,
  codexConformanceTarget,
  type ModelStep,
} from "../../src/testing/index.js";

/** The `canUseTool` arrow function of the README's "Tool permissions and hooks" example. */
function readmeCanUseTool(): CanUseTool {
  const readme = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");
  const match = /canUseTool: (async \(toolName, input\) =>[\s\S]*?interrupt: false \}),\n/.exec(readme);
  if (!match?.[1]) throw new Error("the README's canUseTool example was not found");
  return new Function(`return ${match[1]}`)() as CanUseTool;
}

function toolResults(messages: Message[]) {
  return messages.flatMap((m) =>
    m.type === "user" && Array.isArray(m.content) ? m.content.filter((b) => b.type === "tool_result") : [],
  );
}

async function run(target: ConformanceTarget, steps: ModelStep[], prompt: string) {
  const canUseTool = readmeCanUseTool();
  const seen: string[] = [];
  await using bed = await target.start(steps);
  const messages: Message[] = [];
  const options = bed.options({
    canUseTool: (name, input, context) => {
      seen.push(`${name} ${String(input.command)}`);
      return canUseTool(name, input, context);
    },
  });
  for await (const message of query({ prompt, options })) messages.push(message);
  return { seen, messages, cwd: bed.cwd, created: (file: string) => existsSync(join(bed.cwd, file)) };
}

describe.each([
  claudeConformanceTarget({ name: "claude 2.1.330" }),
  codexConformanceTarget({ name: "codex 0.169.0" }),
])("the README's canUseTool example on $name", (target) => {
  it("allows an npm command, which runs", async () => {
    const { seen, messages } = await run(target, [{ bash: "npm --version" }, { text: "ok" }], "npm version?");
    expect(seen).toEqual(["Bash npm --version"]);
    expect(toolResults(messages)).toEqual([
      expect.objectContaining({ isError: false, content: expect.stringMatching(/\d+\.\d+\.\d+/) }),
    ]);
  });

  it("denies anything else, which does not run", async () => {
    const { seen, messages, created } = await run(
      target,
      [{ bash: "touch not-npm.txt" }, { text: "denied" }],
      "touch a file",
    );
    expect(seen).toEqual(["Bash touch not-npm.txt"]);
    expect(toolResults(messages)).toEqual([expect.objectContaining({ isError: true })]);
    expect(created("not-npm.txt")).toBe(false);
  });
});
