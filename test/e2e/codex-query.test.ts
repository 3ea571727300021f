/**
 * One-shot `query()` against the real Codex CLI (0.169.0, `codex exec --json`), offline, with a
 * scripted Responses API.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  InvalidOptionsError,
  image,
  type Message,
  ProcessError,
  query,
  text,
  UnsupportedOptionsError,
} from "../../src/index.js";
import {
  CODEX_CLI_VERSION,
  codexBed,
  collect,
  ECHO_MCP,
  results,
  runningCliProcesses,
} from "./codex-support.js";

const PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

afterEach(() => {
  expect(runningCliProcesses()).toBe(0);
});

function toolBlocks(messages: Message[]) {
  return messages.flatMap((m) =>
    (m.type === "assistant" || m.type === "user") && Array.isArray(m.content) ? m.content : [],
  );
}

describe(`query() against codex ${CODEX_CLI_VERSION} (codex exec)`, () => {
  it("answers a text prompt: init, thinking, text, success result", async () => {
    await using bed = await codexBed([{ reasoning: "pondering", text: "Hello from the fake model" }]);
    const messages = await collect(query({ prompt: "say hi", options: bed.options({ model: "gpt-5.5" }) }));
    expect(messages[0]).toMatchObject({ type: "system", subtype: "init" });
    const sessionId = messages[0]?.sessionId;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(messages.slice(1).map((m) => m.type)).toEqual(["assistant", "assistant", "result"]);
    expect(messages[1]).toMatchObject({
      content: [{ type: "thinking", thinking: "pondering" }],
      model: "gpt-5.5",
    });
    const [result] = results(messages);
    expect(result).toMatchObject({
      subtype: "success",
      isError: false,
      numTurns: null,
      totalCostUsd: null,
      sessionId,
      result: "Hello from the fake model",
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
    });
    expect(result!.durationMs).toBeGreaterThan(0);
    // The prompt reached the model through stdin byte for byte, as the official Codex SDK sends it.
    expect(bed.api.turnRequests[0]?.lastUserText).toBe("say hi");
  });

  it("runs a command and reports its output as a Bash tool result", async () => {
    await using bed = await codexBed([{ execCommand: { cmd: "echo hello-from-codex" } }, { text: "ran it" }]);
    const messages = await collect(query({ prompt: "run echo", options: bed.options() }));
    const blocks = toolBlocks(messages);
    const use = blocks.find((b) => b.type === "tool_use");
    expect(use).toMatchObject({
      name: "Bash",
      input: { command: expect.stringContaining("echo hello-from-codex") },
    });
    expect(blocks.find((b) => b.type === "tool_result")).toMatchObject({
      toolUseId: use?.type === "tool_use" ? use.id : "",
      content: expect.stringContaining("hello-from-codex"),
      isError: false,
    });
    expect(results(messages)[0]?.result).toBe("ran it");
  });

  it("applies a patch in a workspace-write sandbox", async () => {
    await using bed = await codexBed([
      { applyPatch: "*** Begin Patch\n*** Add File: greeting.txt\n+hello patch\n*** End Patch\n" },
      { text: "patched" },
    ]);
    const messages = await collect(
      query({
        prompt: "write the file",
        options: bed.options({ codex: { sandboxMode: "workspace-write" } }),
      }),
    );
    expect(readFileSync(join(bed.cwd, "greeting.txt"), "utf8")).toBe("hello patch\n");
    const blocks = toolBlocks(messages);
    expect(blocks.find((b) => b.type === "tool_use")).toMatchObject({
      name: "Write",
      input: {
        file_path: join(bed.cwd, "greeting.txt"),
        changes: [{ path: join(bed.cwd, "greeting.txt"), kind: "add" }],
      },
    });
    expect(blocks.find((b) => b.type === "tool_result")).toMatchObject({ isError: false });
    expect(results(messages)[0]).toMatchObject({ isError: false, result: "patched" });
  });

  it("calls a tool of a stdio MCP server given in mcpServers", async () => {
    await using bed = await codexBed([
      { mcpCall: { server: "echo", tool: "echo", arguments: { text: "hi mcp" } } },
      { text: "the tool answered" },
    ]);
    const messages = await collect(
      query({
        prompt: "use the echo tool",
        options: bed.options({ mcpServers: { echo: { command: process.execPath, args: [ECHO_MCP] } } }),
      }),
    );
    const blocks = toolBlocks(messages);
    expect(blocks.find((b) => b.type === "tool_use")).toMatchObject({
      name: "mcp__echo__echo",
      input: { text: "hi mcp" },
    });
    expect(blocks.find((b) => b.type === "tool_result")).toMatchObject({
      content: [{ type: "text", text: "echo: hi mcp" }],
      isError: false,
    });
    expect(results(messages)[0]?.result).toBe("the tool answered");
  });

  it("resumes a thread with `resume`: same session id, and the model sees the earlier turn", async () => {
    await using bed = await codexBed([{ text: "first answer" }, { text: "second answer" }]);
    const first = await collect(query({ prompt: "remember the word apricot", options: bed.options() }));
    const sessionId = results(first)[0]!.sessionId;
    const second = await collect(
      query({ prompt: "which word?", options: bed.options({ resume: sessionId }) }),
    );
    expect(results(second)[0]).toMatchObject({ sessionId, result: "second answer" });
    const history = JSON.stringify(bed.api.turnRequests[1]?.body.input);
    expect(history).toContain("remember the word apricot");
    expect(history).toContain("first answer");
  });

  it("returns structured output for outputFormat (--output-schema)", async () => {
    await using bed = await codexBed([{ text: '{"answer":42}' }]);
    const schema = {
      type: "object",
      properties: { answer: { type: "number" } },
      required: ["answer"],
      additionalProperties: false,
    };
    const messages = await collect(
      query({
        prompt: "the answer?",
        options: bed.options({ outputFormat: { type: "json_schema", schema } }),
      }),
    );
    expect(results(messages)[0]).toMatchObject({ structuredOutput: { answer: 42 } });
    expect(bed.api.turnRequests[0]?.body.text?.format).toMatchObject({ type: "json_schema", schema });
  });

  it("attaches content-block images as files (--image) and joins the text blocks", async () => {
    await using bed = await codexBed([{ text: "a pixel" }]);
    const messages = await collect(
      query({ prompt: [text("what is"), image(PIXEL), text("this?")], options: bed.options() }),
    );
    expect(results(messages)[0]?.result).toBe("a pixel");
    const input = JSON.stringify(bed.api.turnRequests[0]?.body.input);
    expect(input).toContain(`data:image/png;base64,${PIXEL}`);
    expect(bed.api.turnRequests[0]?.lastUserText).toContain("what is\nthis?");
  });

  it("surfaces a model API failure as result.isError without throwing", async () => {
    await using bed = await codexBed([{ error: { status: 500, message: "upstream exploded" } }]);
    const messages = await collect(query({ prompt: "hi", options: bed.options() }));
    const [result] = results(messages);
    expect(result).toMatchObject({
      isError: true,
      subtype: "error_during_execution",
      terminalReason: "failed",
    });
    expect(result?.result).toBeTruthy();
    expect(messages.some((m) => m.type === "system" && m.subtype === "codex_error")).toBe(true);
  });

  it("interrupt() ends a stalled turn: the process is killed and the result says interrupted", async () => {
    await using bed = await codexBed([{ stall: true, text: "thinking forever" }]);
    const q = query({ prompt: "stall please", options: bed.options() });
    const seen: Message[] = [];
    const stalled = bed.api.waitForRequest((r) => r.lastUserText.trimEnd() === "stall please");
    const reading = (async () => {
      for await (const m of q) seen.push(m);
    })();
    await stalled;
    await q.interrupt();
    await reading;
    expect(results(seen)).toMatchObject([{ isError: true, terminalReason: "interrupted" }]);
  });

  it("runs a one-shot query with canUseTool over the app-server, so approvals reach the callback", async () => {
    // The CODEX_HOME config says approval_policy = "never"; a callback alone makes Codex ask.
    await using bed = await codexBed([{ execCommand: { cmd: "touch asked.txt" } }, { text: "done" }]);
    const asked: string[] = [];
    const messages = await collect(
      query({
        prompt: "touch it",
        options: bed.options({
          codex: { sandboxMode: "workspace-write" },
          canUseTool: (name, input) => {
            asked.push(`${name}:${String(input.command)}`);
            return { behavior: "allow" };
          },
        }),
      }),
    );
    expect(asked).toEqual([expect.stringMatching(/^Bash:.*touch asked\.txt/)]);
    expect(existsSync(join(bed.cwd, "asked.txt"))).toBe(true);
    expect(results(messages)).toMatchObject([{ isError: false, result: "done" }]);
  });

  it("runs even when config.toml asks for approvals, which codex exec would refuse", async () => {
    await using bed = await codexBed([{ text: "fine" }], { approvalPolicy: "untrusted" });
    const messages = await collect(query({ prompt: "hi", options: bed.options() }));
    expect(results(messages)).toMatchObject([{ isError: false, result: "fine" }]);
  });

  it("passes reasoning effort and config overrides to the CLI (-c)", async () => {
    await using bed = await codexBed([{ text: "ok" }]);
    await collect(
      query({
        prompt: "hi",
        options: bed.options({ codex: { reasoningEffort: "low", config: { model_verbosity: "high" } } }),
      }),
    );
    expect(bed.api.turnRequests[0]?.body.reasoning).toMatchObject({ effort: "low" });
    expect(bed.api.turnRequests[0]?.body.text).toMatchObject({ verbosity: "high" });
  });

  it("a run that fails before any result is a ProcessError with the exit code and the CLI's stderr", async () => {
    await using bed = await codexBed();
    const error = await collect(
      query({ prompt: "hi", options: bed.options({ resume: "00000000-0000-0000-0000-000000000000" }) }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProcessError);
    expect(error).toMatchObject({ exitCode: 1, stderrTail: expect.stringContaining("no rollout found") });
  });

  it("rejects Claude-only options with UnsupportedOptionsError before spawning anything", async () => {
    await using bed = await codexBed();
    const error = await collect(
      query({
        prompt: "hi",
        options: bed.options({
          // @ts-expect-error: not options of this backend (refused at compile time, and at run time for JavaScript)
          systemPrompt: "be terse",
          maxBudgetUsd: 2,
          permissionMode: "plan",
          hooks: {},
        }),
      }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedOptionsError);
    expect((error as UnsupportedOptionsError).options).toEqual([
      "systemPrompt",
      "maxBudgetUsd",
      "permissionMode",
      "hooks",
    ]);
    expect(bed.api.requests).toHaveLength(0);
  });

  it("reports invalid Codex options as InvalidOptionsError", async () => {
    await expect(
      collect(
        query({
          prompt: "hi",
          options: { backend: "codex", codex: { approvalPolicy: "on-failure" as never } },
        }),
      ),
    ).rejects.toBeInstanceOf(InvalidOptionsError);
  });
});
