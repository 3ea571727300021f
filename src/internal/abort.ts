/**
 * Abort-signal plumbing shared by `query()`, `AgentSdkClient` and the backends.
 */
import { AbortError } from "../errors.js";

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
