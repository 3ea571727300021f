/**
 * Collected turns (`client.run()`, `query().collect()`) against the real Codex CLI, offline.
 */
import { describe, expect, it } from "vitest";
import { AgentSdkClient, query, UnreadResponseError } from "../../src/index.js";
import { CODEX_CLI_VERSION, codexBed } from "./codex-support.js";
import { expectRecoveryAfterCrash } from "./support.js";

describe(`collected turns against codex ${CODEX_CLI_VERSION}`, () => {
  it("client.run() collects each app-server turn; run() refuses while an answer is unread", async () => {
    await using bed = await codexBed([
      { text: "answer one" },
      { text: "answer two" },
      { text: "answer three" },
    ]);
    await using client = new AgentSdkClient(bed.options());
    await client.connect();
    const first = await client.run("first question");
    expect(first).toMatchObject({ text: "answer one", error: undefined });
    expect(first.result.isError).toBe(false);
    expect(first.usage).toBeDefined();

    await client.query("second question");
    await expect(client.run("third question")).rejects.toBeInstanceOf(UnreadResponseError);
    const pending = [];
    for await (const m of client.receiveResponse()) pending.push(m);
    expect(pending.at(-1)).toMatchObject({ type: "result", result: "answer two" });
    expect((await client.run("third question")).text).toBe("answer three");
  });

  it("query().collect() collects a one-shot `codex exec` run", async () => {
    await using bed = await codexBed([{ text: "exec answer" }]);
    const turn = await query({ prompt: "hi", options: bed.options() }).collect();
    expect(turn.text).toBe("exec answer");
    expect(turn.messages.at(-1)).toBe(turn.result);
  });

  it("after the app-server dies mid-run(), isConnected is false, run() rejects NotConnectedError (cause: the exit), connect() starts anew", async () => {
    await using bed = await codexBed([{ stall: true, text: "partial" }]);
    await using client = new AgentSdkClient(bed.options());
    await expectRecoveryAfterCrash(client, bed.api);
  });
});
