/**
 * The AI SDK provider (`ai` 6 on Node 20, `ai` 7 on Node 22+: see ai-version.ts)
 * over the Cursor backend, driven against the stand-in
 * `cursor-agent` (no real one can be installed here: verified against documented shapes).
 */
import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { codeAgent } from "../../src/ai-sdk/index.js";
import { UnsupportedOptionsError } from "../../src/index.js";
import { cursorBed } from "../e2e/cursor-support.js";
import { AI_MAJOR, ai } from "./ai-version.js";

const { generateText, tool } = ai;

describe(`ai-sdk provider over cursor (stand-in CLI, ai ${AI_MAJOR})`, () => {
  it("reasoning, text, tool calls under the unified names with their results, the chat id", async () => {
    await using bed = cursorBed();
    const result = await generateText({
      model: codeAgent("cursor/gpt-5", bed.options()),
      prompt: "THINK TOOL_SHELL TOOL_READ_OLD",
    });
    expect(result.reasoningText).toBe("Weighing the options.");
    expect(result.content.filter((p) => p.type === "tool-call").map((p) => p.toolName)).toEqual([
      "Bash",
      "Read",
    ]);
    expect(result.content.filter((p) => p.type === "tool-result").map((p) => p.toolName)).toEqual([
      "Bash",
      "Read",
    ]);
    expect(result.text).toContain("THINK TOOL_SHELL TOOL_READ_OLD");
    expect(result.finishReason).toBe("stop");
    expect(result.providerMetadata?.codeAgent).toMatchObject({
      backend: "cursor",
      sessionId: expect.any(String),
    });
    expect(bed.invocations()[0]?.argv).toContain("gpt-5");
  });

  it("a second turn resumes the chat (--resume) and sends only the new message", async () => {
    await using bed = cursorBed();
    const model = codeAgent("cursor", bed.options());
    const first = await generateText({ model, prompt: "hello there" });
    const messages: ModelMessage[] = [
      { role: "user", content: "hello there" },
      ...first.response.messages,
      { role: "user", content: "again" },
    ];
    const second = await generateText({ model, messages });
    expect(second.text).toBe('Turn 2 (1 prior turns): you said "again"');
    expect(bed.invocations()[1]?.argv).toContain(String(first.providerMetadata?.codeAgent?.sessionId));
  });

  it("sdkTools are refused before any process starts", async () => {
    await using bed = cursorBed();
    const t = tool({ inputSchema: z.object({}), execute: async () => "x" });
    await expect(
      generateText({ model: codeAgent("cursor", { ...bed.options(), sdkTools: { t } }), prompt: "hi" }),
    ).rejects.toBeInstanceOf(UnsupportedOptionsError);
    expect(bed.invocations()).toHaveLength(0);
  });
});
