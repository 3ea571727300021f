/**
 * AgentSdkClient against the real Claude Code CLI (2.1.330), offline, with a scripted model.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentSdkClient, type Message, NotConnectedError } from "../../src/index.js";
import { CLAUDE_CLI_VERSION, collect, isAlive, results, testBed } from "./support.js";

describe(`AgentSdkClient against claude ${CLAUDE_CLI_VERSION}`, () => {
  it("answers two turns in one process, with both stream views consumed at once", async () => {
    await using bed = await testBed([{ text: "answer one" }, { text: "answer two" }]);
    await using client = new AgentSdkClient(bed.options());
    await client.connect();
    const info = await client.getServerInfo();
    expect(info?.claude_code_version).toBe(CLAUDE_CLI_VERSION);
    const pid = info?.pid as number;

    const everything: Message[] = [];
    const monitor = (async () => {
      for await (const m of client.receiveMessages()) everything.push(m);
    })();

    await client.query("first question");
    const first = await collect(client.receiveResponse());
    expect(first.at(-1)).toMatchObject({ type: "result", result: "answer one" });

    await client.query("second question");
    const second = await collect(client.receiveResponse());
    expect(second.at(-1)).toMatchObject({ type: "result", result: "answer two" });
    expect((await client.getServerInfo())?.pid).toBe(pid);

    await client.disconnect();
    await monitor;
    expect(results(everything).map((r) => r.result)).toEqual(["answer one", "answer two"]);
    expect(isAlive(pid)).toBe(false);
  });

  it("sends the connect() prompt as the first turn", async () => {
    await using bed = await testBed([{ text: "hello back" }]);
    await using client = new AgentSdkClient(bed.options());
    await client.connect("hello");
    const messages = await collect(client.receiveResponse());
    expect(results(messages)[0]?.result).toBe("hello back");
  });

  it("rewinds files changed by a turn", async () => {
    await using bed = await testBed();
    const file = join(bed.cwd, "keep.txt");
    writeFileSync(file, "original\n");
    bed.model.push(
      { toolUse: { name: "Write", input: { file_path: file, content: "modified\n" } } },
      { text: "written" },
    );
    await using client = new AgentSdkClient(
      bed.options({ enableFileCheckpointing: true, permissionMode: "acceptEdits" }),
    );
    await client.connect();
    // A wire-format turn carries our own uuid: the checkpoint to rewind to.
    const uuid = randomUUID();
    await client.query(
      (async function* () {
        yield { type: "user", message: { role: "user", content: "modify the file" }, uuid } as const;
      })(),
    );
    await collect(client.receiveResponse());
    expect(readFileSync(file, "utf8")).toBe("modified\n");
    const dry = await client.rewindFiles(uuid, { dryRun: true });
    expect(dry.canRewind).toBe(true);
    await client.rewindFiles(uuid);
    expect(readFileSync(file, "utf8")).toBe("original\n");
  });

  it("refuses to send before connect()", async () => {
    const client = new AgentSdkClient({});
    await expect(client.query("hi")).rejects.toBeInstanceOf(NotConnectedError);
    await expect(client.interrupt()).rejects.toBeInstanceOf(NotConnectedError);
    expect(existsSync("/nonexistent")).toBe(false);
  });
});
