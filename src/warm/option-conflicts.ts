/**
 * Which options of a query differ from the options a warm process was started with. A warm process
 * has its command line, environment and handshake fixed; a query that asks for something else must
 * not silently run with what the process was started with.
 */
import type { AgentOptions } from "../options.js";

/** Options a query may set on a warm process: they are not part of starting it. */
export const PER_QUERY_OPTIONS: ReadonlySet<keyof AgentOptions> = new Set<keyof AgentOptions>([
  "signal",
  "exitTimeoutMs",
]);

/**
 * The names of the options in `requested` that conflict with `warm`: set to a different value
 * than the warm process was started with. Options the query leaves out take the warm ones.
 * Functions and class instances compare by identity, plain objects and arrays by content.
 */
export function conflictingOptions(warm: AgentOptions, requested: AgentOptions): string[] {
  const conflicts: string[] = [];
  for (const key of Object.keys(requested) as (keyof AgentOptions)[]) {
    if (PER_QUERY_OPTIONS.has(key)) continue;
    const value = requested[key];
    if (value === undefined) continue;
    if (!sameValue(warm[key], value)) conflicts.push(key);
  }
  return conflicts;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) if (!sameValue(a[key], b[key])) return false;
    return true;
  }
  return false;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
