/**
 * "Did you mean …?" for mistyped flags and values of `code-agent`.
 */

/**
 * The candidate closest to `input`, when one is close enough to be a likely typo: a unique
 * candidate that starts with `input`, else the nearest by edit distance (at most 2, and at most a
 * third of the length so short words do not match everything).
 */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  const lower = input.toLowerCase();
  const prefixed = candidates.filter((c) => c.toLowerCase().startsWith(lower));
  if (lower.length >= 2 && prefixed.length === 1) return prefixed[0];
  const limit = Math.min(2, Math.max(1, Math.floor(lower.length / 3)));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** Levenshtein distance, with an adjacent swap counting as one edit. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = value;
    }
  }
  return d[a.length]![b.length]!;
}
