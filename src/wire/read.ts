/**
 * Lenient readers for the JSON the CLIs print. Every backend maps wire objects whose fields come
 * and go between CLI releases; these turn an absent or ill-typed field into `undefined` (or `{}`)
 * instead of an exception, so one odd line never ends a session.
 */
import type { RawObject } from "../messages.js";

/** True for a plain JSON object: not `null`, not an array. */
export function isObject(value: unknown): value is RawObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` when it is a plain JSON object, else a new empty object. */
export function asObject(value: unknown): RawObject {
  return isObject(value) ? value : {};
}

/** `value` when it is a string, else `undefined`. */
export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** `value` when it is a finite number, else `undefined`. */
export function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/**
 * A copy of `value` without its `undefined` fields, so a parsed message only carries what the wire
 * carried (and `toEqual` against a fixture stays exact). Copies rather than deleting: a `delete`
 * turns an object into a slow dictionary-mode object.
 */
export function compact<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const field = value[key];
    if (field !== undefined) out[key] = field;
  }
  return out as T;
}
