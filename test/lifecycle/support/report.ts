/**
 * Time-to-settle bookkeeping for the lifecycle suite. Times are measured and reported, never
 * asserted beyond a generous "no hang" bound: wall time on shared CI machines is noise.
 *
 * Set LIFECYCLE_REPORT=1 to print a table after each file, or LIFECYCLE_REPORT=<path> to append one
 * JSON line per case to that file.
 */
import { appendFileSync } from "node:fs";
import { expect } from "vitest";

/** Any case that takes longer than this to settle counts as a hang. */
export const NO_HANG_MS = 10_000;

export interface SettleRow {
  backend: string;
  case: string;
  behaviour: string;
  settleMs: number;
  childrenLeft: number;
}

const rows: SettleRow[] = [];

/** Starts a stopwatch; the returned function gives the elapsed milliseconds. */
export function stopwatch(): () => number {
  const start = performance.now();
  return () => Math.round(performance.now() - start);
}

/**
 * Records one case and asserts the two guarantees every case shares: it settled (no hang) and
 * nothing it started is left running.
 */
export function settled(row: SettleRow, options: { allowLeft?: number } = {}): void {
  rows.push(row);
  expect(row.settleMs, `${row.case}: took ${row.settleMs} ms to settle`).toBeLessThan(NO_HANG_MS);
  expect(row.childrenLeft, `${row.case}: processes left running`).toBe(options.allowLeft ?? 0);
}

/** Prints or writes the rows recorded so far (see the module comment). */
export function flushReport(file: string): void {
  const target = process.env.LIFECYCLE_REPORT;
  if (!target || rows.length === 0) return;
  if (target === "1") {
    const lines = rows.map(
      (r) =>
        `${r.backend.padEnd(7)} ${r.case.padEnd(58)} ${String(r.settleMs).padStart(6)} ms  left=${r.childrenLeft}  ${r.behaviour}`,
    );
    console.log(`lifecycle settle times (${file}):\n${lines.join("\n")}`);
  } else {
    appendFileSync(target, rows.map((r) => `${JSON.stringify({ file, ...r })}\n`).join(""));
  }
  rows.length = 0;
}
