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
 * Deletes the keys of `value` whose value is `undefined` and returns the same object, so a parsed
 * message only carries what the wire carried (and `toEqual` against a fixture stays exact).
 */
export function compact<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key];
  return value;
}
