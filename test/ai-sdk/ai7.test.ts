/**
 * The same provider under `ai` 7 (installed as the `ai-v7` alias), which needs Node 22 or later:
 * this file runs in the suite's Node 22 and 24 runs (.ci/run) and is skipped on Node 20. `ai` 7
 * takes the provider's specification v3 models as they are.
 */
import { beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { type CodeAgentLanguageModel, codeAgent } from "../../src/ai-sdk/index.js";
import { liveGroupCount } from "../../src/process/group-registry.js";
import { structuredOutputTurns } from "../../src/testing/index.js";
import { codexBed } from "../e2e/codex-support.js";
import { testBed } from "../e2e/support.js";

type Ai7 = typeof import("ai-v7");
const major = Number(process.versions.node.split(".")[0]);

it("the provider's models are ai 7 LanguageModels (type level, on every Node)", () => {
  expectTypeOf<CodeAgentLanguageModel>().toMatchTypeOf<import("ai-v7").LanguageModel>();
  expectTypeOf<CodeAgentLanguageModel>().toMatchTypeOf<import("ai").LanguageModel>();
});

describe.skipIf(major < 22)(`ai-sdk provider under ai 7 on Node ${process.versions.node}`, () => {
  let ai: Ai7;
  beforeAll(async () => {
    ai = await import("ai-v7");
  });

  it("claude: generateText with reasoning, usage and the session in providerMetadata", async () => {
    await using bed = await testBed([{ thinking: "let me think", text: "Hello from the scripted model" }]);
    const result = await ai.generateText({ model: codeAgent("claude", bed.options()), prompt: "say hello" });
    expect(result.text).toBe("Hello from the scripted model");
    expect(result.reasoningText).toBe("let me think");
    expect(result.finishReason).toBe("stop");
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.providerMetadata?.codeAgent).toMatchObject({
      backend: "claude",
      sessionId: expect.any(String),
    });
  });

  it("claude: streamText with a provider-executed Bash call, then two turns resuming the session", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "echo hi-from-bash" } } },
      { text: "ran it" },
      { text: "second answer" },
    ]);
    const model = codeAgent("claude", bed.options({ allowedTools: ["Bash"] }));
    const stream = ai.streamText({ model, prompt: "run echo" });
    const types: string[] = [];
    for await (const part of stream.fullStream) types.push(part.type);
    const content = await stream.content;
    expect(content.find((p) => p.type === "tool-call")).toMatchObject({
      toolName: "Bash",
      providerExecuted: true,
    });
    expect(JSON.stringify(content.find((p) => p.type === "tool-result"))).toContain("hi-from-bash");
    expect(await stream.text).toBe("ran it");
    expect(types).toContain("text-delta");
    const response = await stream.response;
    const second = await ai.generateText({
      model,
      messages: [
        { role: "user", content: "run echo" },
        ...response.messages,
        { role: "user", content: "and now?" },
      ],
    });
    expect(second.text).toBe("second answer");
    expect(bed.model.turnRequests.at(-1)?.lastUserText).toBe("and now?");
  });

  it("claude: Output.object through native structured output", async () => {
    await using bed = await testBed(structuredOutputTurns({ answer: 4 }));
    const result = await ai.generateText({
      model: codeAgent("claude", bed.options()),
      output: ai.Output.object({ schema: z.object({ answer: z.number() }) }),
      prompt: "2+2?",
    });
    expect(result.output).toEqual({ answer: 4 });
  });

  it("claude: abort mid-answer ends the CLI", async () => {
    await using bed = await testBed([{ stall: true, text: "partial " }]);
    const controller = new AbortController();
    const result = ai.streamText({
      model: codeAgent("claude", bed.options()),
      prompt: "talk slowly",
      abortSignal: controller.signal,
    });
    const seen: string[] = [];
    for await (const part of result.fullStream) {
      seen.push(part.type);
      if (part.type === "text-delta") controller.abort();
    }
    expect(seen).toContain("abort");
    await expect.poll(() => liveGroupCount(), { timeout: 15_000 }).toBe(0);
  });

  it("codex: generateText and Output.object through --output-schema", async () => {
    await using bed = await codexBed([{ reasoning: "pondering", text: "Hello" }, { text: '{"answer":42}' }]);
    const model = codeAgent("codex", bed.options());
    const first = await ai.generateText({ model, prompt: "say hi" });
    expect(first.text).toBe("Hello");
    expect(first.reasoningText).toBe("pondering");
    const second = await ai.generateText({
      model,
      output: ai.Output.object({ schema: z.object({ answer: z.number() }) }),
      prompt: "the answer?",
    });
    expect(second.output).toEqual({ answer: 42 });
  });
});
