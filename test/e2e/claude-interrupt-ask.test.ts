/**
 * Interrupt, then ask again (issue 28, item 7), against the real claude CLI offline: a `query()` or
 * `run()` sent right after `interrupt()` waits for the interrupted turn to finish instead of
 * colliding with it (its answer read in its place, `UnreadResponseError`, the unread warning).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AgentSdkClient, type Message, UNREAD_RESPONSE_WARNING } from "../../src/index.js";
import { codexBed } from "./codex-support.js";
import { testBed } from "./support.js";

let warnings: string[] = [];
const onWarning = (warning: Error & { code?: string }) => {
  if (warning.code === UNREAD_RESPONSE_WARNING) warnings.push(warning.message);
};
beforeEach(() => {
  warnings = [];
  process.on("warning", onWarning);
});
afterEach(() => {
  process.off("warning", onWarning);
});

/** Sends `prompt` and reads its response until the model starts streaming, then stops reading. */
async function startStreaming(client: AgentSdkClient, prompt: string): Promise<void> {
  await client.query(prompt);
  for await (const message of client.receiveResponse()) if (message.type === "stream_event") return;
  throw new Error("the turn ended before it streamed");
}

describe("interrupt, then ask again", () => {
  it("claude: run() right after interrupt() answers the new prompt (the interrupted answer, unread, is dropped)", async () => {
    await using bed = await testBed([{ stall: true, text: "working on it" }, { text: "the next answer" }]);
    await using client = new AgentSdkClient(bed.options({ includePartialMessages: true }));
    await client.connect();
    await startStreaming(client, "a long task");
    await client.interrupt();
    const turn = await client.run("something else");
    expect(turn.result).toMatchObject({ isError: false, result: "the next answer" });
    expect(turn.text).toBe("the next answer");
    expect(bed.model.turnRequests.map((r) => r.lastUserText.endsWith("something else"))).toEqual([
      false,
      true,
    ]);
    expect(warnings).toEqual([]);
  });

  it("claude: query() right after interrupt() resolves only once the interrupted turn's result is in; the reader gets each answer in turn", async () => {
    await using bed = await testBed([{ stall: true, text: "working on it" }, { text: "the next answer" }]);
    await using client = new AgentSdkClient(bed.options({ includePartialMessages: true }));
    await client.connect();
    await client.query("a long task");
    const seen: string[] = [];
    let streaming!: () => void;
    const streamed = new Promise<void>((resolve) => {
      streaming = resolve;
    });
    const firstResponse = (async () => {
      const messages: Message[] = [];
      for await (const message of client.receiveResponse()) {
        messages.push(message);
        if (message.type === "stream_event") streaming();
        if (message.type === "result") seen.push("interrupted result");
      }
      return messages;
    })();
    await streamed;
    await client.interrupt();
    await client.query("something else");
    seen.push("query sent");
    const interrupted = (await firstResponse).at(-1);
    expect(interrupted).toMatchObject({ type: "result", isError: true, subtype: "error_during_execution" });
    expect(seen).toEqual(["interrupted result", "query sent"]);
    const next: Message[] = [];
    for await (const message of client.receiveResponse()) next.push(message);
    expect(next.at(-1)).toMatchObject({ type: "result", isError: false, result: "the next answer" });
    expect(warnings).toEqual([]);
  });

  it("claude: interrupt() with nothing running leaves the next run() as it is", async () => {
    await using bed = await testBed([{ text: "first answer" }, { text: "second answer" }]);
    await using client = new AgentSdkClient(bed.options());
    await client.connect();
    const first = await client.run("first");
    expect(first.text).toBe("first answer");
    await client.interrupt();
    const second = await client.run("second");
    expect(second.text).toBe("second answer");
  });

  it("codex app-server: run() right after interrupt() answers the new prompt", async () => {
    await using bed = await codexBed([{ stall: true, text: "working on it" }, { text: "the next answer" }]);
    await using client = new AgentSdkClient(bed.options({ includePartialMessages: true }));
    await client.connect();
    await startStreaming(client, "a long task");
    await client.interrupt();
    const turn = await client.run("something else");
    expect(turn.result).toMatchObject({ isError: false });
    expect(turn.text).toBe("the next answer");
    expect(warnings).toEqual([]);
  });
});
