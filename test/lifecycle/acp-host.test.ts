/**
 * The host survives ACP `canUseTool` failures and exits on its own (issue 25, item 1's ACP part):
 * host/acp-callbacks.mts runs in its own Node process with `--unhandled-rejections=strict` against
 * the stand-in agent. It must exit 0 by itself within {@link EXIT_BOUND_MS} (no unhandled rejection,
 * no timer kept by a callback that never settled: `callbackTimeoutMs` is 10 minutes), each failing
 * callback must have got the agent the reject option with an in-band report, and the agent must be
 * gone.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, expect, it } from "vitest";
import { eventually, isAlive, liveGroupMembers } from "./support/processes.js";
import { runStrictHost, type StrictHostRun } from "./support/strict-host.js";

const HOST = join(import.meta.dirname, "host", "acp-callbacks.mts");
const FAKE = fileURLToPath(new URL("../fixtures/acp/fake-acp-agent.mjs", import.meta.url));
/** Far below the 10-minute `callbackTimeoutMs` a callback left waiting would hold the host for. */
const EXIT_BOUND_MS = 60_000;

const dir = mkdtempSync(join(tmpdir(), "cas-acp-host-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function launcher(): string {
  const path = join(dir, "fake-acp-agent");
  writeFileSync(path, `#!${process.execPath}\nimport(${JSON.stringify(pathToFileURL(FAKE).href)});\n`);
  chmodSync(path, 0o755);
  return path;
}

function runHost(): Promise<StrictHostRun> {
  return runStrictHost(HOST, [launcher()], {
    label: "acp-host",
    boundMs: EXIT_BOUND_MS,
    requireReport: false,
  });
}

it("ACP: canUseTool failing with odd values, then one never settling and the session closed: reject option each time, reported; the host exits 0 by itself; the agent is gone", async () => {
  const run = await runHost();
  expect(run.code, run.stderr).toBe(0);
  const report = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "") as {
    pid: number;
    answers: unknown[];
    reports: string[];
  };
  const reject = { result: { outcome: { outcome: "selected", optionId: "cancel" } } };
  expect(report.answers).toEqual(Array.from({ length: 7 }, () => reject));
  expect(report.reports).toHaveLength(7);
  await eventually(() => !isAlive(report.pid) && liveGroupMembers(report.pid).length === 0, 5_000);
  expect(isAlive(report.pid)).toBe(false);
  console.log(`acp-host | canUseTool odd values + never settles | host exit ${run.exitMs} ms | agent gone`);
});
