/**
 * Collected turns (`client.run()`, `query().collect()`) and the client's unread-answer policy,
 * against the real Claude Code CLI, offline, with a scripted model.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AgentSdkClient, query, UNREAD_RESPONSE_WARNING, UnreadResponseError } from "../../src/index.js";
import { CLAUDE_CLI_VERSION, collect, expectRecoveryAfterCrash, results, testBed } from "./support.js";

/** Unread-answer warnings emitted while a test runs. */
let unreadWarnings: Error[] = [];
const onWarning = (warning: Error) => {
  if ((warning as { code?: string }).code === UNREAD_RESPONSE_WARNING) unreadWarnings.push(warning);
};
beforeEach(() => {
  unreadWarnings = [];
  process.on("warning", onWarning);
});
afterEach(() => {
  process.off("warning", onWarning);
});

/** `process.emitWarning` delivers on the next tick: wait for that tick, not for a time. */
const warningsDelivered = () => new Promise((resolve) => setImmediate(resolve));

describe(`collected turns against claude ${CLAUDE_CLI_VERSION}`, () => {
  it("client.run() sends a turn and resolves with its text, result and usage, turn after turn", async () => {
    await using bed = await testBed([{ text: "answer one" }, { text: "answer two" }]);
    await using client = new AgentSdkClient(bed.options());
    await client.connect();

    const first = await client.run("first question");
    expect(first.text).toBe("answer one");
    expect(first.error).toBeUndefined();
    expect(first.result).toMatchObject({ type: "result", isError: false, result: "answer one" });
    expect(first.messages.at(-1)).toBe(first.result);
    expect(first.messages.some((m) => m.type === "assistant")).toBe(true);
    expect(first.usage).toMatchObject({ output_tokens: expect.any(Number) });

    const second = await client.run("second question");
    expect(second.text).toBe("answer two");
    await warningsDelivered();
    expect(unreadWarnings).toEqual([]);
  });

  it("query().collect() runs a one-shot query to its end, with structured output", async () => {
    await using bed = await testBed([
      { toolUse: { name: "StructuredOutput", input: { answer: 4 } } },
      { text: "" },
    ]);
    const turn = await query({
      prompt: "what is 2+2",
      options: bed.options({
        outputFormat: {
          type: "json_schema",
          schema: { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] },
        },
      }),
    }).collect();
    expect(turn.structuredOutput).toEqual({ answer: 4 });
    expect(turn.error).toBeUndefined();
    expect(results(turn.messages)).toHaveLength(1);
  });

  it("a turn the API refuses resolves with error set and no text", async () => {
    await using bed = await testBed([{ error: { status: 400, message: "prompt is too long" } }]);
    const turn = await query({ prompt: "hi", options: bed.options() }).collect();
    expect(turn.result.isError).toBe(true);
    expect(turn.text).toBe("");
    expect(turn.error).toMatch(/prompt is too long/i);
  });

  it("without an API key or login the turn reports authentication_failed (no network needed)", async () => {
    await using bed = await testBed([]);
    const options = bed.options();
    const turn = await query({
      prompt: "hi",
      options: { ...options, env: { ...options.env, ANTHROPIC_API_KEY: undefined } },
    }).collect();
    expect(turn.errorKind).toBe("authentication_failed");
    expect(turn.error).toMatch(/log/i);
    expect(bed.model.requests).toHaveLength(0);
  });

  it("query() with an earlier answer unread warns once; receiveResponse() then yields the earlier answer", async () => {
    await using bed = await testBed([{ text: "answer one" }, { text: "answer two" }]);
    await using client = new AgentSdkClient(bed.options());
    await client.connect();
    await client.query("one");
    // Claude Code may fold several prompts queued during one turn into its next turn; two keep apart.
    await client.query("two");
    await warningsDelivered();
    expect(unreadWarnings).toHaveLength(1);
    expect(unreadWarnings[0]?.message).toContain("receiveResponse()");

    const answers: (string | undefined)[] = [];
    for (let i = 0; i < 2; i++) answers.push(results(await collect(client.receiveResponse()))[0]?.result);
    expect(answers).toEqual(["answer one", "answer two"]);
    await client.query("three?");
    await warningsDelivered();
    expect(unreadWarnings).toHaveLength(1);
  });

  it("run() with an answer unread rejects with UnreadResponseError and sends nothing", async () => {
    await using bed = await testBed([{ text: "answer one" }, { text: "answer two" }]);
    await using client = new AgentSdkClient(bed.options());
    await client.connect("one");
    await expect(client.run("two")).rejects.toBeInstanceOf(UnreadResponseError);
    expect(results(await collect(client.receiveResponse()))[0]?.result).toBe("answer one");
    expect((await client.run("two")).text).toBe("answer two");
    expect(bed.model.turnRequests).toHaveLength(2);
  });

  it("no warning while a receiveMessages() loop reads every answer", async () => {
    await using bed = await testBed([{ text: "answer one" }, { text: "answer two" }]);
    await using client = new AgentSdkClient(bed.options());
    await client.connect();
    const seen: string[] = [];
    const monitor = (async () => {
      for await (const m of client.receiveMessages()) {
        if (m.type === "result") seen.push(m.result ?? "");
        if (seen.length === 2) break;
      }
    })();
    await client.query("one");
    await client.query("two");
    await monitor;
    await warningsDelivered();
    expect(seen).toEqual(["answer one", "answer two"]);
    expect(unreadWarnings).toEqual([]);
  });

  it("after the CLI dies mid-run(), isConnected is false and the next run() rejects with the session's end, not UnreadResponseError", async () => {
    await using bed = await testBed([{ stall: true, text: "partial" }]);
    await using client = new AgentSdkClient(bed.options());
    await expectRecoveryAfterCrash(client, bed.model);
  });
});
