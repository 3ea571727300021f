/**
 * Differential: the same scripted scenarios through ai-sdk-provider-codex-cli 2.2.1 (`codex exec`)
 * and through this SDK's provider (`codeAgent("codex")`), both on the same real Codex CLI
 * (0.169.0) and fake Responses API, under `ai` 7 (both need Node 22): what the AI SDK caller sees
 * is compared. Every difference is either asserted equal or named here (and in the README).
 */
import type { ModelMessage } from "ai-v7";
import { beforeAll, describe, expect, it } from "vitest";
import { codeAgent } from "../../src/ai-sdk/index.js";
import { findCodexCli } from "../../src/backends/codex/discovery.js";
import type { ResponsesTurn } from "../../src/testing/index.js";
import { codexBed, runningCliProcesses } from "../e2e/codex-support.js";
import { observe, type Seen } from "./differential-support.js";

type Ai7 = typeof import("ai-v7");
type Theirs = typeof import("ai-sdk-provider-codex-cli");
const major = Number(process.versions.node.split(".")[0]);

describe.skipIf(major < 22)(
  "differential: ai-sdk-provider-codex-cli 2.2.1 vs code-agent-sdk/ai-sdk (codex, ai 7)",
  () => {
    let ai: Ai7;
    let theirs: Theirs;
    beforeAll(async () => {
      ai = await import("ai-v7");
      theirs = await import("ai-sdk-provider-codex-cli");
    });

    /** Runs one scenario through both providers, each against a fresh scripted model. */
    async function both(
      turns: ResponsesTurn[],
      run: (
        model: Parameters<typeof observe>[1],
        ai: Ai7,
        bed: Awaited<ReturnType<typeof codexBed>>,
      ) => Promise<Seen>,
    ): Promise<{ ours: Seen; their: Seen; oursLast: string; theirLast: string }> {
      let ours: Seen;
      let their: Seen;
      let oursLast = "";
      let theirLast = "";
      {
        await using bed = await codexBed(turns);
        ours = await run(codeAgent("codex/gpt-5.5", bed.options()), ai, bed);
        oursLast = bed.api.turnRequests.at(-1)?.lastUserText ?? "";
      }
      {
        await using bed = await codexBed(turns);
        const cli = findCodexCli();
        const model = theirs.createCodexExec({
          defaultSettings: {
            codexPath: cli.command,
            cwd: bed.cwd,
            env: { ...(process.env as Record<string, string>), ...bed.home.env },
            skipGitRepoCheck: true,
          },
        })("gpt-5.5");
        their = await run(model, ai, bed);
        theirLast = bed.api.turnRequests.at(-1)?.lastUserText ?? "";
      }
      return { ours, their, oursLast, theirLast };
    }

    it("text", async () => {
      const { ours, their } = await both(
        [{ reasoning: "pondering", text: "Hello from the fake model" }],
        (m, a) => observe(a, m, { prompt: "say hi" }),
      );
      expect(ours.text).toBe(their.text);
      expect(ours.finishReason).toBe(their.finishReason);
      expect(ours.usage.output).toBe(their.usage.output);
      // Deliberate: the input counts are the fake model's estimate of two different requests (each
      // provider starts codex exec with its own flags and config).
      expect(Math.abs((ours.usage.input ?? 0) - (their.usage.input ?? 0))).toBeLessThan(500);
      // Deliberate: ours shows the reasoning codex reports; theirs drops it.
      expect(ours.types.filter((t) => !t.startsWith("reasoning-"))).toEqual(their.types);
      expect(ours.types).toContain("reasoning-delta");
    });

    it("a Bash call", async () => {
      const { ours, their } = await both(
        [{ execCommand: { cmd: "echo hello-from-codex" } }, { text: "ran it" }],
        (m, a) => observe(a, m, { prompt: "run echo" }),
      );
      expect(ours.text).toBe(their.text);
      expect(ours.types).toEqual(their.types);
      // Deliberate: ours names the call with the unified vocabulary (Bash, the command as the agent
      // meant it, the argv codex ran) and its result as { output, exitCode }; theirs passes codex's
      // item through (exec, the shell-wrapped command line, aggregatedOutput, status).
      expect(ours.toolCalls).toEqual([
        {
          name: "Bash",
          providerExecuted: true,
          input: { command: "echo hello-from-codex", argv: ["/bin/bash", "-lc", "echo hello-from-codex"] },
        },
      ]);
      expect(their.toolCalls).toEqual([
        {
          name: "exec",
          providerExecuted: true,
          input: { command: "/bin/bash -lc 'echo hello-from-codex'", status: "in_progress" },
        },
      ]);
      expect(JSON.parse(ours.toolResults[0] ?? "")).toEqual({ output: "hello-from-codex\n", exitCode: 0 });
      expect(JSON.parse(their.toolResults[0] ?? "")).toMatchObject({
        aggregatedOutput: "hello-from-codex\n",
        exitCode: 0,
      });
    });

    it("structured output", async () => {
      const { ours, their } = await both([{ text: '{"answer":42}' }], (m, a) =>
        observe(a, m, { prompt: "the answer?" }, { object: true }),
      );
      expect(ours.object).toEqual({ answer: 42 });
      expect(ours.object).toEqual(their.object);
      expect(ours.types).toEqual(their.types);
    });

    it("abort", async () => {
      const { ours, their } = await both([{ stall: true, text: "thinking forever" }], (m, a, bed) =>
        observe(
          a,
          m,
          { prompt: "stall please" },
          {
            abortWhen: {
              controller: new AbortController(),
              when: bed.api.waitForRequest((r) => r.lastUserText.includes("stall please")),
            },
          },
        ),
      );
      expect(ours.types).toEqual(["start", "start-step", "abort"]);
      expect(ours.types).toEqual(their.types);
      await expect.poll(() => runningCliProcesses(), { timeout: 15_000 }).toBe(0);
    });

    it("two turns", async () => {
      const { ours, their, oursLast, theirLast } = await both(
        [{ text: "first answer" }, { text: "second answer" }],
        async (m, a) => {
          const first = await observe(a, m, { prompt: "turn one" });
          const messages: ModelMessage[] = [
            { role: "user", content: "turn one" },
            ...first.responseMessages,
            { role: "user", content: "turn two" },
          ];
          return observe(a, m, { messages });
        },
      );
      expect(ours.text).toBe("second answer");
      expect(ours.text).toBe(their.text);
      expect(ours.types).toEqual(their.types);
      // Deliberate: ours resumes the codex thread named in the first answer's providerMetadata and
      // sends only the new message; theirs starts a new thread with the history replayed as text.
      expect(oursLast).toBe("turn two");
      expect(theirLast).toBe("User: turn one\n\nAssistant: first answer\n\nUser: turn two");
    });
  },
);
