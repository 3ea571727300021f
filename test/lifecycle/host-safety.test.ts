/**
 * The host process survives its callbacks and exits on its own after close: each scenario of
 * host/scenario.mts runs in its own Node process with `--unhandled-rejections=strict`, against the
 * real CLIs and the testing kit's fake model servers. The process must exit 0 by itself within
 * {@link EXIT_BOUND_MS} (no unhandled rejection, no SDK timer or socket keeping it alive), and leave
 * no CLI process behind.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventually, isAlive, liveGroupMembers } from "./support/processes.js";
import { runStrictHost } from "./support/strict-host.js";

const SCENARIO = join(import.meta.dirname, "host", "scenario.mts");
/** Far below the 10-minute default `callbackTimeoutMs` a leaked callback timer would hold the host for. */
const EXIT_BOUND_MS = 60_000;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** From spawn to the process's exit. */
  exitMs: number;
  /** The scenario's own time, from its start to its report. */
  scenarioMs: number;
  report: Record<string, unknown> & { pids: (number | null)[] };
}

/** Runs one scenario; kills it (and fails) if it has not exited within the bound. */
async function runScenario(name: string): Promise<Run> {
  const run = await runStrictHost(SCENARIO, [name], { label: name, boundMs: EXIT_BOUND_MS });
  const parsed = run.last as { report: Run["report"]; ms: number };
  return { ...run, scenarioMs: parsed.ms ?? -1, report: parsed.report };
}

/** Every CLI pid the scenario reported is gone, with its whole process group. */
async function childrenLeft(run: Run): Promise<number[]> {
  const pids = run.report.pids.filter((p): p is number => typeof p === "number");
  expect(pids.length).toBeGreaterThan(0);
  await eventually(() => pids.every((p) => !isAlive(p) && liveGroupMembers(p).length === 0), 5_000);
  return pids.flatMap((p) => (isAlive(p) ? [p] : liveGroupMembers(p)));
}

function logRow(name: string, behaviour: string, run: Run, left: number[]): void {
  console.log(
    `host-safety | ${name} | ${behaviour} | scenario ${run.scenarioMs} ms, host exit ${run.exitMs} ms | children left ${left.length}`,
  );
}

describe("the host survives unsendable callback answers and odd rejections", () => {
  it("Claude: can_use_tool answers with a BigInt, a cycle, 100 000 levels, a null-prototype rejection, and a BigInt hook answer become error answers; the turn goes on", async () => {
    const run = await runScenario("claude-callbacks");
    expect(run.code, run.stderr).toBe(0);
    const report = run.report as unknown as {
      calls: number;
      hookCalls: string[];
      results: { isError: boolean; result: string }[];
      toolResults: string[];
      warnings: string[];
    };
    expect(report.calls).toBe(4);
    expect(report.hookCalls).toEqual(["UserPromptSubmit"]);
    expect(report.results).toEqual([{ isError: false, result: "still here" }]);
    // The CLI got an error control_response for each, naming what could not be sent.
    expect(report.toolResults).toEqual([
      expect.stringMatching(/could not be sent to the CLI: it contains a BigInt/),
      expect.stringMatching(/could not be sent to the CLI: it contains a circular reference/),
      expect.stringMatching(/could not be sent to the CLI: it is nested too deeply/),
      expect.stringMatching(/unprintable prototype-less object/),
    ]);
    expect(report.warnings).toEqual([
      expect.stringMatching(/hook_callback callback could not be sent.*BigInt/),
      expect.stringMatching(/can_use_tool callback could not be sent.*BigInt/),
      expect.stringMatching(/can_use_tool callback could not be sent.*circular/),
      expect.stringMatching(/can_use_tool callback could not be sent.*nested too deeply/),
    ]);
    const left = await childrenLeft(run);
    expect(left).toEqual([]);
    logRow("claude callbacks", "error control_response + warning, turn completes", run, left);
  });

  it("Codex: approvals answered with unsendable values or a null-prototype rejection decline with the reason; the turn goes on", async () => {
    const run = await runScenario("codex-callbacks");
    expect(run.code, run.stderr).toBe(0);
    const report = run.report as unknown as {
      calls: number;
      approvalErrors: string[];
      results: { isError: boolean; result: string }[];
      warnings: string[];
    };
    expect(report.calls).toBe(4);
    expect(report.results).toEqual([{ isError: false, result: "still here" }]);
    expect(report.approvalErrors).toEqual([
      expect.stringMatching(/updatedInput of canUseTool cannot be sent: it contains a BigInt/),
      expect.stringMatching(/updatedInput of canUseTool cannot be sent: it contains a circular reference/),
      expect.stringMatching(/updatedInput of canUseTool cannot be sent: it is nested too deeply/),
      expect.stringMatching(/unprintable prototype-less object/),
    ]);
    expect(report.warnings).toHaveLength(3);
    const left = await childrenLeft(run);
    expect(left).toEqual([]);
    logRow("codex callbacks", "declined with codex_approval_error + warning, turn completes", run, left);
  });
});

describe("after close() / disconnect() the host exits on its own", () => {
  it("Claude: a canUseTool that never settles holds no timer once the query is closed", async () => {
    const run = await runScenario("claude-never-settles");
    expect(run.code, run.stderr).toBe(0);
    const left = await childrenLeft(run);
    expect(left).toEqual([]);
    logRow("claude never-settling callback", "close() resolves, host exits", run, left);
  });

  it("Codex: a canUseTool that never settles holds no timer once the client disconnected", async () => {
    const run = await runScenario("codex-never-settles");
    expect(run.code, run.stderr).toBe(0);
    const left = await childrenLeft(run);
    expect(left).toEqual([]);
    logRow("codex never-settling callback", "disconnect() resolves, host exits", run, left);
  });
});
