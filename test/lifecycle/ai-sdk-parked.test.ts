/**
 * A turn parked for an AI SDK tool approval does not keep its host alive: host/ai-sdk-parked.mts asks
 * once through `toolApproval: "ai-sdk"` against the real claude CLI and the fake model, never answers,
 * and must exit 0 by itself far within the 10-minute `callbackTimeoutMs` the parked turn would
 * otherwise hold it for; the waiting CLI is ended at the host's exit.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { CLAUDE_CLI_VERSION } from "../e2e/support.js";
import { eventually, isAlive } from "./support/processes.js";
import { runStrictHost } from "./support/strict-host.js";

const HOST = join(import.meta.dirname, "host", "ai-sdk-parked.mts");
const cwd = mkdtempSync(join(tmpdir(), "cas-parked-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

it(`claude ${CLAUDE_CLI_VERSION}: a host that got a tool-approval-request and never answers exits 0 by itself; the parked CLI is gone`, {
  timeout: 120_000,
}, async () => {
  const run = await runStrictHost(HOST, [cwd], { label: "ai-sdk-parked", boundMs: 90_000 });
  expect(run.stderr).not.toMatch(/Unhandled|ERR_UNHANDLED/);
  expect(run.code).toBe(0);
  const report = run.last as { finishReason: string; asked: boolean; children: number[] };
  expect(report).toMatchObject({ finishReason: "tool-calls", asked: true });
  expect(report.children.length).toBeGreaterThan(0);
  expect(await eventually(() => report.children.every((pid) => !isAlive(pid)), 15_000)).toBe(true);
});
