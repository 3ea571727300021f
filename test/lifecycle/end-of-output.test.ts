/**
 * How a session ends when the CLI's output does not end as the protocol says: a clean exit without
 * the pending turn's result, an app-server gone between turns, a `thread/start` without a thread.
 * Each case runs the flow stand-in CLI and asserts the typed error, the time to settle, and that
 * no process is left.
 */

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AgentSdkClient, CliConnectionError, type Message, ProcessError, query } from "../../src/index.js";
import { MessageParseError, OutputClosedError } from "../../src/transport/index.js";
import { outcome } from "../e2e/support.js";
import { flowCli } from "./support/flow-cli.js";
import { isAlive, survivors } from "./support/processes.js";
import { flushReport, settled, stopwatch } from "./support/report.js";

afterAll(() => flushReport("end-of-output"));

/** Records the case's time to settle and asserts that neither `pid` nor a child of ours is left. */
async function done(backend: string, name: string, behaviour: string, ms: number, pid: number | undefined) {
  const left = await survivors(pid === undefined ? undefined : { pid, grandchildPid: null });
  settled({ backend, case: name, behaviour, settleMs: ms, childrenLeft: left.length });
}

describe("a turn without its result is an error (item 8)", () => {
  for (const backend of ["claude", "codex"] as const) {
    it(`${backend}: the CLI exits 0 before the result → ProcessError, session ends, no child left`, async () => {
      // Codex: a client runs the app-server (a one-shot query runs exec, covered below).
      await using client = new AgentSdkClient(flowCli(backend, "no-result"));
      await client.connect();
      const pid = client.pid!;
      const elapsed = stopwatch();
      await client.query("hi");
      const { seen, error } = await outcome(client.receiveResponse());
      const ms = elapsed();
      expect(error).toBeInstanceOf(ProcessError);
      expect((error as ProcessError).message).toMatch(
        /before the result of the pending turn.*exited with code 0/,
      );
      expect((error as ProcessError).exitCode).toBe(0);
      expect(seen.some((m) => m.type === "assistant")).toBe(true);
      await done(backend, "8 exit 0 without the turn's result (client)", "ProcessError(0)", ms, pid);
    });
  }

  it("claude one-shot query(): exit 0 without a result rejects the iteration with ProcessError", async () => {
    const elapsed = stopwatch();
    const q = query({ prompt: "hi", options: flowCli("claude", "no-result") });
    const { error } = await outcome(q);
    const ms = elapsed();
    expect(error).toBeInstanceOf(ProcessError);
    await done("claude", "8 exit 0 without the turn's result (query)", "ProcessError(0)", ms, q.pid);
  });
});

describe("codex app-server contract breaks get their own error (item 9)", () => {
  it("the server exits 0 between turns: the next query() rejects with CliConnectionError, not AbortError", async () => {
    await using client = new AgentSdkClient(flowCli("codex", "exit-between-turns"));
    await client.connect();
    const pid = client.pid;
    const elapsed = stopwatch();
    await client.query("first");
    const first = await outcome(client.receiveResponse());
    expect(first.error).toBeUndefined();
    expect(first.seen.at(-1)?.type).toBe("result");
    // The exit is seen once the output ends; the rest of the stream then ends cleanly.
    expect((await outcome(client.receiveMessages())).error).toBeUndefined();
    const next = await client.query("second").then(
      () => undefined,
      (error: unknown) => error,
    );
    const ms = elapsed();
    expect(next).toBeInstanceOf(CliConnectionError);
    expect((next as Error).message).toMatch(/exited between turns/);
    await done("codex", "9 app-server exits 0 between turns", "next query(): CliConnectionError", ms, pid);
  });

  it("thread/start answered without a thread id fails connect() with a protocol error naming the field", async () => {
    const client = new AgentSdkClient(flowCli("codex", "no-thread-id"));
    const elapsed = stopwatch();
    const error = await client.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    const ms = elapsed();
    await client.disconnect();
    await done("codex", "9 thread/start without a thread id", "connect(): MessageParseError", ms, undefined);
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
      const { error } = await outcome(client.receiveResponse());
      const settledMs = Date.now() - started;
      expect(error).toBeInstanceOf(OutputClosedError);
      expect(error).toBeInstanceOf(ProcessError);
      expect((error as Error).message).toMatch(
        /closed its stdout but kept running; it was terminated after 500 ms/,
      );
      await done(
        backend,
        "7a stdout closed, process runs on",
        "OutputClosedError, terminated",
        settledMs,
        pid,
      );
    });
  }

  it("a setsid daemon keeps writing JSON to the inherited stdout after the CLI exited → the query still ends, its lines bounded", async () => {
    const pidDir = mkdtempSync(join(tmpdir(), "cas-daemon-"));
    const pidFile = join(pidDir, "pid");
    let daemonPid: number | undefined;
    try {
      const elapsed = stopwatch();
      const seen: Message[] = [];
      const q = query({ prompt: "hi", options: flowCli("claude", "daemon", { FLOW_PID_FILE: pidFile }) });
      for await (const message of q) seen.push(message);
      const settledMs = elapsed();
      daemonPid = Number(readFileSync(pidFile, "utf8"));
      expect(seen.filter((m) => m.type === "result")).toHaveLength(1);
      // Its lines before the CLI exited are indistinguishable from the CLI's; after the exit at
      // most 1 MiB (AFTER_EXIT_MAX_BYTES) more is read. ~1 KB each.
      const daemonLines = seen.filter((m) => m.type === "assistant" && "daemon" in (m.raw as object)).length;
      expect(daemonLines).toBeLessThan(5_000);
      // The daemon is not ours to kill (it left the group); it may still be running here.
      await done(
        "claude",
        "7b setsid daemon floods stdout after exit",
        "ends; ≤ 1 MiB after exit",
        settledMs,
        q.pid,
      );
    } finally {
      if (daemonPid !== undefined && isAlive(daemonPid)) process.kill(daemonPid, "SIGKILL");
      rmSync(pidDir, { recursive: true, force: true });
    }
  });
});
