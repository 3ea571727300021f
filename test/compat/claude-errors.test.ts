/**
 * Errors callers of the official Claude Agent SDK branch on, side by side with
 * `@anthropic-ai/claude-agent-sdk` 0.3.330: a missing executable (`code: "ENOENT"`, the official
 * message) and a CLI that exits non-zero (the official message with its stderr). Ours stay typed
 * (`CliNotFoundError`, `ProcessError`); an abort is this SDK's `AbortError` with Node's shape.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as official from "@anthropic-ai/claude-agent-sdk";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as compat from "../../src/compat/claude-agent-sdk/index.js";
import { AbortError, CliNotFoundError, ProcessError } from "../../src/errors.js";
import { liveGroupCount } from "../../src/process/group-registry.js";

let dir: string;
let failing: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "compat-errors-"));
  // A CLI that refuses its arguments, as claude does for an unknown flag.
  failing = join(dir, "claude");
  writeFileSync(failing, "#!/bin/sh\necho 'error: unknown option --bogus' >&2\nexit 1\n");
  chmodSync(failing, 0o755);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Sdk = { query: typeof compat.query };

async function failure(sdk: Sdk, options: compat.Options): Promise<Error & { code?: unknown }> {
  try {
    for await (const _ of sdk.query({
      prompt: "hi",
      options: { env: { PATH: process.env.PATH ?? "" }, ...options },
    })) {
      // drain
    }
  } catch (error) {
    return error as Error & { code?: unknown };
  }
  throw new Error("no error");
}

describe("compat/claude-agent-sdk errors as the official ones", () => {
  it("a missing executable: code ENOENT and the official message; ours a CliNotFoundError", async () => {
    const options = { pathToClaudeCodeExecutable: join(dir, "missing", "claude") };
    const theirs = await failure(official as unknown as Sdk, options);
    const mine = await failure(compat, options);
    expect(theirs.code).toBe("ENOENT");
    expect(mine.code).toBe(theirs.code);
    expect(mine.message).toBe(theirs.message);
    expect(mine).toBeInstanceOf(CliNotFoundError);
  });

  it("a CLI exiting with code 1: the official message with its stderr; ours a ProcessError with exitCode", async () => {
    const options = { pathToClaudeCodeExecutable: failing };
    const theirs = await failure(official as unknown as Sdk, options);
    const mine = await failure(compat, options);
    expect(theirs.message).toBe(
      "Claude Code process exited with code 1. stderr: error: unknown option --bogus",
    );
    expect(mine.message).toBe(theirs.message);
    expect(mine).toBeInstanceOf(ProcessError);
    expect((mine as ProcessError).exitCode).toBe(1);
    expect((mine as ProcessError).stderrTail).toContain("unknown option --bogus");
    expect(liveGroupCount()).toBe(0);
  });

  it("an aborted query: AbortError with Node's shape (code ABORT_ERR, the signal's reason as cause)", async () => {
    const controller = new AbortController();
    controller.abort();
    const mine = await failure(compat, { pathToClaudeCodeExecutable: failing, abortController: controller });
    expect(mine).toBeInstanceOf(AbortError);
    expect(mine.name).toBe("AbortError");
    expect(mine.code).toBe("ABORT_ERR");
    expect(mine.cause).toBe(controller.signal.reason);
  });

  it("canUseTool shadowed by bare allowedTools or bypassPermissions: the official CLAUDE_SDK_CAN_USE_TOOL_SHADOWED warning, word for word", async () => {
    const canUseTool: compat.CanUseTool = async () => ({ behavior: "allow", updatedInput: {} });
    const cases: compat.Options[] = [
      { canUseTool, allowedTools: ["Bash", "Read(./src/**)", "", "mcp__files"] },
      { canUseTool, permissionMode: "bypassPermissions" },
      { canUseTool, allowedTools: ["Read(./src/**)"] },
      { allowedTools: ["Bash"] },
    ];
    const warned = async (sdk: Sdk, options: compat.Options): Promise<string[]> => {
      const seen: string[] = [];
      const spy = vi.spyOn(process, "emitWarning").mockImplementation((warning, rest) => {
        const code = typeof rest === "object" && rest !== null ? rest.code : undefined;
        if (code === "CLAUDE_SDK_CAN_USE_TOOL_SHADOWED") seen.push(String(warning));
      });
      try {
        await failure(sdk, { pathToClaudeCodeExecutable: failing, ...options });
      } finally {
        spy.mockRestore();
      }
      return seen;
    };
    for (const options of cases) {
      const theirs = await warned(official as unknown as Sdk, options);
      expect(await warned(compat, options)).toEqual(theirs);
    }
    // The cases above do cover both warnings and silence.
    expect(await warned(compat, cases[0] as compat.Options)).toEqual([
      expect.stringMatching(/^canUseTool will not be invoked for: Bash, mcp__files\. /),
    ]);
    expect(await warned(compat, cases[1] as compat.Options)).toHaveLength(1);
    expect(await warned(compat, cases[2] as compat.Options)).toEqual([]);
  });
});
