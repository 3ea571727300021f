/**
 * The AI SDK provider (`ai` 6 on Node 20, `ai` 7 on Node 22+: see ai-version.ts)
 * against the real Claude Code CLI, offline, with a scripted model.
 */
import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentTurnError, codeAgent, createCodeAgent } from "../../src/ai-sdk/index.js";
import { WarmPool } from "../../src/index.js";
import { liveGroupCount } from "../../src/process/group-registry.js";
import { structuredOutputTurns } from "../../src/testing/index.js";
import { CLAUDE_CLI_VERSION, testBed } from "../e2e/support.js";
import { AI_MAJOR, ai } from "./ai-version.js";

const { generateObject, generateText, streamText, tool } = ai;

describe(`ai-sdk provider over claude ${CLAUDE_CLI_VERSION} (ai ${AI_MAJOR})`, () => {
  it("generateText: text, usage, finish reason, session id and cost in providerMetadata", async () => {
    await using bed = await testBed([{ thinking: "let me think", text: "Hello from the scripted model" }]);
    const result = await generateText({ model: codeAgent("claude", bed.options()), prompt: "say hello" });
    expect(result.text).toBe("Hello from the scripted model");
    expect(result.reasoningText).toBe("let me think");
    expect(result.finishReason).toBe("stop");
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    const meta = result.providerMetadata?.codeAgent as Record<string, unknown>;
    expect(meta.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(meta.backend).toBe("claude");
    expect(typeof meta.costUsd).toBe("number");
    expect((meta.result as { type?: unknown }).type).toBe("result");
    expect(bed.model.turnRequests[0]?.lastUserText).toContain("say hello");
    expect(result.response.id).toBe(meta.sessionId);
  });

  it("streamText: text deltas, a provider-executed Bash call and its result under the unified name", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "echo hi-from-bash", description: "say hi" } } },
      { text: "The command printed hi." },
    ]);
    const result = streamText({
      model: codeAgent("claude", bed.options({ allowedTools: ["Bash"] })),
      prompt: "run echo",
    });
    const types: string[] = [];
    for await (const part of result.fullStream) types.push(part.type);
    const content = await result.content;
    const call = content.find((p) => p.type === "tool-call");
    const res = content.find((p) => p.type === "tool-result");
    expect(call).toMatchObject({
      toolName: "Bash",
      providerExecuted: true,
      dynamic: true,
      input: { command: "echo hi-from-bash" },
    });
    expect(res).toMatchObject({ toolName: "Bash", toolCallId: call?.toolCallId });
    expect(JSON.stringify(res && "output" in res ? res.output : undefined)).toContain("hi-from-bash");
    expect(await result.text).toBe("The command printed hi.");
    expect(types).toContain("text-delta");
    expect(types).toContain("tool-input-start");
    expect(types.indexOf("tool-call")).toBeLessThan(types.indexOf("tool-result"));
    expect(types.indexOf("tool-result")).toBeLessThan(types.lastIndexOf("text-delta"));
    expect(await result.finishReason).toBe("stop");
  });

  it("resumes the CLI session named in the last assistant message's metadata (no replay as text)", async () => {
    await using bed = await testBed([{ text: "first answer" }, { text: "second answer" }]);
    const model = codeAgent("claude", bed.options());
    const first = await generateText({ model, prompt: "turn one" });
    const messages: ModelMessage[] = [{ role: "user", content: "turn one" }, ...first.response.messages];
    messages.push({ role: "user", content: "turn two" });
    const second = await generateText({ model, messages });
    expect(second.text).toBe("second answer");
    expect(second.providerMetadata?.codeAgent?.sessionId).toBe(first.providerMetadata?.codeAgent?.sessionId);
    // The CLI sent the whole conversation itself (resumed), and our prompt was only the new turn.
    const body = bed.model.turnRequests[1]?.body as { messages: unknown[] };
    expect(JSON.stringify(body.messages)).toContain("first answer");
    expect(bed.model.turnRequests[1]?.lastUserText).toBe("turn two");
    expect(second.warnings ?? []).toEqual([]);
  });

  it("replays the history as text when no session can be resumed", async () => {
    await using bed = await testBed([{ text: "answer" }]);
    const model = createCodeAgent({ resumeFromHistory: false })("claude", bed.options());
    const result = await generateText({
      model,
      messages: [
        { role: "user", content: "my name is Ada" },
        { role: "assistant", content: "Hello Ada" },
        { role: "user", content: "what is my name?" },
      ],
    });
    expect(result.text).toBe("answer");
    const sent = bed.model.turnRequests[0]?.lastUserText ?? "";
    expect(sent).toContain("User: my name is Ada");
    expect(sent).toContain("Assistant: Hello Ada");
    expect(sent).toContain("what is my name?");
    expect(result.warnings?.map((w) => w.type)).toContain("compatibility");
  });

  it("generateObject through Claude Code's native structured output", async () => {
    await using bed = await testBed(structuredOutputTurns({ answer: 4, unit: "apples" }));
    const { object } = await generateObject({
      model: codeAgent("claude", bed.options()),
      schema: z.object({ answer: z.number(), unit: z.string() }),
      prompt: "2 + 2 apples?",
    });
    expect(object).toEqual({ answer: 4, unit: "apples" });
  });

  it("runs the caller's AI SDK tool in this process through the in-process MCP server", async () => {
    await using bed = await testBed([
      { toolUse: { name: "mcp__aisdk__weather", input: { city: "Oslo" } } },
      { text: "It is sunny in Oslo." },
    ]);
    const seen: string[] = [];
    const weather = tool({
      description: "The weather in a city",
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        seen.push(city);
        return { city, sky: "sunny" };
      },
    });
    const result = await generateText({
      model: codeAgent("claude", { ...bed.options(), sdkTools: { weather } }),
      prompt: "weather in Oslo?",
    });
    expect(seen).toEqual(["Oslo"]);
    expect(result.text).toBe("It is sunny in Oslo.");
    const res = result.content.find((p) => p.type === "tool-result");
    expect(res).toMatchObject({ toolName: "weather", providerExecuted: true });
    expect(JSON.stringify(res && "output" in res ? res.output : "")).toContain("sunny");
  });

  it("asks canUseTool from the settings before a tool runs, and a denial reaches the model", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "rm -rf /tmp/nothing-here" } } },
      { text: "I was not allowed." },
    ]);
    const asked: string[] = [];
    const result = await generateText({
      model: codeAgent(
        "claude",
        bed.options({
          canUseTool: async (name, input) => {
            asked.push(`${name}:${String(input.command)}`);
            return { behavior: "deny", message: "not today" };
          },
        }),
      ),
      prompt: "clean up",
    });
    expect(asked).toEqual(["Bash:rm -rf /tmp/nothing-here"]);
    expect(result.text).toBe("I was not allowed.");
    const res = result.content.find((p) => p.type === "tool-result" || p.type === "tool-error");
    expect(JSON.stringify(res)).toContain("not today");
  });

  it("a failed turn rejects generateText with AgentTurnError", async () => {
    await using bed = await testBed([{ error: { status: 400, message: "scripted bad request" } }]);
    await expect(
      generateText({ model: codeAgent("claude", bed.options()), prompt: "hi" }),
    ).rejects.toBeInstanceOf(AgentTurnError);
  });

  it("abort mid-answer ends the CLI's process group", async () => {
    await using bed = await testBed([{ stall: true, text: "partial " }]);
    const controller = new AbortController();
    const result = streamText({
      model: codeAgent("claude", bed.options()),
      prompt: "talk slowly",
      abortSignal: controller.signal,
    });
    const seen: string[] = [];
    for await (const part of result.fullStream) {
      seen.push(part.type);
      if (part.type === "text-delta") {
        expect(liveGroupCount()).toBe(1);
        controller.abort();
      }
    }
    expect(seen).toContain("abort");
    await expect.poll(() => liveGroupCount(), { timeout: 15_000 }).toBe(0);
  });

  it("streamText from a warm pool: the call takes the warm process; a resumed turn starts its own", async () => {
    await using bed = await testBed([{ text: "warm answer" }, { text: "cold answer" }]);
    await using pool = new WarmPool({ options: bed.options({ includePartialMessages: true }), size: 1 });
    await pool.ready();
    const [warmPid] = pool.readyPids();
    expect(warmPid).toBeGreaterThan(0);
    const model = codeAgent("claude", { ...bed.options(), warmPool: pool });
    const first = streamText({ model, prompt: "hello warm" });
    const types: string[] = [];
    for await (const part of first.fullStream) types.push(part.type);
    expect(await first.text).toBe("warm answer");
    expect(types).toContain("text-delta");
    expect(pool.stats.warmHits).toBe(1);
    const second = await generateText({
      model,
      messages: [
        { role: "user", content: "hello warm" },
        ...(await first.response).messages,
        { role: "user", content: "and again" },
      ],
    });
    expect(second.text).toBe("cold answer");
    expect(bed.model.turnRequests[1]?.lastUserText).toBe("and again");
    expect(pool.stats.warmHits).toBe(1);
  });

  it("images in the prompt: bytes as base64 and an https URL as a URL source, nothing downloaded", async () => {
    await using bed = await testBed([{ text: "two images" }]);
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
      "base64",
    );
    const result = await generateText({
      model: codeAgent("claude", bed.options()),
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "compare" },
            { type: "image", image: new Uint8Array(png), mediaType: "image/png" },
            { type: "image", image: new URL("https://images.example.invalid/cat.png") },
          ],
        },
      ],
    });
    expect(result.text).toBe("two images");
    const sent = JSON.stringify(bed.model.turnRequests[0]?.body);
    expect(sent).toContain(png.toString("base64"));
    expect(sent).toContain('"url":"https://images.example.invalid/cat.png"');
  });

  it("refuses tools whose execute it never receives, clearly", async () => {
    await using bed = await testBed([]);
    const t = tool({ inputSchema: z.object({}), execute: async () => "x" });
    await expect(
      generateText({ model: codeAgent("claude", bed.options()), tools: { t }, prompt: "hi" }),
    ).rejects.toThrow(/sdkTools/);
    expect(bed.model.turnRequests).toHaveLength(0);
  });
});
