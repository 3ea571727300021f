/**
 * The faults of the matrix that the real `codex` binary (0.169.0, offline against the fake
 * Responses API) can produce by itself: it refuses its configuration before any output, it dies
 * from a signal the SDK did not send, and the consumer leaves while the model stalls. The
 * stand-in (fault-matrix.test.ts) covers every fault; these cells check the same outcomes, and
 * that nothing the real CLI starts is left behind, on both of its paths (`exec` and `app-server`).
 */
import { afterAll, describe, expect, it } from "vitest";
import { AgentSdkClient, type Message, ProcessError, query } from "../../src/index.js";
import { CODEX_CLI_VERSION, codexBed } from "../e2e/codex-support.js";
import { NOT_POSIX } from "./support/backends.js";
import { type FakePids, survivors } from "./support/processes.js";
import { flushReport, settled, stopwatch } from "./support/report.js";

const BACKEND = `codex ${CODEX_CLI_VERSION} (real)`;

/** Records a case: no hang, nothing the CLI (pid) or its process group left running. */
async function done(name: string, behaviour: string, ms: number, pid: number | undefined): Promise<void> {
  const pids: FakePids | undefined = pid ? { pid, grandchildPid: null } : undefined;
  const left = await survivors(pids);
  settled({ backend: BACKEND, case: name, behaviour, settleMs: ms, childrenLeft: left.length });
}

describe.skipIf(NOT_POSIX)(`lifecycle guarantees against the real CLI: ${BACKEND}`, () => {
  afterAll(() => flushReport("codex-real"));

  const badConfig = { codex: { config: { sandbox_mode: "nope" } } };

  it("3 an invalid configuration: exec exits 1 before any output → ProcessError with codex's message", async () => {
    await using bed = await codexBed();
    const elapsed = stopwatch();
    const seen: Message[] = [];
    const error = await (async () => {
      for await (const m of query({ prompt: "hi", options: bed.options(badConfig) })) seen.push(m);
    })().catch((e: unknown) => e);
    const ms = elapsed();
    expect(error).toBeInstanceOf(ProcessError);
    expect((error as ProcessError).exitCode).toBe(1);
    expect((error as ProcessError).stderrTail).toContain("unknown variant `nope`");
    expect(seen).toEqual([]);
    await done("3 invalid config, exec (query)", "ProcessError(1, stderr)", ms, undefined);
  });

  it("3 an invalid configuration: the app-server exits 1 before answering initialize → connect() rejects with ProcessError", async () => {
    await using bed = await codexBed();
    const client = new AgentSdkClient(bed.options(badConfig));
    const elapsed = stopwatch();
    const error = await client.connect().catch((e: unknown) => e);
    const ms = elapsed();
    expect(error).toBeInstanceOf(ProcessError);
    expect((error as ProcessError).exitCode).toBe(1);
    expect((error as ProcessError).stderrTail).toContain("unknown variant `nope`");
    expect(client.isConnected).toBe(false);
    await done("3 invalid config, app-server (client)", "ProcessError(1, stderr)", ms, undefined);
  });

  it("4 SIGKILLed mid-turn by someone else (exec): ProcessError(SIGKILL) after the messages received", async () => {
    await using bed = await codexBed([{ stall: true, text: "thinking forever" }]);
    const stalled = bed.api.waitForRequest((r) => r.lastUserText.trimEnd() === "stall please");
    const q = query({ prompt: "stall please", options: bed.options() });
    const seen: Message[] = [];
    let pid: number | undefined;
    let elapsed: (() => number) | undefined;
    const error = await (async () => {
      for await (const m of q) {
        seen.push(m);
        if (pid === undefined) {
          pid = q.pid;
          await stalled;
          elapsed = stopwatch();
          process.kill(pid ?? 0, "SIGKILL");
        }
      }
    })().catch((e: unknown) => e);
    const ms = elapsed?.() ?? Number.NaN;
    expect(error).toBeInstanceOf(ProcessError);
    expect((error as ProcessError).signal).toBe("SIGKILL");
    expect(seen[0]).toMatchObject({ type: "system", subtype: "init" });
    await done("4 SIGKILL mid-turn, exec (query)", "ProcessError(SIGKILL), messages kept", ms, pid);
  });

  it("4 SIGKILLed mid-turn by someone else (app-server): receiveResponse() throws ProcessError(SIGKILL)", async () => {
    await using bed = await codexBed([{ stall: true, text: "thinking forever" }]);
    const stalled = bed.api.waitForRequest((r) => r.lastUserText.trimEnd() === "stall please");
    const client = new AgentSdkClient(bed.options());
    await client.connect();
    await client.query("stall please");
    await stalled;
    const pid = client.pid;
    const elapsed = stopwatch();
    process.kill(pid ?? 0, "SIGKILL");
    const error = await (async () => {
      for await (const _ of client.receiveResponse()) {
        // drain until the failure
      }
    })().catch((e: unknown) => e);
    const ms = elapsed();
    expect(error).toBeInstanceOf(ProcessError);
    expect((error as ProcessError).signal).toBe("SIGKILL");
    await client.disconnect();
    await done("4 SIGKILL mid-turn, app-server (client)", "ProcessError(SIGKILL)", ms, pid);
  });

  it("8 the consumer breaks while the model stalls (exec): the process group is gone when the loop exits", async () => {
    await using bed = await codexBed([{ stall: true, text: "thinking forever" }]);
    const stalled = bed.api.waitForRequest((r) => r.lastUserText.trimEnd() === "stall please");
    const q = query({ prompt: "stall please", options: bed.options() });
    let pid: number | undefined;
    let elapsed: (() => number) | undefined;
    for await (const _ of q) {
      pid = q.pid;
      await stalled;
      elapsed = stopwatch();
      break;
    }
    await done("8 break mid-turn, exec (query)", "group killed", elapsed?.() ?? Number.NaN, pid);
  });

  it("8 disconnect() while the model stalls (app-server): the process group is gone when it resolves", async () => {
    await using bed = await codexBed([{ stall: true, text: "thinking forever" }]);
    const stalled = bed.api.waitForRequest((r) => r.lastUserText.trimEnd() === "stall please");
    const client = new AgentSdkClient(bed.options());
    await client.connect();
    await client.query("stall please");
    await stalled;
    const pid = client.pid;
    const elapsed = stopwatch();
    await client.disconnect();
    await done("8 disconnect mid-turn, app-server (client)", "group killed", elapsed(), pid);
  });
});
