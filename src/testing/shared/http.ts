/**
 * Small `node:http` helpers shared by the fake API servers of `code-agent-sdk/testing`.
 *
 * @module
 */

import type { IncomingMessage } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Reads a request body completely. A client that goes away mid-body yields what arrived so far.
 *
 * @param req - The request.
 * @returns The raw body.
 */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch {
    // Client went away mid-body: treat what arrived as the body.
  }
  return Buffer.concat(chunks);
}

/**
 * Parses a JSON body leniently.
 *
 * @param raw - The raw body.
 * @returns `body` (`undefined` when empty or malformed) and whether it was malformed.
 */
export function parseJsonBody(raw: Buffer): { body: any; malformed: boolean } {
  if (raw.length === 0) return { body: undefined, malformed: false };
  try {
    return { body: JSON.parse(raw.toString("utf8")), malformed: false };
  } catch {
    return { body: undefined, malformed: true };
  }
}

/**
 * Waits `ms` milliseconds unless `signal` aborts first.
 *
 * @param ms - Delay; `<= 0` returns at once.
 * @param signal - Aborts the wait.
 * @returns True when the wait completed (and the signal is not aborted), false when aborted.
 */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (ms <= 0) return !signal.aborted;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/**
 * Calls a user predicate, treating a throw as "no match".
 *
 * @param predicate - The predicate.
 * @param value - The value to test.
 * @returns True only when the predicate returned exactly `true`.
 */
export function safeMatch<T>(predicate: (value: T) => boolean, value: T): boolean {
  try {
    return predicate(value) === true;
  } catch {
    return false;
  }
}

/**
 * Source text of a predicate for error messages, whitespace-collapsed and cut at 200 characters.
 *
 * @param predicate - Any function.
 * @returns Its description.
 */
export function describePredicate(predicate: (...args: never[]) => unknown): string {
  const src = predicate.toString().replace(/\s+/g, " ");
  return src.length > 200 ? `${src.slice(0, 200)}…` : src;
}
