/**
 * Summaries that hold up on a noisy 2-vCPU machine: medians, not means, and paired ratios — the
 * ratio is taken within each repetition (whose trials ran back to back under the same conditions)
 * and only then summarised, so a slow moment hits numerator and denominator alike.
 */

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median over repetitions of `combine(a[i], b[i])`, skipping repetitions where either is missing. */
export function pairedMedian(
  a: readonly (number | undefined)[],
  b: readonly (number | undefined)[],
  combine: (x: number, y: number) => number,
): number | undefined {
  const values: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x !== undefined && y !== undefined) {
      const v = combine(x, y);
      if (Number.isFinite(v)) values.push(v);
    }
  }
  return median(values);
}

export const ratio = (x: number, y: number): number => x / y;
export const difference = (x: number, y: number): number => x - y;
