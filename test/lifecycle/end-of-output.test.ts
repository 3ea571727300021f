/**
 * How a session ends when the CLI's output does not end as the protocol says: a clean exit without
 * the pending turn's result, an app-server gone between turns, a `thread/start` without a thread.
 * Each case runs the flow stand-in CLI and asserts the typed error, the time to settle, and that
 * no process is left.
 */

import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  AgentSdkClient,
  CliConnectionError,
  type Message,
  MessageParseError,
  OutputClosedError,
  ProcessError,
  query,
} from "../../src/index.js";
import { flowCli } from "./support/flow-cli.js";
import { isAlive } from "./support/processes.js";

async function drain(messages: AsyncIterable<Message>): Promise<{ seen: Message[]; error: unknown }> {
  const seen: Message[] = [];
  try {
    for await (const message of messages) seen.push(message);
  } catch (error) {
    return { seen, error };
  }
  return { seen, error: undefined };
}

describe("a turn without its result is an error (item 8)", () => {
  for (const backend of ["claude", "codex"] as const) {
    it(`${backend}: the CLI exits 0 before the result → ProcessError, session ends, no child left`, async () => {
      // Codex: a client runs the app-server (a one-shot query runs exec, covered below).
      await using client = new AgentSdkClient(flowCli(backend, "no-result"));
      await client.connect();
      const pid = client.pid!;
      await client.query("hi");
      const { seen, error } = await drain(client.receiveResponse());
      expect(error).toBeInstanceOf(ProcessError);
      expect((error as ProcessError).message).toMatch(
        /before the result of the pending turn.*exited with code 0/,
      );
      expect((error as ProcessError).exitCode).toBe(0);
      expect(seen.some((m) => m.type === "assistant")).toBe(true);
      expect(isAlive(pid)).toBe(false);
    });
  }

  it("claude one-shot query(): exit 0 without a result rejects the iteration with ProcessError", async () => {
    const { error } = await drain(query({ prompt: "hi", options: flowCli("claude", "no-result") }));
    expect(error).toBeInstanceOf(ProcessError);
  });
});

describe("codex app-server contract breaks get their own error (item 9)", () => {
  it("the server exits 0 between turns: the next query() rejects with CliConnectionError, not AbortError", async () => {
    await using client = new AgentSdkClient(flowCli("codex", "exit-between-turns"));
    await client.connect();
    await client.query("first");
    const first = await drain(client.receiveResponse());
    expect(first.error).toBeUndefined();
    expect(first.seen.at(-1)?.type).toBe("result");
    // The exit is seen once the output ends; the rest of the stream then ends cleanly.
    expect((await drain(client.receiveMessages())).error).toBeUndefined();
    const next = await client.query("second").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(next).toBeInstanceOf(CliConnectionError);
    expect((next as Error).message).toMatch(/exited between turns/);
  });

  it("thread/start answered without a thread id fails connect() with a protocol error naming the field", async () => {
    const client = new AgentSdkClient(flowCli("codex", "no-thread-id"));
    const error = await client.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.disconnect();
    expect(error).toBeInstanceOf(MessageParseError);
    expect((error as Error).message).toMatch(
      /thread\/start without a thread id \(field "thread\.id" is missing\)/,
    );
  });
});

describe("output that ends but a process that does not, and the reverse (item 7)", () => {
  for (const backend of ["claude", "codex"] as const) {
    it(`${backend}: the CLI closes stdout mid-turn and keeps running → terminated after closeGraceMs, OutputClosedError`, async () => {
      await using client = new AgentSdkClient({ ...flowCli(backend, "close-stdout"), closeGraceMs: 500 });
      await client.connect();
      const pid = client.pid!;
      await client.query("hi");
      const started = Date.now();
      const { error } = await drain(client.receiveResponse());
      const settledMs = Date.now() - started;
      expect(error).toBeInstanceOf(OutputClosedError);
      expect(error).toBeInstanceOf(ProcessError);
      expect((error as Error).message).toMatch(
        /closed its stdout but kept running; it was terminated after 500 ms/,
      );
      expect(isAlive(pid)).toBe(false);
      // The grace, the SIGTERM, and room for a loaded machine; never the unbounded wait it was.
      expect(settledMs).toBeLessThan(10_000);
    });
  }

  it("a setsid daemon keeps writing JSON to the inherited stdout after the CLI exited → the query still ends, its lines bounded", async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), "cas-daemon-")), "pid");
    let daemonPid: number | undefined;
    try {
      const started = Date.now();
      const seen: Message[] = [];
      for await (const message of query({
        prompt: "hi",
        options: flowCli("claude", "daemon", { FLOW_PID_FILE: pidFile }),
      })) {
        seen.push(message);
      }
      const settledMs = Date.now() - started;
      daemonPid = Number(readFileSync(pidFile, "utf8"));
      expect(seen.filter((m) => m.type === "result")).toHaveLength(1);
      // Its lines before the CLI exited are indistinguishable from the CLI's; after the exit at
      // most 1 MiB (AFTER_EXIT_MAX_BYTES) more is read. ~1 KB each.
      const daemonLines = seen.filter((m) => m.type === "assistant" && "daemon" in (m.raw as object)).length;
      expect(daemonLines).toBeLessThan(5_000);
      // stdioIdleMs (2 s) after the exit at the latest, and room for a loaded machine.
      expect(settledMs).toBeLessThan(15_000);
    } finally {
      if (daemonPid !== undefined && isAlive(daemonPid)) process.kill(daemonPid, "SIGKILL");
    }
  });
});
