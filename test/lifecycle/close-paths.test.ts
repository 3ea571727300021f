/**
 * Closing a query mid-turn never keeps the host alive: each scenario of host/close-scenario.mts
 * runs in its own Node process with `--unhandled-rejections=strict` against the real Claude Code
 * CLI and a stalled fake model, closes the query mid-turn, and must exit 0 by itself within
 * {@link SETTLE_BOUND_MS} of the close (the exit watch's 30 s timer armed after the close held it),
 * leaving no CLI process behind.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type AgentOptions, AgentSdkClient, type Message, query } from "../../src/index.js";
import { eventually, isAlive, liveGroupMembers, survivors } from "./support/processes.js";
import { flushReport, settled, stopwatch } from "./support/report.js";
import { runStrictHost } from "./support/strict-host.js";

afterAll(() => flushReport("close-paths"));

const SCENARIO = join(import.meta.dirname, "host", "close-scenario.mts");
/** From the close to the host's exit: SIGTERM, at most `closeGraceMs` (2 s), SIGKILL; far below 30 s. */
const SETTLE_BOUND_MS = 8_000;
/** The whole run (start-up of the CLI included); the host is killed past it. */
const RUN_BOUND_MS = 60_000;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** From the close (as the scenario took it) to the host's exit. */
  settleMs: number;
  report: { pids: (number | null)[]; first: string | null; closedAt: number };
}

async function runScenario(name: string): Promise<Run> {
  const run = await runStrictHost(SCENARIO, [name], { label: name, boundMs: RUN_BOUND_MS, settleOn: "exit" });
  const { report } = run.last as { report: Run["report"] };
  return {
    code: run.code,
    signal: run.signal,
    stderr: run.stderr,
    settleMs: run.endedAt - report.closedAt,
    report,
  };
}

async function childrenLeft(run: Run): Promise<number[]> {
  const pids = run.report.pids.filter((p): p is number => typeof p === "number");
  expect(pids.length).toBeGreaterThan(0);
  await eventually(() => pids.every((p) => !isAlive(p) && liveGroupMembers(p).length === 0), 5_000);
  return pids.flatMap((p) => (isAlive(p) ? [p] : liveGroupMembers(p)));
}

describe("closing mid-turn never keeps the host alive (issue 25 item 7)", () => {
  it.each([
    ["compat-query-close", "compat Query.close() mid-turn"],
    ["compat-spare-close", "compat SpareProcess.close() on a claimed spare mid-turn"],
    ["core-streamed-close", "core streamed-prompt query closed mid-turn"],
    ["core-streamed-break", "core streamed-prompt query left with break mid-turn"],
  ])("%s: the host exits 0 by itself soon after the close, no CLI left", async (name, what) => {
    const run = await runScenario(name);
    expect(run.code, run.stderr).toBe(0);
    expect(run.report.first).not.toBeNull();
    const left = await childrenLeft(run);
    console.log(`close-paths | ${what} | host exit ${run.settleMs} ms after close | left ${left.length}`);
    settled({
      backend: "claude",
      case: what,
      behaviour: "host exits on its own",
      settleMs: run.settleMs,
      childrenLeft: left.length,
    });
    expect(run.settleMs).toBeLessThan(SETTLE_BOUND_MS);
  });
});

const FAKE_CLAUDE = fileURLToPath(new URL("../fixtures/fake-cli/fake-claude.mjs", import.meta.url));

/** The stand-in CLI: the turn succeeds, then it closes its stdout and runs on. */
function closesStdoutAfterResult(): AgentOptions {
  return {
    cliPath: FAKE_CLAUDE,
    env: { FAKE_CLAUDE_MODE: "close-stdout-after-result", CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK: "1" },
    closeGraceMs: 500,
  };
}

describe("a CLI that closes stdout after a successful result but runs on (issue 24, misuse)", () => {
  it("query(): the iteration ends cleanly after the result, and the process is ended", async () => {
    const elapsed = stopwatch();
    const q = query({ prompt: "hi", options: closesStdoutAfterResult() });
    const seen: Message[] = [];
    let error: unknown;
    try {
      for await (const message of q) seen.push(message);
    } catch (e) {
      error = e;
    }
    const ms = elapsed();
    expect(error).toBeUndefined();
    expect(seen.filter((m) => m.type === "result")).toMatchObject([{ isError: false, result: "done" }]);
    const left = await survivors({ pid: q.pid!, grandchildPid: null });
    settled({
      backend: "claude",
      case: "stdout closed after a successful result (query)",
      behaviour: "ends cleanly, process terminated",
      settleMs: ms,
      childrenLeft: left.length,
    });
  });

  it("a client: the turn's answer is complete and disconnect() is clean; the process is ended", async () => {
    const client = new AgentSdkClient(closesStdoutAfterResult());
    await client.connect();
    const pid = client.pid!;
    const elapsed = stopwatch();
    const turn = await client.run("hi");
    expect(turn.error).toBeUndefined();
    expect(turn.text).toBe("done");
    // The rest of the stream ends without an error once the process is gone.
    const rest: Message[] = [];
    for await (const message of client.receiveMessages()) rest.push(message);
    const ms = elapsed();
    await client.disconnect();
    const left = await survivors({ pid, grandchildPid: null });
    settled({
      backend: "claude",
      case: "stdout closed after a successful result (client)",
      behaviour: "stream ends cleanly, process terminated",
      settleMs: ms,
      childrenLeft: left.length,
    });
  });
});
