/**
 * Real clients: the community Vercel AI SDK provider for Claude (`ai-sdk-provider-claude-code`
 * 4.1.0 on `ai` 7), unchanged, runs its documented scenarios — generateText, streamText, a
 * provider-executed tool call, a missing CLI — once with `@anthropic-ai/claude-agent-sdk` resolved
 * to the official 0.3.330 package and once to our compat entry point (a module resolve hook in a
 * child process, support/provider-client.ts), against the real claude CLI and one scripted model.
 * What the provider hands its caller must be identical.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedTurn, startFakeAnthropic } from "../../src/testing/index.js";

const require = createRequire(import.meta.url);
const realClaude = join(
  dirname(require.resolve("@anthropic-ai/claude-code/package.json")),
  "..",
  "claude-code-linux-x64",
  "claude",
);
const tsxCli = join(dirname(require.resolve("tsx/package.json")), "dist", "cli.mjs");
const client = join(import.meta.dirname, "support", "provider-client.ts");

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "cas-real-clients-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs one scenario of the provider with each SDK; returns what each printed (paths normalised). */
async function sideBySide(
  scenario: string,
  turns: ScriptedTurn[],
  cli: string = realClaude,
): Promise<Record<"official" | "compat", Record<string, unknown>>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const mode of ["official", "compat"] as const) {
    const api = await startFakeAnthropic({ turns });
    const cwd = mkdtempSync(join(scratch, "sdk-"));
    try {
      const stdout = await new Promise<string>((resolve, reject) => {
        execFile(
          process.execPath,
          [tsxCli, client, mode, scenario, JSON.stringify({ cli, env: api.env(), cwd })],
          { encoding: "utf8", timeout: 120_000, maxBuffer: 16 << 20 },
          (error, stdout, stderr) =>
            error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
        );
      });
      const last = stdout.trim().split("\n").at(-1) ?? "{}";
      out[mode] = JSON.parse(last.replaceAll(cwd, "<cwd>").replaceAll(scratch, "<scratch>")) as Record<
        string,
        unknown
      >;
    } finally {
      await api.close();
    }
  }
  expect(out.official?.loaded).toBe("official");
  expect(out.compat?.loaded).toBe("compat");
  return out as Record<"official" | "compat", Record<string, unknown>>;
}

describe("ai-sdk-provider-claude-code 4.1.0 on the official SDK and on compat/claude-agent-sdk", () => {
  it("generateText: the same text, finish reason and usage", async () => {
    const { official, compat } = await sideBySide("generateText", [{ text: "Hello from the model" }]);
    expect(official.ok).toMatchObject({ text: "Hello from the model", finishReason: "stop" });
    expect(compat.ok).toEqual(official.ok);
  });

  it("streamText: the same text deltas and finish reason", async () => {
    const { official, compat } = await sideBySide("streamText", [{ text: "A streamed greeting" }]);
    expect(official.ok).toMatchObject({ text: "A streamed greeting", finishReason: "stop" });
    expect(compat.ok).toEqual(official.ok);
  });

  it("a provider-executed tool call (Bash): the same tool-call and tool-result parts and text", async () => {
    const { official, compat } = await sideBySide("toolCall", [
      { toolUse: { name: "Bash", input: { command: "echo tool-ran", description: "echo" } } },
      { text: "done" },
    ]);
    expect(JSON.stringify(official.ok)).toContain('"output":"tool-ran"');
    expect(compat.ok).toEqual(official.ok);
  });

  it("a missing CLI: the provider reports the same error", async () => {
    const { official, compat } = await sideBySide(
      "error",
      [{ text: "unused" }],
      join(scratch, "no-such", "claude"),
    );
    expect(official.ok).toMatchObject({ name: expect.any(String) });
    expect(compat.ok).toEqual(official.ok);
  });
});
