/**
 * One tool policy on Claude (issue 28, item 1), against the real claude CLI offline: `canUseTool`
 * decides every tool call — also those Claude Code runs by itself (a `Read` in the workspace, `ls`,
 * `cat`) — while its bookkeeping tools (`StructuredOutput`) never reach the policy, and
 * `bypassPermissions` asks nobody.
 */
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CanUseTool, type Message, query } from "../../src/index.js";
import { structuredOutputTurns } from "../../src/testing/index.js";
import { collect, results, testBed } from "./support.js";

const SECRET = "SECRET-README-CONTENT-28";

function toolResults(messages: Message[]) {
  return messages.flatMap((m) =>
    m.type === "user" && Array.isArray(m.content) ? m.content.filter((b) => b.type === "tool_result") : [],
  );
}

/** "Only `git diff`": everything else is denied. Notes what it was asked about. */
function onlyGitDiff(seen: string[]): CanUseTool {
  return (toolName, input) => {
    seen.push(`${toolName} ${String(input.command ?? input.file_path ?? "")}`);
    return toolName === "Bash" && input.command === "git diff"
      ? { behavior: "allow", updatedInput: input }
      : { behavior: "deny", message: "only git diff" };
  };
}

describe("canUseTool on claude sees every tool call", () => {
  it("an 'only git diff' policy is asked about a Read, ls and cat the CLI would run by itself, and denies them", async () => {
    const script = (cwd: string) => [
      { toolUse: { name: "Read", input: { file_path: join(cwd, "README.md") } } },
      { toolUse: { name: "Bash", input: { command: "ls" } } },
      { toolUse: { name: "Bash", input: { command: "cat README.md" } } },
      { toolUse: { name: "Bash", input: { command: "git diff" } } },
      { text: "done" },
    ];
    await using bed = await testBed([]);
    spawnSync("git", ["init", "-q", bed.cwd]);
    writeFileSync(join(bed.cwd, "README.md"), `${SECRET}\n`);

    // The official scope (the compat entry point's): the CLI runs the Read, ls and cat unasked.
    bed.model.push(...script(bed.cwd));
    const askedOnly: string[] = [];
    const leaked = await collect(
      query({
        prompt: "look around",
        options: bed.options({ canUseTool: onlyGitDiff(askedOnly), canUseToolScope: "asked-calls" }),
      }),
    );
    expect(askedOnly).not.toContain("Bash ls");
    expect(JSON.stringify(toolResults(leaked))).toContain(SECRET);

    // This SDK's default: every call is put to the policy.
    bed.model.push(...script(bed.cwd));
    const seen: string[] = [];
    const messages = await collect(
      query({ prompt: "look around", options: bed.options({ canUseTool: onlyGitDiff(seen) }) }),
    );
    expect(seen).toEqual([
      `Read ${join(bed.cwd, "README.md")}`,
      "Bash ls",
      "Bash cat README.md",
      "Bash git diff",
    ]);
    const outcomes = toolResults(messages);
    expect(outcomes).toHaveLength(4);
    expect(outcomes.slice(0, 3)).toEqual([
      expect.objectContaining({ isError: true, content: "only git diff" }),
      expect.objectContaining({ isError: true, content: "only git diff" }),
      expect.objectContaining({ isError: true, content: "only git diff" }),
    ]);
    expect(outcomes[3]).toMatchObject({ isError: false });
    expect(JSON.stringify(messages)).not.toContain(SECRET);
    expect(results(messages)[0]?.isError).toBe(false);
  });

  it("the policy's allow rewrites the input of a call the CLI would run by itself", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "echo one" } } },
      { text: "done" },
    ]);
    const messages = await collect(
      query({
        prompt: "echo",
        options: bed.options({
          canUseTool: (_name, input) => ({
            behavior: "allow",
            updatedInput: { ...input, command: "echo rewritten" },
          }),
        }),
      }),
    );
    expect(toolResults(messages)).toEqual([
      expect.objectContaining({ isError: false, content: "rewritten" }),
    ]);
  });

  it("a call an allowedTools rule of the user plainly allows skips the policy; a compound command does not", async () => {
    await using bed = await testBed([]);
    writeFileSync(join(bed.cwd, "README.md"), `${SECRET}\n`);
    bed.model.push(
      { toolUse: { name: "Bash", input: { command: "echo plain" } } },
      { toolUse: { name: "Bash", input: { command: "echo x; cat README.md" } } },
      { text: "done" },
    );
    const seen: string[] = [];
    const messages = await collect(
      query({
        prompt: "go",
        options: bed.options({ allowedTools: ["Bash(echo:*)"], canUseTool: onlyGitDiff(seen) }),
      }),
    );
    expect(seen).toEqual(["Bash echo x; cat README.md"]);
    expect(toolResults(messages)).toEqual([
      expect.objectContaining({ isError: false, content: "plain" }),
      expect.objectContaining({ isError: true, content: "only git diff" }),
    ]);
  });

  it("a user's PreToolUse hook that allows does not skip the policy", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "ls" } } },
      { text: "done" },
    ]);
    const seen: string[] = [];
    const messages = await collect(
      query({
        prompt: "go",
        options: bed.options({
          canUseTool: onlyGitDiff(seen),
          hooks: {
            PreToolUse: [
              {
                hooks: [
                  () => ({
                    hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" },
                  }),
                ],
              },
            ],
          },
        }),
      }),
    );
    expect(seen).toEqual(["Bash ls"]);
    expect(toolResults(messages)).toEqual([
      expect.objectContaining({ isError: true, content: "only git diff" }),
    ]);
  });

  it("a user's PreToolUse hook that denies still denies, without asking the policy", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "ls" } } },
      { text: "done" },
    ]);
    const seen: string[] = [];
    const messages = await collect(
      query({
        prompt: "go",
        options: bed.options({
          canUseTool: (name) => {
            seen.push(name);
            return { behavior: "allow" };
          },
          hooks: {
            PreToolUse: [
              {
                hooks: [
                  () => ({
                    hookSpecificOutput: {
                      hookEventName: "PreToolUse",
                      permissionDecision: "deny",
                      permissionDecisionReason: "the hook says no",
                    },
                  }),
                ],
              },
            ],
          },
        }),
      }),
    );
    expect(seen).toEqual([]);
    expect(toolResults(messages)).toEqual([expect.objectContaining({ isError: true })]);
    expect(JSON.stringify(toolResults(messages))).toContain("the hook says no");
  });

  it("a deny-by-default policy with outputFormat still yields structuredOutput (StructuredOutput is not asked)", async () => {
    await using bed = await testBed(structuredOutputTurns({ answer: 4 }));
    const seen: string[] = [];
    const messages = await collect(
      query({
        prompt: "what is 2+2",
        options: bed.options({
          canUseTool: (toolName) => {
            seen.push(toolName);
            return { behavior: "deny", message: "nothing is allowed" };
          },
          outputFormat: {
            type: "json_schema",
            schema: { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] },
          },
        }),
      }),
    );
    expect(seen).toEqual([]);
    expect(results(messages)[0]).toMatchObject({ isError: false, structuredOutput: { answer: 4 } });
  });

  it("bypassPermissions asks nobody", async () => {
    await using bed = await testBed([]);
    writeFileSync(join(bed.cwd, "README.md"), `${SECRET}\n`);
    bed.model.push(
      { toolUse: { name: "Read", input: { file_path: join(bed.cwd, "README.md") } } },
      { toolUse: { name: "Bash", input: { command: "touch made-by-bypass.txt" } } },
      { text: "done" },
    );
    const seen: string[] = [];
    const messages = await collect(
      query({
        prompt: "go",
        options: bed.options({
          // Root may bypass only in a sandbox (the CLI refuses --dangerously-skip-permissions otherwise).
          env: { IS_SANDBOX: "1" },
          permissionMode: "bypassPermissions",
          allowDangerouslySkipPermissions: true,
          canUseTool: (toolName) => {
            seen.push(toolName);
            return { behavior: "deny", message: "no" };
          },
        }),
      }),
    );
    expect(seen).toEqual([]);
    expect(toolResults(messages).map((r) => r.isError)).toEqual([false, false]);
    expect(existsSync(join(bed.cwd, "made-by-bypass.txt"))).toBe(true);
  });
});
