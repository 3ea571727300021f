/**
 * The ACP client's fs/* and terminals in a host process of its own (host/client-fs-host.mts, under
 * `--unhandled-rejections=strict`): FIFOs in the workspace never freeze the host (libuv's pool
 * stays free for its own fs/crypto/DNS work, and it exits by itself), and concurrent reads of
 * large files do not each hold their file at once (peak RSS measured).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventually, isAlive, killQuietly } from "../../lifecycle/support/processes.js";
import { runStrictHost } from "../../lifecycle/support/strict-host.js";

const HOST = join(import.meta.dirname, "host", "client-fs-host.mts");
/** The memory scenario: how many files, of how many MiB each (also the whole-file limit). */
const FILES = 60;
const FILE_MIB = 8;
/** Far beyond what either scenario needs on a loaded machine; a frozen host never gets there. */
const EXIT_BOUND_MS = 45_000;

interface Run {
  code: number | null;
  exitMs: number;
  report: Record<string, unknown>;
}

async function runHost(scenario: string, ...args: string[]): Promise<Run> {
  const run = await runStrictHost(HOST, [scenario, ...args], { label: scenario, boundMs: EXIT_BOUND_MS });
  return { code: run.code, exitMs: run.exitMs, report: (run.last as { report: Run["report"] }).report };
}

describe("ACP client fs in a host process", () => {
  it("four reads and four writes of FIFOs are refused at once; the host's async crypto/fs/DNS completes and it exits by itself", {
    timeout: EXIT_BOUND_MS + 5_000,
  }, async () => {
    const run = await runHost("fifo");
    expect(run.code).toBe(0);
    expect(run.report).toMatchObject({
      reads: Array(4).fill("refused -32602"),
      writes: Array(4).fill("refused -32602"),
    });
    console.log(
      `acp client fs | 4 FIFO reads + 4 writes | host work ${run.report.hostMs} ms, host exit ${run.exitMs} ms`,
    );
  });

  it(`${FILES} concurrent reads of ${FILE_MIB} MiB files hold one file's worth of budget; peak RSS stays under half of what all of them take`, {
    timeout: EXIT_BOUND_MS + 5_000,
  }, async () => {
    const run = await runHost("memory", String(FILES), String(FILE_MIB));
    expect(run.code).toBe(0);
    expect(run.report.lengths).toEqual(Array(FILES).fill(FILE_MIB * 1024 * 1024));
    expect(run.report.budgetPeakMiB).toBe(FILE_MIB);
    // Unbounded (every read loading its file at once): ~FILES × FILE_MIB (486 MiB measured for 60 × 8).
    expect(run.report.peakRssOverBaselineMiB).toBeLessThan((FILES * FILE_MIB) / 2);
    console.log(
      `acp client fs | ${FILES} concurrent ${FILE_MIB} MiB reads | peak RSS +${run.report.peakRssOverBaselineMiB} MiB (all at once: ${FILES * FILE_MIB} MiB)`,
    );
  });

  it("a host that exits with a terminal running takes the terminal's setsid grandchild along", {
    timeout: EXIT_BOUND_MS + 5_000,
  }, async () => {
    const run = await runHost("terminal-at-exit");
    const sleeper = run.report.sleeper as number;
    expect(sleeper).toBeGreaterThan(0);
    const gone = await eventually(() => !isAlive(sleeper), 5_000);
    killQuietly(sleeper);
    expect(gone).toBe(true);
  });
});
