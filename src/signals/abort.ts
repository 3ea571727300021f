/**
 * Abort-signal plumbing shared by `query()`, `AgentSdkClient` and the backends.
 */
import { AbortError, InvalidOptionsError } from "../errors.js";

/**
 * Checks an option that must be an `AbortSignal` (or absent). Anything else (`{}`, `{ aborted:
 * false }`, a controller instead of its signal) would reach Node's signal handling and fail there
 * with a bare `TypeError`, or be read as aborted when it is not.
 *
 * @throws InvalidOptionsError naming `name`.
 */
export function checkSignalOption(signal: unknown, name = "signal"): void {
  const issue = signalOptionIssue(signal, name);
  if (issue !== undefined) throw new InvalidOptionsError([issue]);
}

/** {@link checkSignalOption}'s finding as an issue line, or `undefined` when `signal` is fine. */
export function signalOptionIssue(signal: unknown, name = "signal"): string | undefined {
  if (signal === undefined) return undefined;
  let what = "an object whose prototype cannot be read";
  try {
    if (signal instanceof AbortSignal) return undefined;
    what = signal instanceof AbortController ? "an AbortController (pass its .signal)" : kindOf(signal);
  } catch {
    // A proxy whose traps throw: not a signal either.
  }
  return `${name}: must be an AbortSignal, got ${what}`;
}

/** What kind of value `value` is, for an error message, without printing the value. */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value;
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor
    ?.name;
  return typeof name === "string" && name !== "" && name !== "Object" ? `a ${name}` : "a plain object";
}

/**
 * A signal that aborts when `extra` or `user` (if given) aborts, with the reason of whichever fired
 * first. With no `user` signal, `extra` itself is returned.
 */
export function combineSignals(user: AbortSignal | undefined, extra: AbortSignal): AbortSignal {
  if (!user) return extra;
  if (typeof AbortSignal.any === "function") return AbortSignal.any([user, extra]);
  // Node < 20.3: forward by hand. The listeners go away with the signals.
  const controller = new AbortController();
  for (const signal of [user, extra]) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}

/** Throws the `AbortError` of an aborted `signal` (its reason as the cause); does nothing otherwise. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError("The operation was aborted", { cause: signal.reason });
}

/**
 * The error that ends a session whose signal fired: the signal's reason when that already is an
 * `AbortError` (so a caller's own abort error reaches readers unchanged), else one wrapping it.
 */
export function abortErrorFor(reason: unknown): AbortError {
  return reason instanceof AbortError
    ? reason
    : new AbortError("The operation was aborted", { cause: reason });
}
