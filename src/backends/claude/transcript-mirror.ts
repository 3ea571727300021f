/**
 * Mirroring a session's transcript to a {@link SessionStore}: Claude Code started with
 * `--session-mirror` writes a `{"type":"transcript_mirror","filePath":…,"entries":[…]}` frame to
 * stdout after each local transcript write; this forwards the entries to `store.append`.
 *
 * The rules (the official SDK's, plus bounds it lacks):
 * - keys come from the frame's path below `<CLAUDE_CONFIG_DIR>/projects`;
 * - `batched`: frames are collected and appended every {@link MirrorTimings.batchMs}, at the end of
 *   a turn ({@link TranscriptMirror.flushSoon}), or as soon as 500 entries or 1 MiB are pending;
 *   entries of one file are coalesced into one `append`. `eager`: one `append` per frame;
 * - one `append` at a time, in order; a rejection is retried (3 attempts in all, 200 ms then
 *   800 ms apart); a call that does not settle within 60 s is not retried (it may still land).
 *   After the last failure the batch is dropped and `onError` reports it (a `mirror_error` message);
 * - nothing here ever waits on the store on the message path: a slow store delays only its own
 *   appends. What waits is bounded: at most {@link MirrorTimings.maxPendingBytes} (default 8 MiB)
 *   of entries not yet appended are held (or one frame, if it alone is bigger); a frame that would
 *   exceed it is dropped and reported (once per stretch of drops per key), and {@link TranscriptMirror.close} waits for the store at
 *   most its deadline, then reports what it abandons;
 * - whatever the store throws or rejects with (a null-prototype object, a BigInt, a cycle) is
 *   described without throwing, and nothing here ever leaves a rejection unhandled: a failure is
 *   a {@link SessionStoreError} given to `onError`, never a crash of the host.
 */

import { realpathSync } from "node:fs";
import { SessionStoreError } from "../../errors.js";
import { describeError } from "../../wire/safe-json.js";
import { keyWhat, storeFailure } from "./sessions/store-calls.js";
import { keyText, sessionKeyOf } from "./sessions/store-keys.js";
import type {
  SessionKey,
  SessionStore,
  SessionStoreEntry,
  SessionStoreFlush,
} from "./sessions/store-types.js";

/** Timings and bounds of a {@link TranscriptMirror}; the defaults are the official SDK's where it has them. */
export interface MirrorTimings {
  /** Longest a pending entry waits in `batched` mode before it is appended. Default 100 ms. */
  batchMs: number;
  /** Pending entries that trigger an append at once in `batched` mode. Default 500. */
  maxBatchEntries: number;
  /** Pending bytes (JSON) that trigger an append at once in `batched` mode. Default 1 MiB. */
  maxBatchBytes: number;
  /** Bytes held for the store at most (pending plus in flight); more is dropped. Default 8 MiB. */
  maxPendingBytes: number;
  /** How long one `append` may take; it is then given up and not retried. Default 60 s. */
  appendTimeoutMs: number;
  /** Waits before the 2nd and 3rd attempt. Default `[200, 800]`. */
  backoffMs: readonly number[];
}

/** The official SDK's timings, with this SDK's memory bound. */
export const DEFAULT_MIRROR_TIMINGS: MirrorTimings = {
  batchMs: 100,
  maxBatchEntries: 500,
  maxBatchBytes: 1 << 20,
  maxPendingBytes: 8 << 20,
  appendTimeoutMs: 60_000,
  backoffMs: [200, 800],
};

/** How long closing a session waits for the store to take what is pending. */
export const MIRROR_CLOSE_TIMEOUT_MS = 5_000;

interface Batch {
  key: SessionKey;
  entries: SessionStoreEntry[];
  bytes: number;
}

/** Forwards `transcript_mirror` frames to a store; see the module comment for the rules. */
export class TranscriptMirror {
  private readonly timings: MirrorTimings;
  private pending: Batch[] = [];
  private pendingEntries = 0;
  private pendingBytes = 0;
  /** Bytes of the batches handed to the append chain that have not started yet. */
  private queuedBytes = 0;
  /** Bytes of the batches being appended now. */
  private inFlightBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The append chain: each drain runs after the previous one. */
  private chain: Promise<void> = Promise.resolve();
  /** Keys whose frames are being dropped for the bound (reported once until it clears). */
  private readonly overflowing = new Set<string>();
  private warnedOutside = false;
  private closed = false;

  /**
   * @param store Where entries go.
   * @param flush `batched` or `eager` (see {@link SessionStoreFlush}).
   * @param projectsDir `<CLAUDE_CONFIG_DIR>/projects` of the CLI process, which frame paths are under.
   * @param onError Told of every batch that was lost, with the key and why (`operation: "append"`).
   */
  constructor(
    private readonly store: SessionStore,
    private readonly flush: SessionStoreFlush,
    private readonly projectsDir: string,
    private readonly onError: (key: SessionKey, error: SessionStoreError) => void,
    timings: Partial<MirrorTimings> = {},
  ) {
    this.timings = { ...DEFAULT_MIRROR_TIMINGS, ...timings };
  }

  /** Bytes held for the store now (pending and in flight). */
  get heldBytes(): number {
    return this.pendingBytes + this.queuedBytes + this.inFlightBytes;
  }

  /** Takes one frame's entries; never waits. Ignored once closed. */
  enqueue(filePath: unknown, entries: unknown): void {
    if (this.closed || typeof filePath !== "string" || !Array.isArray(entries) || entries.length === 0)
      return;
    const key = sessionKeyOf(filePath, this.projectsDir) ?? sessionKeyOf(filePath, this.realProjectsDir());
    if (key === undefined) {
      this.warnOutside(filePath);
      return;
    }
    const batch: Batch = {
      key,
      entries: entries as SessionStoreEntry[],
      bytes: JSON.stringify(entries).length,
    };
    const id = keyText(key);
    // A single frame bigger than the bound still goes when nothing else waits: the bound is on
    // what piles up behind a slow store, not on the size of one transcript line.
    if (this.heldBytes > 0 && this.heldBytes + batch.bytes > this.timings.maxPendingBytes) {
      if (!this.overflowing.has(id)) {
        this.overflowing.add(id);
        this.report(
          key,
          new SessionStoreError(
            "append",
            `the store is too slow: ${this.heldBytes} bytes are still waiting for SessionStore.append() ` +
              `(bound ${this.timings.maxPendingBytes}); transcript entries are dropped until it catches up`,
          ),
        );
      }
      return;
    }
    this.overflowing.delete(id);
    this.pending.push(batch);
    this.pendingEntries += batch.entries.length;
    this.pendingBytes += batch.bytes;
    if (
      this.flush === "eager" ||
      this.pendingEntries > this.timings.maxBatchEntries ||
      this.pendingBytes > this.timings.maxBatchBytes
    ) {
      this.flushSoon();
    } else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flushSoon(), this.timings.batchMs);
      // Pending mirror work never keeps the host alive by itself; close() flushes it.
      this.timer.unref();
    }
  }

  /** Starts appending what is pending (end of a turn, a threshold, the timer); never waits. */
  flushSoon(): void {
    // drain() never rejects; the catch is the guarantee that nothing here is ever unhandled.
    this.drain().catch(() => undefined);
  }

  /**
   * Appends what is pending and resolves when every append so far has settled, or after
   * `timeoutMs`, whichever is first. Never rejects.
   */
  async flushWithin(timeoutMs: number): Promise<boolean> {
    const done = this.drain();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([done.then(() => true), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Stops taking frames, appends what is pending and waits for the store at most `timeoutMs`. What
   * has not been appended by then is reported through `onError` (and may still land later: the
   * store's promises are left to settle on their own). Every call returns the first call's promise.
   */
  close(timeoutMs = MIRROR_CLOSE_TIMEOUT_MS): Promise<void> {
    this.closing ??= this.closeWithin(timeoutMs);
    return this.closing;
  }

  private closing: Promise<void> | undefined;

  private async closeWithin(timeoutMs: number): Promise<void> {
    this.closed = true;
    const settled = await this.flushWithin(timeoutMs);
    if (!settled) {
      const waiting = new Map<string, SessionKey>();
      for (const batch of [...this.inFlight, ...this.queued, ...this.pending])
        waiting.set(keyText(batch.key), batch.key);
      for (const key of waiting.values()) {
        this.report(
          key,
          new SessionStoreError(
            "append",
            `SessionStore.append() had not finished ${timeoutMs} ms after the session closed; ` +
              "its entries may be missing from the store",
            { timedOut: true },
          ),
        );
      }
    }
  }

  private inFlight: Batch[] = [];
  /** The batches of {@link queuedBytes}, oldest first. */
  private readonly queued: Batch[] = [];

  private drain(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batches = this.pending;
    if (batches.length > 0) {
      const bytes = this.pendingBytes;
      this.pending = [];
      this.pendingEntries = 0;
      this.pendingBytes = 0;
      this.queuedBytes += bytes;
      this.queued.push(...batches);
      this.chain = this.chain
        .then(() => {
          this.queuedBytes -= bytes;
          this.queued.splice(0, batches.length);
          return this.appendAll(batches);
        })
        .catch((error: unknown) => {
          // appendAll reports its own failures; this is the last line for a bug, so that one
          // failure neither crashes the host nor stops every later append.
          this.inFlight = [];
          this.inFlightBytes = 0;
          for (const batch of batches)
            this.report(batch.key, storeFailure("append", keyWhat(batch.key), error));
        });
    }
    return this.chain;
  }

  /** Appends batches in order; `batched` coalesces the entries of one key into one call. */
  private async appendAll(batches: Batch[]): Promise<void> {
    const calls: Batch[] = [];
    if (this.flush === "eager") calls.push(...batches);
    else {
      const byKey = new Map<string, Batch>();
      for (const batch of batches) {
        const id = keyText(batch.key);
        const seen = byKey.get(id);
        if (seen === undefined) {
          const copy = { key: batch.key, entries: [...batch.entries], bytes: batch.bytes };
          byKey.set(id, copy);
          calls.push(copy);
        } else {
          seen.entries.push(...batch.entries);
          seen.bytes += batch.bytes;
        }
      }
    }
    this.inFlight = calls.slice();
    this.inFlightBytes = calls.reduce((sum, b) => sum + b.bytes, 0);
    for (const call of calls) {
      await this.appendWithRetry(call);
      this.inFlight.shift();
      this.inFlightBytes -= call.bytes;
    }
  }

  private async appendWithRetry(batch: Batch): Promise<void> {
    const attempts = this.timings.backoffMs.length + 1;
    let lastError: SessionStoreError | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const outcome = await this.appendOnce(batch);
      if (outcome === "ok") return;
      if (outcome === "timeout") {
        lastError = new SessionStoreError(
          "append",
          `SessionStore.append() timed out after ${this.timings.appendTimeoutMs} ms (not retried: it may still land)`,
          { timedOut: true },
        );
        break;
      }
      lastError = new SessionStoreError(
        "append",
        `SessionStore.append() failed after ${attempt} attempt(s): ${describeError(outcome.failure)}`,
        { cause: outcome.failure },
      );
      const wait = this.timings.backoffMs[attempt - 1];
      if (wait === undefined) break;
      await delay(wait);
    }
    if (lastError !== undefined) this.report(batch.key, lastError);
  }

  private async appendOnce(batch: Batch): Promise<"ok" | "timeout" | { failure: unknown }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), this.timings.appendTimeoutMs);
      timer.unref();
    });
    try {
      return await Promise.race([
        Promise.resolve()
          // The store may throw synchronously or return a non-promise: both are its answer.
          .then(() => this.store.append(batch.key, batch.entries))
          .then(
            () => "ok" as const,
            // Kept as thrown: it is described (never throwing) only if it is the last failure.
            (failure: unknown) => ({ failure }),
          ),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private report(key: SessionKey, error: SessionStoreError): void {
    try {
      this.onError(key, error);
    } catch {
      // The reporter belongs to the session; a failure there must not stop the mirror.
    }
  }

  private resolvedProjectsDir: string | undefined;

  /** `projectsDir` with symlinks resolved (the CLI may report real paths, e.g. `/private/tmp`). */
  private realProjectsDir(): string {
    if (this.resolvedProjectsDir !== undefined) return this.resolvedProjectsDir;
    try {
      this.resolvedProjectsDir = realpathSync(this.projectsDir);
      return this.resolvedProjectsDir;
    } catch {
      return this.projectsDir; // Not there yet: try again with the next frame.
    }
  }

  private warnOutside(filePath: string): void {
    if (this.warnedOutside) return;
    this.warnedOutside = true;
    process.emitWarning(
      `sessionStore: a transcript_mirror frame for ${filePath} is not under ${this.projectsDir}; ` +
        "frames outside it are dropped (does the CLI run with another CLAUDE_CONFIG_DIR?)",
      { code: "CODE_AGENT_SDK_MIRROR_PATH" },
    );
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
