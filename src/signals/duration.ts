/**
 * Which durations a Node.js timer can take: the one check every duration option goes through
 * (the options schema, `SubprocessTransport`'s own options).
 */

/**
 * The longest delay a Node.js timer takes: 2^31−1 ms (about 24.8 days). A longer one is not an
 * error in Node, it fires after 1 ms, so every duration option is checked against it.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Why `value` is not an acceptable duration, or `undefined` when it is. */
export function durationProblem(
  value: number,
  infinity: "no limit" | "rejected",
  unit: string,
  max: number,
): string | undefined {
  if (value <= 0) return "must be greater than 0";
  if (value === Number.POSITIVE_INFINITY) {
    return infinity === "no limit" ? undefined : "must be finite (Infinity would let close() wait forever)";
  }
  if (value > max) {
    const instead = infinity === "no limit" ? "; use Infinity for no limit" : "";
    return `must be at most ${max} ${unit} (the longest delay a Node.js timer supports)${instead}`;
  }
  return undefined;
}

/**
 * The problem with a duration option outside the options object (e.g. `SubprocessTransport`'s),
 * as `"name: problem"`, or `undefined` when `value` is acceptable. Same rules as the schema's.
 */
export function durationIssue(
  name: string,
  value: unknown,
  infinity: "no limit" | "rejected",
): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || Number.isNaN(value)) return `${name}: expected a number of milliseconds`;
  const problem = durationProblem(value, infinity, "ms", MAX_TIMER_MS);
  return problem === undefined ? undefined : `${name}: ${problem}`;
}
