/**
 * query() against the real Claude Code CLI (2.1.330), offline, with a scripted model.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AssistantMessage,
  createSdkMcpServer,
  image,
  type Message,
  query,
  type StreamedUserInput,
  text,
  tool,
} from "../../src/index.js";
import { assistantText, CLAUDE_CLI_VERSION, collect, results, testBed } from "./support.js";

// 1×1 transparent PNG.
const PNG_1PX =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

describe(`query() against claude ${CLAUDE_CLI_VERSION}`, () => {
  it("streams a one-shot text turn and ends with a successful result", async () => {
    await using bed = await testBed([{ text: "Hello from the scripted model" }]);
    const messages = await collect(query({ prompt: "say hello", options: bed.options() }));

    const init = messages.find((m) => m.type === "system" && m.subtype === "init");
    expect(init?.sessionId).toMatch(/[0-9a-f-]{36}/);
    expect(assistantText(messages)).toBe("Hello from the scripted model");
    const [result] = results(messages);
    expect(result).toMatchObject({
      isError: false,
      subtype: "success",
      result: "Hello from the scripted model",
    });
    expect(result?.raw.type).toBe("result");
    expect(bed.model.turnRequests[0]?.lastUserText).toContain("say hello");
  });

  it("keeps one process across streamed input turns and delivers every result", async () => {
    await using bed = await testBed([{ text: "first answer" }, { text: "second answer" }]);
    let releaseSecond!: () => void;
    const secondMayGo = new Promise<void>((resolve) => {
      releaseSecond = resolve;
    });
    async function* prompts(): AsyncGenerator<StreamedUserInput> {
      yield "turn one";
      await secondMayGo;
      yield "turn two";
    }
    const q = query({ prompt: prompts(), options: bed.options() });
    const seen: Message[] = [];
    const pids = new Set<unknown>();
    for await (const m of q) {
      seen.push(m);
      if (m.type === "result") {
        pids.add((await q.serverInfo())?.pid);
        releaseSecond();
      }
    }
    expect(results(seen).map((r) => r.result)).toEqual(["first answer", "second answer"]);
    expect(pids.size).toBe(1);
    expect(bed.model.turnRequests.map((r) => r.lastUserText)).toEqual([
      expect.stringContaining("turn one"),
      expect.stringContaining("turn two"),
    ]);
  });

  it("sends an image content block through to the model request", async () => {
    await using bed = await testBed([{ text: "I see a pixel" }]);
    const messages = await collect(
      query({
        prompt: [text("What is in this image?"), image(PNG_1PX, "image/png")],
        options: bed.options(),
      }),
    );
    expect(results(messages)[0]?.isError).toBe(false);
    const body = bed.model.turnRequests[0]?.body as { messages: { role: string; content: unknown }[] };
    const userBlocks = body.messages
      .filter((m) => m.role === "user")
      .flatMap((m) => (Array.isArray(m.content) ? m.content : [])) as {
      type: string;
      source?: { data?: string };
    }[];
    expect(userBlocks.some((b) => b.type === "image" && b.source?.data === PNG_1PX)).toBe(true);
  });

  it("runs a tool after canUseTool allows it with rewritten input", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "touch asked.txt", description: "create a file" } } },
      { text: "done" },
    ]);
    const asked: string[] = [];
    const messages = await collect(
      query({
        prompt: "create a file",
        options: bed.options({
          // The CLI's suggestions come with the calls it asks about itself (the official scope).
          canUseToolScope: "asked-calls",
          canUseTool: async (name, input, ctx) => {
            asked.push(`${name}:${String(input.command)}`);
            expect(ctx.suggestions.length).toBeGreaterThan(0);
            expect(ctx.toolUseId).toMatch(/^toolu_/);
            return { behavior: "allow", updatedInput: { ...input, command: "touch rewritten.txt" } };
          },
        }),
      }),
    );
    expect(asked).toEqual(["Bash:touch asked.txt"]);
    expect(existsSync(join(bed.cwd, "rewritten.txt"))).toBe(true);
    expect(existsSync(join(bed.cwd, "asked.txt"))).toBe(false);
    expect(results(messages)[0]).toMatchObject({ isError: false, result: "done" });
    const toolResult = messages.find(
      (m) => m.type === "user" && Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result"),
    );
    expect(toolResult).toBeDefined();
  });

  it("a deny with interrupt ends the turn without another model call", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "touch nope.txt", description: "x" } } },
      { text: "should never be requested" },
    ]);
    const messages = await collect(
      query({
        prompt: "create a file",
        options: bed.options({
          canUseTool: async () => ({ behavior: "deny", message: "not allowed here", interrupt: true }),
        }),
      }),
    );
    expect(existsSync(join(bed.cwd, "nope.txt"))).toBe(false);
    expect(bed.model.turnRequests).toHaveLength(1);
    const [result] = results(messages);
    expect(result).toBeDefined();
    expect(result?.isError).toBe(true);
  });

  it("a PreToolUse hook that blocks keeps the tool from running", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "touch hooked.txt", description: "x" } } },
      { text: "blocked, as expected" },
    ]);
    const hookInputs: string[] = [];
    const messages = await collect(
      query({
        prompt: "create a file",
        options: bed.options({
          hooks: {
            PreToolUse: [
              {
                matcher: "Bash",
                hooks: [
                  async (input) => {
                    hookInputs.push(`${input.hook_event_name}:${input.tool_name}`);
                    return {
                      hookSpecificOutput: {
                        hookEventName: "PreToolUse",
                        permissionDecision: "deny",
                        permissionDecisionReason: "BLOCKED_BY_HOOK",
                      },
                    };
                  },
                ],
              },
            ],
          },
        }),
      }),
    );
    expect(hookInputs).toEqual(["PreToolUse:Bash"]);
    expect(existsSync(join(bed.cwd, "hooked.txt"))).toBe(false);
    expect(JSON.stringify(bed.model.turnRequests[1]?.body.messages)).toContain("BLOCKED_BY_HOOK");
    expect(results(messages)[0]?.result).toBe("blocked, as expected");
  });

  it("routes a model call of an in-process MCP tool and returns its result to the model", async () => {
    await using bed = await testBed([
      { toolUse: { name: "mcp__calc__add", input: { a: 2, b: 3 } } },
      (req) => ({
        text: JSON.stringify(req.body.messages).includes("SUM=5") ? "the sum is 5" : "no sum seen",
      }),
    ]);
    const calls: unknown[] = [];
    const calc = createSdkMcpServer({
      name: "calc",
      version: "1.0.0",
      tools: [
        tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => {
          calls.push({ a, b });
          return { content: [{ type: "text", text: `SUM=${a + b}` }] };
        }),
      ],
    });
    const messages = await collect(
      query({
        prompt: "add 2 and 3",
        options: bed.options({
          mcpServers: { calc },
          allowedTools: ["mcp__calc__add"],
        }),
      }),
    );
    expect(calls).toEqual([{ a: 2, b: 3 }]);
    expect(results(messages)[0]?.result).toBe("the sum is 5");
    const tools = ((bed.model.turnRequests[0]?.body.tools ?? []) as { name: string }[]).map((t) => t.name);
    expect(tools).toContain("mcp__calc__add");
  });

  it("an MCP handler that throws becomes an isError tool result, not a dead session", async () => {
    await using bed = await testBed([
      { toolUse: { name: "mcp__calc__boom", input: {} } },
      (req) => ({
        text: JSON.stringify(req.body.messages).includes("kaboom") ? "saw the error" : "missed it",
      }),
    ]);
    const calc = createSdkMcpServer({
      name: "calc",
      tools: [
        tool("boom", "Always fails", {}, async () => {
          throw new Error("kaboom");
        }),
      ],
    });
    const messages = await collect(
      query({
        prompt: "go",
        options: bed.options({ mcpServers: { calc }, allowedTools: ["mcp__calc__boom"] }),
      }),
    );
    expect(results(messages)[0]).toMatchObject({ isError: false, result: "saw the error" });
  });

  it("interrupt() stops a turn mid-stream", async () => {
    await using bed = await testBed([{ stall: true, text: "thinking about it" }]);
    async function* prompts(): AsyncGenerator<StreamedUserInput> {
      yield "take your time";
    }
    const q = query({ prompt: prompts(), options: bed.options({ includePartialMessages: true }) });
    const seen: Message[] = [];
    for await (const m of q) {
      seen.push(m);
      if (m.type === "stream_event" && seen.filter((x) => x.type === "stream_event").length === 1) {
        await q.interrupt();
      }
    }
    const [result] = results(seen);
    expect(result?.isError).toBe(true);
    expect(result?.terminalReason).toBe("aborted_streaming");
  });

  it("changes model and permission mode at runtime", async () => {
    await using bed = await testBed([{ text: "one" }, { text: "two" }]);
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    async function* prompts(): AsyncGenerator<StreamedUserInput> {
      yield "first";
      await gate;
      yield "second";
    }
    const q = query({ prompt: prompts(), options: bed.options() });
    const modes: unknown[] = [];
    for await (const m of q) {
      if (m.type === "system" && m.subtype === "init") modes.push(m.data.permissionMode);
      if (m.type === "result" && modes.length === 1) {
        await q.setModel("claude-sonnet-4-5");
        await q.setPermissionMode("acceptEdits");
        release();
      }
    }
    expect(bed.model.turnRequests[1]?.body.model).toBe("claude-sonnet-4-5");
    expect(modes).toEqual(["default", "acceptEdits"]);
  });

  it("reports MCP server status", async () => {
    await using bed = await testBed([{ text: "ok" }]);
    const calc = createSdkMcpServer({ name: "calc", tools: [] });
    const q = query({ prompt: "hi", options: bed.options({ mcpServers: { calc } }) });
    let status: unknown[] = [];
    for await (const m of q) {
      if (m.type === "result") status = await q.mcpServerStatus();
    }
    expect(status).toEqual([expect.objectContaining({ name: "calc", status: "connected" })]);
  });

  it("resumes a previous session by id", async () => {
    await using bed = await testBed([{ text: "remember 42" }, { text: "it was 42" }]);
    const first = await collect(query({ prompt: "remember the number 42", options: bed.options() }));
    const sessionId = results(first)[0]?.sessionId;
    expect(sessionId).toBeTruthy();
    const second = await collect(
      query({ prompt: "what was it?", options: bed.options({ resume: sessionId! }) }),
    );
    expect(results(second)[0]?.result).toBe("it was 42");
    const history = JSON.stringify(bed.model.turnRequests[1]?.body.messages);
    expect(history).toContain("remember the number 42");
    expect(history).toContain("remember 42");
  });

  it("returns structured output for a JSON schema", async () => {
    await using bed = await testBed([
      { toolUse: { name: "StructuredOutput", input: { answer: 4 } } },
      { text: "" },
    ]);
    const messages = await collect(
      query({
        prompt: "what is 2+2",
        options: bed.options({
          outputFormat: {
            type: "json_schema",
            schema: { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] },
          },
        }),
      }),
    );
    expect(results(messages)[0]?.structuredOutput).toEqual({ answer: 4 });
  });

  it("emits partial stream events when includePartialMessages is on", async () => {
    await using bed = await testBed([{ text: "streamed in pieces", delayMs: 5 }]);
    const messages = await collect(
      query({ prompt: "hi", options: bed.options({ includePartialMessages: true }) }),
    );
    const deltas = messages
      .filter((m) => m.type === "stream_event")
      .map((m) => (m.type === "stream_event" ? m.event : {}))
      .filter((e) => e.type === "content_block_delta");
    expect(deltas.length).toBeGreaterThan(1);
    const joined = deltas.map((e) => (e.delta as { text?: string }).text ?? "").join("");
    expect(joined).toBe("streamed in pieces");
    const assistant = messages.find((m): m is AssistantMessage => m.type === "assistant");
    expect(assistant?.content[0]).toEqual({ type: "text", text: "streamed in pieces" });
  });

  it("surfaces a model API error as result.isError", async () => {
    await using bed = await testBed([{ error: { status: 400, message: "scripted failure" } }]);
    const messages = await collect(query({ prompt: "hi", options: bed.options() }));
    const [result] = results(messages);
    expect(result?.isError).toBe(true);
    expect(result?.result).toContain("scripted failure");
  });
});
