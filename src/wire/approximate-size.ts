/**
 * A cheap estimate of how much memory a parsed JSON value holds, for bounds on what is kept.
 */

/** Roughly how many bytes `value` holds (strings by length; deep structure by a fixed amount). */
export function approximateSize(value: unknown): number {
  return sizeOf(value, 0);
}

function sizeOf(value: unknown, depth: number): number {
  if (typeof value === "string") return 16 + value.length;
  if (typeof value !== "object" || value === null) return 8;
  // Deeper structure is rare in CLI output; it counts as a fixed amount rather than a long walk.
  if (depth >= 8) return 64;
  let size = 16;
  if (Array.isArray(value)) {
    for (const item of value) size += sizeOf(item, depth + 1);
  } else {
    for (const key in value) size += key.length + sizeOf((value as Record<string, unknown>)[key], depth + 1);
  }
  return size;
}
