/**
 * The AI SDK provider (`ai` 6 on Node 20, `ai` 7 on Node 22+: see ai-version.ts)
 * against the real Codex CLI, offline, with a scripted Responses API.
 */
import type { ModelMessage } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { codeAgent } from "../../src/ai-sdk/index.js";
import { UnsupportedOptionsError } from "../../src/index.js";
import { CODEX_CLI_VERSION, codexBed, runningCliProcesses } from "../e2e/codex-support.js";
import { AI_MAJOR, ai } from "./ai-version.js";

const { generateObject, generateText, streamText, tool } = ai;

const PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

afterEach(() => {
  expect(runningCliProcesses()).toBe(0);
});

describe(`ai-sdk provider over codex ${CODEX_CLI_VERSION} (ai ${AI_MAJOR})`, () => {
  it("generateText: reasoning, text, usage, the thread id in providerMetadata, the model from the id", async () => {
    await using bed = await codexBed([{ reasoning: "pondering", text: "Hello from the fake model" }]);
    const result = await generateText({ model: codeAgent("codex/gpt-5.5", bed.options()), prompt: "say hi" });
    expect(result.text).toBe("Hello from the fake model");
    expect(result.reasoningText).toBe("pondering");
    expect(result.finishReason).toBe("stop");
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.providerMetadata?.codeAgent).toMatchObject({
      backend: "codex",
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(bed.api.turnRequests[0]?.body.model).toBe("gpt-5.5");
    expect(bed.api.turnRequests[0]?.lastUserText).toBe("say hi");
  });

  it("streamText: a command as a provider-executed Bash call with its output, then the answer", async () => {
    await using bed = await codexBed([{ execCommand: { cmd: "echo hello-from-codex" } }, { text: "ran it" }]);
    const result = streamText({ model: codeAgent("codex", bed.options()), prompt: "run echo" });
    const types: string[] = [];
    for await (const part of result.fullStream) types.push(part.type);
    const content = await result.content;
    const call = content.find((p) => p.type === "tool-call");
    expect(call).toMatchObject({
      toolName: "Bash",
      providerExecuted: true,
      input: { command: expect.stringContaining("echo hello-from-codex") },
    });
    const res = content.find((p) => p.type === "tool-result");
    expect(JSON.stringify(res)).toContain("hello-from-codex");
    expect(await result.text).toBe("ran it");
    expect(types.indexOf("tool-result")).toBeLessThan(types.indexOf("text-delta"));
  });

  it("two turns: the second resumes the thread from providerMetadata", async () => {
    await using bed = await codexBed([{ text: "first answer" }, { text: "second answer" }]);
    const model = codeAgent("codex", bed.options());
    const first = await generateText({ model, prompt: "remember the word apricot" });
    const messages: ModelMessage[] = [
      { role: "user", content: "remember the word apricot" },
      ...first.response.messages,
      { role: "user", content: "which word?" },
    ];
    const second = await generateText({ model, messages });
    expect(second.text).toBe("second answer");
    expect(second.providerMetadata?.codeAgent?.sessionId).toBe(first.providerMetadata?.codeAgent?.sessionId);
    expect(bed.api.turnRequests[1]?.lastUserText).toBe("which word?");
    const history = JSON.stringify(bed.api.turnRequests[1]?.body.input);
    expect(history).toContain("first answer");
  });

  it("generateObject through --output-schema", async () => {
    await using bed = await codexBed([{ text: '{"answer":42}' }]);
    const { object } = await generateObject({
      model: codeAgent("codex", bed.options()),
      schema: z.object({ answer: z.number() }),
      prompt: "the answer?",
    });
    expect(object).toEqual({ answer: 42 });
    expect(bed.api.turnRequests[0]?.body.text?.format).toMatchObject({ type: "json_schema" });
  });

  it("an image in the prompt reaches the model", async () => {
    await using bed = await codexBed([{ text: "a pixel" }]);
    const result = await generateText({
      model: codeAgent("codex", bed.options()),
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "what is this?" },
            { type: "image", image: PIXEL, mediaType: "image/png" },
          ],
        },
      ],
    });
    expect(result.text).toBe("a pixel");
    expect(JSON.stringify(bed.api.turnRequests[0]?.body.input)).toContain(`data:image/png;base64,${PIXEL}`);
  });

  it("abort while the model stalls ends the CLI", async () => {
    await using bed = await codexBed([{ stall: true, text: "thinking forever" }]);
    const controller = new AbortController();
    const stalled = bed.api.waitForRequest((r) => r.lastUserText.trimEnd() === "stall please");
    const result = streamText({
      model: codeAgent("codex", bed.options()),
      prompt: "stall please",
      abortSignal: controller.signal,
    });
    const drained = (async () => {
      const types: string[] = [];
      for await (const part of result.fullStream) types.push(part.type);
      return types;
    })();
    await stalled;
    controller.abort();
    expect(await drained).toContain("abort");
    await expect.poll(() => runningCliProcesses(), { timeout: 15_000 }).toBe(0);
  });

  it("options the backend refuses: an error part and finish reason error in streamText, a rejection in generateText", async () => {
    await using bed = await codexBed([]);
    // @ts-expect-error: not an option of this backend (refused at compile time, and at run time for JavaScript)
    const model = codeAgent("codex", bed.options({ allowedTools: ["Bash"] }));
    const result = streamText({ model, prompt: "hi" });
    const parts: { type: string; error?: unknown }[] = [];
    for await (const part of result.fullStream) parts.push(part);
    const error = parts.find((p) => p.type === "error")?.error;
    expect(error).toBeInstanceOf(UnsupportedOptionsError);
    expect(await result.finishReason).toBe("error");
    await expect(generateText({ model, prompt: "hi" })).rejects.toBeInstanceOf(UnsupportedOptionsError);
    expect(bed.api.turnRequests).toHaveLength(0);
  });

  it("sdkTools are refused: codex cannot route an in-process MCP server", async () => {
    await using bed = await codexBed([]);
    const t = tool({ inputSchema: z.object({}), execute: async () => "x" });
    const error = await generateText({
      model: codeAgent("codex", { ...bed.options(), sdkTools: { t } }),
      prompt: "hi",
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedOptionsError);
    expect(String(error)).toContain("only the claude backend");
  });
});
