/**
 * Differential: the same scripted scenarios through ai-sdk-provider-claude-code 4.1.0 and through
 * this SDK's provider (`codeAgent("claude")`), both on the same real Claude Code CLI (2.1.330) and
 * fake model, under `ai` 7 (both need Node 22): what the AI SDK caller sees is compared. Every
 * difference is either asserted equal or named here (and in the README) as deliberate.
 */
import type { ModelMessage } from "ai-v7";
import { beforeAll, describe, expect, it } from "vitest";
import { codeAgent } from "../../src/ai-sdk/index.js";
import { findClaudeCli } from "../../src/backends/claude/discovery.js";
import { type ScriptedTurn, structuredOutputTurns } from "../../src/testing/index.js";
import { testBed } from "../e2e/support.js";
import { observe, type Seen } from "./differential-support.js";

type Ai7 = typeof import("ai-v7");
type Theirs = typeof import("ai-sdk-provider-claude-code");
const major = Number(process.versions.node.split(".")[0]);

describe.skipIf(major < 22)(
  "differential: ai-sdk-provider-claude-code 4.1.0 vs code-agent-sdk/ai-sdk (claude, ai 7)",
  () => {
    let ai: Ai7;
    let theirs: Theirs;
    beforeAll(async () => {
      ai = await import("ai-v7");
      theirs = await import("ai-sdk-provider-claude-code");
    });

    /** Runs one scenario through both providers, each against a fresh scripted model. */
    async function both(
      turns: ScriptedTurn[],
      run: (model: Parameters<typeof observe>[1], ai: Ai7) => Promise<Seen>,
      extra: { allowedTools?: string[] } = {},
    ): Promise<{ ours: Seen; their: Seen; oursLast: string; theirLast: string }> {
      let oursLast = "";
      let theirLast = "";
      let ours: Seen;
      let their: Seen;
      {
        await using bed = await testBed(turns);
        ours = await run(codeAgent("claude", bed.options(extra)), ai);
        oursLast = bed.model.turnRequests.at(-1)?.lastUserText ?? "";
      }
      {
        await using bed = await testBed(turns);
        const model = theirs.createClaudeCode()("sonnet", {
          pathToClaudeCodeExecutable: findClaudeCli(),
          cwd: bed.cwd,
          env: { ...process.env, ...bed.model.env() },
          ...(extra.allowedTools ? { allowedTools: extra.allowedTools } : {}),
        });
        their = await run(model, ai);
        theirLast = bed.model.turnRequests.at(-1)?.lastUserText ?? "";
      }
      return { ours, their, oursLast, theirLast };
    }

    it("text", async () => {
      const { ours, their } = await both([{ text: "Hello from the scripted model" }], (m, a) =>
        observe(a, m, { prompt: "say hello" }),
      );
      expect(ours.text).toBe(their.text);
      expect(ours.finishReason).toBe(their.finishReason);
      expect(ours.types).toEqual(their.types);
      expect(ours.usage.output).toBe(their.usage.output);
      // Deliberate: the input counts are the fake model's estimate of each request, and the official
      // SDK under their provider builds a slightly different one (its own options); both count every
      // input token the CLI reported.
      expect(ours.usage.input).toBeGreaterThan(0);
      expect(Math.abs((ours.usage.input ?? 0) - (their.usage.input ?? 0))).toBeLessThan(200);
    });

    it("a Bash call", async () => {
      const { ours, their } = await both(
        [{ toolUse: { name: "Bash", input: { command: "echo hi-from-bash" } } }, { text: "ran it" }],
        (m, a) => observe(a, m, { prompt: "run echo" }),
        { allowedTools: ["Bash"] },
      );
      expect(ours.text).toBe(their.text);
      expect(ours.toolCalls).toEqual(their.toolCalls);
      expect(ours.toolCalls).toEqual([
        { name: "Bash", providerExecuted: true, input: { command: "echo hi-from-bash" } },
      ]);
      expect(ours.toolResults.join()).toContain("hi-from-bash");
      expect(their.toolResults.join()).toContain("hi-from-bash");
      expect(ours.finishReason).toBe(their.finishReason);
      expect(ours.types).toEqual(their.types);
    });

    it("structured output", async () => {
      const { ours, their } = await both(structuredOutputTurns({ answer: 4 }), (m, a) =>
        observe(a, m, { prompt: "2+2?" }, { object: true }),
      );
      expect(ours.object).toEqual({ answer: 4 });
      expect(ours.object).toEqual(their.object);
      // Deliberate: Claude Code's StructuredOutput tool is how the CLI delivers the object, not an
      // action of the agent; ours hides its call and result (Codex has none either), theirs shows them.
      const structuredToolParts = ["tool-input-start", "tool-input-end", "tool-call", "tool-result"];
      expect(ours.types).toEqual(their.types.filter((t) => !structuredToolParts.includes(t)));
      // (theirs names it "unknown-tool")
      expect(their.toolCalls.map((c) => c.name)).toEqual(["unknown-tool"]);
      expect(ours.toolCalls).toEqual([]);
    });

    it("abort", async () => {
      const { ours, their } = await both([{ stall: true, text: "partial " }], (m, a) =>
        observe(a, m, { prompt: "talk slowly" }, { abortAtFirstText: new AbortController() }),
      );
      expect(ours.types).toEqual(their.types);
      expect(ours.types.at(-1)).toBe("abort");
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
      // Deliberate: ours resumes the CLI session named in the first answer's providerMetadata and
      // sends only the new message; theirs starts a new session with the history replayed as text.
      expect(oursLast).toBe("turn two");
      expect(theirLast).toBe("Human: turn one\n\nAssistant: first answer\n\nHuman: turn two");
    });
  },
);
