/**
 * Calling a caller's {@link SessionStore}: whatever the store throws, rejects with or answers, the
 * SDK sees either a checked value or a {@link SessionStoreError} that names the call — never a bare
 * `TypeError` from bad data, and describing the failure never throws (the store may reject with a
 * BigInt, a circular or a null-prototype object: see `describeError` / `describeValue`).
 */
import { SessionStoreError } from "../../../errors.js";
import { abortErrorFor } from "../../../signals/abort.js";
import { describeError, describeValue, trySerialise } from "../../../wire/safe-json.js";
import type { SessionKey, SessionStoreEntry, SessionSummaryEntry } from "./store-types.js";

/** The store method a {@link SessionStoreError} is about. */
export type StoreOperation = SessionStoreError["operation"];

/** `for session <id>` (and its subpath): which key a store call was about, for messages. */
export function keyWhat(key: SessionKey): string {
  return `for session ${key.sessionId}${key.subpath !== undefined ? ` subpath ${key.subpath}` : ""}`;
}

/**
 * What the store threw or rejected with, as a {@link SessionStoreError} (`cause`: the value as
 * thrown). `what` says for which key, e.g. `for session <id>`.
 */
export function storeFailure(operation: StoreOperation, what: string, error: unknown): SessionStoreError {
  return new SessionStoreError(
    operation,
    `SessionStore.${operation}() failed ${what}: ${describeError(error)}`,
    {
      cause: error,
    },
  );
}

/** A store answer that is not what the interface says, as a {@link SessionStoreError}. */
export function badAnswer(operation: StoreOperation, what: string, problem: string): SessionStoreError {
  return new SessionStoreError(operation, `SessionStore.${operation}() ${what}: ${problem}`);
}

/**
 * The most time one call of a caller's store may take unless told otherwise (the session helpers'
 * calls; a resume from the store takes `loadTimeoutMs`, of the same default).
 */
export const DEFAULT_STORE_CALL_TIMEOUT_MS = 60_000;

const MAX_TIMER_MS = 2 ** 31 - 1;

/** How long one store call may take, and a signal that ends the wait. */
export interface StoreCallLimits {
  /** Default {@link DEFAULT_STORE_CALL_TIMEOUT_MS}. */
  timeoutMs?: number;
  signal?: AbortSignal | undefined;
}

/**
 * Runs one store call; a synchronous throw or a rejection becomes {@link storeFailure}. A call that
 * takes longer than `limits.timeoutMs` fails with a `SessionStoreError` whose `timedOut` is true (the
 * store's own promise is left to settle: a store cannot be cancelled); an abort of `limits.signal`
 * fails it with an `AbortError`.
 */
export async function callStore<T>(
  operation: StoreOperation,
  what: string,
  run: () => T | Promise<T>,
  limits: StoreCallLimits = {},
): Promise<T> {
  const { signal } = limits;
  const timeoutMs = limits.timeoutMs ?? DEFAULT_STORE_CALL_TIMEOUT_MS;
  if (signal?.aborted) throw abortErrorFor(signal.reason);
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const limit = new Promise<never>((_, reject) => {
    // Node fires a timer past 2^31 - 1 ms (Infinity included) after 1 ms: no time bound then.
    if (timeoutMs <= MAX_TIMER_MS) {
      timer = setTimeout(
        () =>
          reject(
            new SessionStoreError(
              operation,
              `SessionStore.${operation}() timed out after ${timeoutMs} ms ${what}`,
              {
                timedOut: true,
              },
            ),
          ),
        timeoutMs,
      );
    }
    if (signal) {
      onAbort = () => reject(abortErrorFor(signal.reason));
      signal.addEventListener("abort", onAbort, { once: true });
    }
  });
  const call = (async () => {
    try {
      return await run();
    } catch (error) {
      throw storeFailure(operation, what, error);
    }
  })();
  try {
    return await Promise.race([call, limit]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}

/** Runs `check` on an answer; whatever it throws that is not already typed becomes a SessionStoreError. */
function checking<T>(operation: StoreOperation, what: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof SessionStoreError) throw error;
    // A proxy whose traps throw, a getter that throws: still the store's bad answer.
    throw badAnswer(operation, what, `answered a value that cannot be read (${describeError(error)})`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `load()`'s answer: `null` (or `undefined`) for nothing stored, else an array of entry objects.
 * @throws SessionStoreError for anything else, naming the offending entry.
 */
export function checkedEntries(value: unknown, what: string): SessionStoreEntry[] | null {
  return checking("load", what, () => {
    if (value === null || value === undefined) return null;
    if (!Array.isArray(value)) {
      throw badAnswer(
        "load",
        what,
        `returned ${describeValue(value)} (expected an array of entries or null)`,
      );
    }
    for (let i = 0; i < value.length; i++) {
      if (!isRecord(value[i])) {
        throw badAnswer("load", what, `returned entry ${i} ${describeValue(value[i])} (expected an object)`);
      }
    }
    return value as SessionStoreEntry[];
  });
}

/**
 * Entries as the JSONL text of a transcript file.
 * @throws SessionStoreError (`load`) naming the first entry that has no JSON form (a BigInt, a cycle, …).
 */
export function entriesAsJsonl(entries: readonly unknown[], what: string): string {
  const lines: string[] = [];
  for (let i = 0; i < entries.length; i++) {
    const serialised = trySerialise(entries[i]);
    if (!serialised.ok) {
      throw badAnswer(
        "load",
        what,
        `returned entry ${i} that cannot be written as JSON (${serialised.problem})`,
      );
    }
    lines.push(`${serialised.line}\n`);
  }
  return lines.join("");
}

/**
 * `listSessions()`'s answer: an array of `{ sessionId: string, mtime: finite number }`, copied.
 * @throws SessionStoreError for anything else, naming the offending item.
 */
export function checkedListing(value: unknown, what: string): { sessionId: string; mtime: number }[] {
  return checking("listSessions", what, () => {
    if (!Array.isArray(value)) {
      throw badAnswer(
        "listSessions",
        what,
        `returned ${describeValue(value)} (expected an array of { sessionId, mtime })`,
      );
    }
    return value.map((item: unknown, i) => {
      const sessionId = isRecord(item) ? item.sessionId : undefined;
      const mtime = isRecord(item) ? item.mtime : undefined;
      if (
        typeof sessionId !== "string" ||
        sessionId === "" ||
        typeof mtime !== "number" ||
        !Number.isFinite(mtime)
      ) {
        throw badAnswer(
          "listSessions",
          what,
          `returned item ${i} ${describeValue(item)} (expected { sessionId: string, mtime: number })`,
        );
      }
      return { sessionId, mtime };
    });
  });
}

/**
 * `listSessionSummaries()`'s answer: an array of `{ sessionId, mtime, data: object }`, copied.
 * @throws SessionStoreError for anything else, naming the offending item.
 */
export function checkedSummaries(value: unknown, what: string): SessionSummaryEntry[] {
  return checking("listSessionSummaries", what, () => {
    if (!Array.isArray(value)) {
      throw badAnswer(
        "listSessionSummaries",
        what,
        `returned ${describeValue(value)} (expected an array of { sessionId, mtime, data })`,
      );
    }
    return value.map((item: unknown, i) => {
      const sessionId = isRecord(item) ? item.sessionId : undefined;
      const mtime = isRecord(item) ? item.mtime : undefined;
      const data = isRecord(item) ? item.data : undefined;
      if (
        typeof sessionId !== "string" ||
        sessionId === "" ||
        typeof mtime !== "number" ||
        !Number.isFinite(mtime) ||
        !isRecord(data)
      ) {
        throw badAnswer(
          "listSessionSummaries",
          what,
          `returned item ${i} ${describeValue(item)} (expected { sessionId: string, mtime: number, data: object })`,
        );
      }
      return { sessionId, mtime, data };
    });
  });
}

/**
 * `listSubkeys()`'s answer: an array of strings, without repeats.
 * @throws SessionStoreError for anything else, naming the offending item.
 */
export function checkedSubkeys(value: unknown, what: string): string[] {
  return checking("listSubkeys", what, () => {
    if (!Array.isArray(value)) {
      throw badAnswer(
        "listSubkeys",
        what,
        `returned ${describeValue(value)} (expected an array of subpaths)`,
      );
    }
    for (let i = 0; i < value.length; i++) {
      if (typeof value[i] !== "string") {
        throw badAnswer(
          "listSubkeys",
          what,
          `returned item ${i} ${describeValue(value[i])} (expected a string)`,
        );
      }
    }
    return [...new Set(value as string[])];
  });
}
