/**
 * The request journal shared by the fake API servers: every recorded request, the subset that consumed
 * a scripted turn, and `waitForRequest` waiters.
 *
 * @module
 */

import { describePredicate, safeMatch } from "./http.js";

/** Options for `waitForRequest`. */
export interface WaitForRequestOptions {
  /** Reject after this many milliseconds. Default 30000. */
  timeoutMs?: number;
  /** Also match requests that were already recorded (the first match wins). Default false. */
  includePast?: boolean;
}

/** The minimal shape of a recorded request (for error messages). */
export interface LoggableRequest {
  method: string;
  path: string;
  query: string;
}

interface Waiter<R> {
  predicate: (r: R) => boolean;
  resolve: (r: R) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/** A request journal; see {@link createRequestLog}. */
export interface RequestLog<R extends LoggableRequest> {
  /** Every request, in arrival order. */
  readonly requests: R[];
  /** Requests that consumed a scripted turn, in order. */
  readonly turnRequests: R[];
  /** Records a request (and, with `scripted`, as a turn request), then wakes matching waiters. */
  record(request: R, scripted: boolean): void;
  /** See the servers' `waitForRequest`. */
  waitFor(predicate: (r: R) => boolean, opts?: WaitForRequestOptions): Promise<R>;
  /** Rejects every pending waiter and every later `waitFor` call. Idempotent. */
  close(): void;
}

/**
 * Creates a request journal.
 *
 * @param label - Prefix of error messages, e.g. `fake-openai`.
 * @returns The journal.
 */
export function createRequestLog<R extends LoggableRequest>(label: string): RequestLog<R> {
  const requests: R[] = [];
  const turnRequests: R[] = [];
  const waiters = new Set<Waiter<R>>();
  let closed = false;
  return {
    requests,
    turnRequests,
    record(request: R, scripted: boolean): void {
      requests.push(request);
      if (scripted) turnRequests.push(request);
      for (const w of [...waiters]) {
        if (safeMatch(w.predicate, request)) {
          waiters.delete(w);
          clearTimeout(w.timer);
          w.resolve(request);
        }
      }
    },
    waitFor(predicate, opts = {}): Promise<R> {
      const { timeoutMs = 30_000, includePast = false } = opts;
      if (includePast) {
        const found = requests.find((r) => safeMatch(predicate, r));
        if (found) return Promise.resolve(found);
      }
      if (closed) {
        return Promise.reject(
          new Error(`${label}: server is closed (waiting for ${describePredicate(predicate)})`),
        );
      }
      return new Promise<R>((resolve, reject) => {
        const waiter: Waiter<R> = {
          predicate,
          resolve,
          reject,
          timer: setTimeout(() => {
            waiters.delete(waiter);
            const seen = requests.map((r) => `${r.method} ${r.path}${r.query}`).join(", ") || "none";
            reject(
              new Error(
                `${label}: timed out after ${timeoutMs} ms waiting for a request matching ${describePredicate(predicate)} (received ${requests.length}: ${seen})`,
              ),
            );
          }, timeoutMs),
        };
        waiters.add(waiter);
      });
    },
    close(): void {
      if (closed) return;
      closed = true;
      for (const w of [...waiters]) {
        waiters.delete(w);
        clearTimeout(w.timer);
        w.reject(
          new Error(
            `${label}: server closed while waiting for a request matching ${describePredicate(w.predicate)}`,
          ),
        );
      }
    },
  };
}
