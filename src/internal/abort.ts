/**
 * Abort-signal plumbing shared by `query()` and `AgentSdkClient`.
 */

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
