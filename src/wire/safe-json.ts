/**
 * Serialising and describing values that come from user code (callback answers, thrown values)
 * without ever throwing: a BigInt, a circular reference, a 100 000-level nesting or an object whose
 * `toString` throws must become an error answer to the CLI, never an exception on a path that has
 * nobody to catch it (which would take the host process down).
 */

/** The outcome of {@link trySerialise}: the JSON line, or why there is none. */
export type Serialised = { ok: true; line: string } | { ok: false; problem: string };

/**
 * `JSON.stringify(value)`, as a value instead of an exception. `problem` says what could not be
 * serialised (a BigInt, a circular reference, nesting too deep, a throwing `toJSON`, …).
 */
export function trySerialise(value: unknown): Serialised {
  try {
    const line = JSON.stringify(value);
    if (typeof line !== "string") return { ok: false, problem: `${typeOf(value)} has no JSON form` };
    return { ok: true, line };
  } catch (error) {
    return { ok: false, problem: serialisationProblem(error) };
  }
}

/** What a `JSON.stringify` failure means, in words a caller can act on. */
function serialisationProblem(error: unknown): string {
  const message = describeError(error);
  if (error instanceof RangeError) return `it is nested too deeply to serialise (${message})`;
  if (/BigInt/i.test(message)) return `it contains a BigInt, which JSON cannot represent (${message})`;
  if (/circular/i.test(message)) return `it contains a circular reference (${message})`;
  return `serialising it failed: ${message}`;
}

/**
 * A one-line description of a thrown value that never throws itself: an `Error`'s message, a
 * string as is, anything else through `String()`, and a fixed text for a value even that fails on
 * (`Object.create(null)`, a revoked proxy, a throwing `toString`).
 */
export function describeError(error: unknown): string {
  try {
    if (error instanceof Error) {
      const message = error.message;
      return typeof message === "string" && message !== "" ? message : safeString(error);
    }
  } catch {
    // A proxy whose traps throw: fall through to the generic description.
  }
  return safeString(error);
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return `an unprintable ${typeOf(value)} value`;
  }
}

function typeOf(value: unknown): string {
  try {
    if (value === null) return "null";
    if (typeof value !== "object") return typeof value;
    const proto = Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null;
    const name = proto?.constructor?.name;
    return typeof name === "string" && name !== "" ? name : "prototype-less object";
  } catch {
    return "object";
  }
}

/** `value` as JSON for a message, or a short description when it has none (never throws). */
export function describeValue(value: unknown): string {
  if (value === undefined) return "undefined";
  const serialised = trySerialise(value);
  if (serialised.ok)
    return serialised.line.length > 200 ? `${serialised.line.slice(0, 200)}…` : serialised.line;
  return `${typeOf(value)} (${serialised.problem})`;
}
