/**
 * Waiting on user code with a bound. The timer and the abort listener live exactly as long as the
 * wait: whichever of the work, the deadline or the signal settles it first, both are released, so
 * a callback that never settles cannot keep the host's event loop alive after the session closed.
 */

/** How {@link settleWithin} bounds a wait. */
export interface DeadlineOptions {
  /** After this long the wait rejects with `onTimeout()`'s error. `undefined` or `Infinity`: no limit. */
  timeoutMs?: number | undefined;
  /** Rejects the wait with `signal.reason` when it aborts (shutdown, cancellation). */
  signal?: AbortSignal | undefined;
  /** The error for an expired deadline (it may also abort whatever the work listens to). */
  onTimeout(): unknown;
  /**
   * Whether the deadline's timer keeps the event loop alive. Default true. False where something
   * else decides that (a session's process and pipes): a wait must not hold a host whose session
   * stopped holding it (a turn parked for an answer that may never come).
   */
  keepAlive?: boolean;
}

/**
 * `work`'s outcome, unless the deadline expires or `signal` aborts first. The work itself is not
 * stopped (it cannot be), only no longer waited for.
 */
export function settleWithin<T>(work: Promise<T>, options: DeadlineOptions): Promise<T> {
  const { timeoutMs, signal } = options;
  if (signal?.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const release = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    const onAbort = (): void => {
      release();
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs !== undefined && Number.isFinite(timeoutMs)) {
      timer = setTimeout(() => {
        release();
        let error: unknown;
        try {
          error = options.onTimeout();
        } catch (thrown) {
          error = thrown;
        }
        reject(error);
      }, timeoutMs);
      if (options.keepAlive === false) timer.unref();
    }
    work.then(
      (value) => {
        release();
        resolve(value);
      },
      (error: unknown) => {
        release();
        reject(error);
      },
    );
  });
}
