/**
 * `listSessions` (code-agent-sdk/acp) leaves the host as it found it: host/acp-list.mts runs
 * listings that succeed and fail every way (undeclared, agent exits mid-list, never answered,
 * aborted) in its own Node process with `--unhandled-rejections=strict`. It must exit 0 by itself
 * within {@link EXIT_BOUND_MS}, each failure typed, and no agent process group left.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, expect, it } from "vitest";
import { runStrictHost } from "./support/strict-host.js";

const HOST = join(import.meta.dirname, "host", "acp-list.mts");
const STAND_IN = fileURLToPath(new URL("../unit/acp/config-agent.mjs", import.meta.url));
const EXIT_BOUND_MS = 60_000;

const dir = mkdtempSync(join(tmpdir(), "cas-acp-list-host-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("ACP listSessions: success and every failure typed, no agent left, the host exits 0 by itself", async () => {
  const launcher = join(dir, "config-agent");
  writeFileSync(
    launcher,
    `#!${process.execPath}\nimport(${JSON.stringify(pathToFileURL(STAND_IN).href)});\n`,
  );
  chmodSync(launcher, 0o755);
  const run = await runStrictHost(HOST, [launcher], { label: "acp-list-host", boundMs: EXIT_BOUND_MS });
  expect(run.code, run.stderr).toBe(0);
  expect(run.last).toEqual({
    listed: `ok ${JSON.stringify([{ sessionId: "s-1", cwd: "/w" }])}`,
    undeclared: "UnsupportedFeatureError",
    exitsMidList: "ProcessError",
    neverAnswered: "ControlTimeoutError",
    aborted: "AbortError",
    groupsLeft: 0,
  });
  console.log(`acp-list-host | five listings | host exit ${run.exitMs} ms`);
});
