/**
 * The transcript mirror on its own: keys from frame paths, batching, retry, timeouts and bounds.
 * Timings are shortened; every wait is on an event (an append call, an error report).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sessionKeyOf } from "../../../src/backends/claude/sessions/store-keys.js";
import type { SessionKey, SessionStoreEntry } from "../../../src/backends/claude/sessions/store-types.js";
import { type MirrorTimings, TranscriptMirror } from "../../../src/backends/claude/transcript-mirror.js";
import { SessionStoreError } from "../../../src/errors.js";

const PROJECTS = "/home/u/.claude/projects";
const SESSION = "0b0c6f4e-5a44-4e51-9a43-3f1d7f0c5a11";
const MAIN = join(PROJECTS, "-work-app", `${SESSION}.jsonl`);
const SUB = join(PROJECTS, "-work-app", SESSION, "subagents", "agent-a1.jsonl");

const entry = (n: number): SessionStoreEntry => ({ type: "user", uuid: `u${n}` });

/** A store whose appends are recorded, and answered by `answer` (default: at once). */
function recordingStore(answer: (call: number) => Promise<void> = async () => {}) {
  const calls: { key: SessionKey; entries: SessionStoreEntry[] }[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  return {
    calls,
    /** Resolves once `count` appends have been made. */
    appended(count: number): Promise<void> {
      if (calls.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    store: {
      append(key: SessionKey, entries: SessionStoreEntry[]) {
        calls.push({ key, entries });
        for (const w of waiters.filter((w) => calls.length >= w.count)) w.resolve();
        return answer(calls.length);
      },
      load: async () => null,
    },
  };
}

function mirrorOf(
  store: ReturnType<typeof recordingStore>["store"],
  flush: "batched" | "eager",
  timings: Partial<MirrorTimings> = {},
) {
  const errors: { key: SessionKey; error: string; typed: SessionStoreError }[] = [];
  let onError: (() => void) | undefined;
  const mirror = new TranscriptMirror(
    store,
    flush,
    PROJECTS,
    (key, error) => {
      errors.push({ key, error: error.message, typed: error });
      onError?.();
    },
    { batchMs: 60_000, backoffMs: [1, 1], ...timings },
  );
  const nextError = () => new Promise<void>((resolve) => (onError = resolve));
  return { mirror, errors, nextError };
}

describe("session keys from transcript paths", () => {
  it("maps main and subagent transcripts below projects/, and nothing else", () => {
    expect(sessionKeyOf(MAIN, PROJECTS)).toEqual({ projectKey: "-work-app", sessionId: SESSION });
    expect(sessionKeyOf(SUB, PROJECTS)).toEqual({
      projectKey: "-work-app",
      sessionId: SESSION,
      subpath: "subagents/agent-a1",
    });
    expect(
      sessionKeyOf(join(PROJECTS, "p", SESSION, "subagents", "workflows", "w1", "agent-b.jsonl"), PROJECTS),
    ).toEqual({
      projectKey: "p",
      sessionId: SESSION,
      subpath: "subagents/workflows/w1/agent-b",
    });
    expect(sessionKeyOf("/elsewhere/p/x.jsonl", PROJECTS)).toBeUndefined();
    expect(sessionKeyOf(join(PROJECTS, "p", "notes.txt"), PROJECTS)).toBeUndefined();
    expect(sessionKeyOf(join(PROJECTS, "p"), PROJECTS)).toBeUndefined();
    expect(sessionKeyOf(join(PROJECTS, "p", SESSION, "tool-results.jsonl"), PROJECTS)).toBeUndefined();
    expect(sessionKeyOf(PROJECTS, PROJECTS)).toBeUndefined();
  });
});

describe("TranscriptMirror", () => {
  it("batched: coalesces the frames of each key into one append, in order of first appearance", async () => {
    const rec = recordingStore();
    const { mirror } = mirrorOf(rec.store, "batched");
    mirror.enqueue(MAIN, [entry(1)]);
    mirror.enqueue(SUB, [entry(2)]);
    mirror.enqueue(MAIN, [entry(3), entry(4)]);
    expect(rec.calls).toEqual([]); // Nothing until the timer, a threshold or a flush.
    expect(await mirror.flushWithin(5_000)).toBe(true);
    expect(rec.calls.map((c) => [c.key.subpath ?? "main", c.entries.map((e) => e.uuid)])).toEqual([
      ["main", ["u1", "u3", "u4"]],
      ["subagents/agent-a1", ["u2"]],
    ]);
  });

  it("batched: appends when the timer fires or a threshold is crossed, without being asked", async () => {
    const timed = recordingStore();
    const { mirror: withTimer } = mirrorOf(timed.store, "batched", { batchMs: 5 });
    withTimer.enqueue(MAIN, [entry(1)]);
    await timed.appended(1);
    expect(timed.calls[0]?.entries).toEqual([entry(1)]);

    const counted = recordingStore();
    const { mirror } = mirrorOf(counted.store, "batched", { maxBatchEntries: 2 });
    mirror.enqueue(MAIN, [entry(1), entry(2)]);
    expect(counted.calls).toEqual([]);
    mirror.enqueue(MAIN, [entry(3)]);
    await counted.appended(1);
    expect(counted.calls[0]?.entries.map((e) => e.uuid)).toEqual(["u1", "u2", "u3"]);

    const sized = recordingStore();
    const { mirror: bySize } = mirrorOf(sized.store, "batched", { maxBatchBytes: 10 });
    bySize.enqueue(MAIN, [{ type: "user", text: "more than ten bytes" }]);
    await sized.appended(1);
  });

  it("eager: one append per frame, one at a time, in order", async () => {
    let inFlight = 0;
    let most = 0;
    const rec = recordingStore(async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await Promise.resolve();
      inFlight -= 1;
    });
    const { mirror } = mirrorOf(rec.store, "eager");
    for (let i = 0; i < 5; i++) mirror.enqueue(i % 2 ? SUB : MAIN, [entry(i)]);
    await mirror.flushWithin(5_000);
    expect(rec.calls.map((c) => c.entries[0]?.uuid)).toEqual(["u0", "u1", "u2", "u3", "u4"]);
    expect(most).toBe(1);
  });

  it("retries a rejected append: 3 attempts in all, then one mirror error; the next batch goes on", async () => {
    const flaky = recordingStore(async (call) => {
      if (call < 3) throw new Error(`down ${call}`);
    });
    const ok = mirrorOf(flaky.store, "eager");
    ok.mirror.enqueue(MAIN, [entry(1)]);
    await ok.mirror.flushWithin(5_000);
    expect(flaky.calls).toHaveLength(3);
    expect(ok.errors).toEqual([]);

    const down = recordingStore(async () => {
      throw new Error("store is down");
    });
    const failing = mirrorOf(down.store, "eager");
    failing.mirror.enqueue(MAIN, [entry(1)]);
    failing.mirror.enqueue(SUB, [entry(2)]);
    await failing.mirror.flushWithin(5_000);
    expect(down.calls).toHaveLength(6);
    expect(failing.errors.map((e) => [e.key.subpath, e.error])).toEqual([
      [undefined, "SessionStore.append() failed after 3 attempt(s): store is down"],
      ["subagents/agent-a1", "SessionStore.append() failed after 3 attempt(s): store is down"],
    ]);
  });

  it("a store rejecting with odd values (null-prototype, BigInt, cycle, revoked proxy, throwing toString) is a SessionStoreError, never an unhandled rejection", async () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const odd: unknown[] = [
      Object.create(null),
      10n,
      cycle,
      revoked.proxy,
      {
        toString() {
          throw new Error("no");
        },
      },
      undefined,
    ];
    for (const value of odd) {
      const store = recordingStore(() => Promise.reject(value));
      const { mirror, errors, nextError } = mirrorOf(store.store, "batched");
      const reported = nextError();
      mirror.enqueue(MAIN, [entry(1)]);
      // What the session does at the end of a turn: it must never leave a rejection behind.
      mirror.flushSoon();
      await reported;
      expect(store.calls).toHaveLength(3);
      expect(errors).toHaveLength(1);
      expect(errors[0]?.typed).toBeInstanceOf(SessionStoreError);
      expect(errors[0]?.typed.operation).toBe("append");
      expect(errors[0]?.typed.cause).toBe(value);
      expect(errors[0]?.error).toMatch(/^SessionStore\.append\(\) failed after 3 attempt\(s\): \S/);
      await mirror.close(5_000);
    }
  });

  it("does not retry an append that timed out (it may still land)", async () => {
    const hanging = recordingStore(() => new Promise<void>(() => {}));
    const { mirror, errors } = mirrorOf(hanging.store, "eager", { appendTimeoutMs: 20 });
    mirror.enqueue(MAIN, [entry(1)]);
    await mirror.flushWithin(5_000);
    expect(hanging.calls).toHaveLength(1);
    expect(errors[0]?.error).toMatch(/timed out after 20 ms \(not retried/);
  });

  it("holds at most maxPendingBytes for a slow store: drops beyond it, reports once, recovers", async () => {
    let release: () => void = () => {};
    const slow = recordingStore(
      (call) =>
        new Promise<void>((resolve) => {
          if (call === 1) release = resolve;
          else resolve();
        }),
    );
    const frame = [{ type: "user", text: "x".repeat(100) }];
    const bytes = JSON.stringify(frame).length;
    const { mirror, errors } = mirrorOf(slow.store, "eager", { maxPendingBytes: bytes * 3 });
    mirror.enqueue(MAIN, frame); // In flight, never answered until released.
    await slow.appended(1);
    mirror.enqueue(MAIN, frame);
    mirror.enqueue(MAIN, frame);
    expect(mirror.heldBytes).toBe(bytes * 3);
    for (let i = 0; i < 10; i++) mirror.enqueue(MAIN, frame); // All over the bound.
    expect(mirror.heldBytes).toBe(bytes * 3);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.error).toMatch(/too slow.*dropped until it catches up/);
    release();
    await mirror.flushWithin(5_000);
    expect(mirror.heldBytes).toBe(0);
    expect(slow.calls).toHaveLength(3);
    mirror.enqueue(MAIN, frame);
    await mirror.flushWithin(5_000);
    expect(slow.calls).toHaveLength(4);
    // One line bigger than the bound still goes when nothing else waits.
    mirror.enqueue(MAIN, [{ type: "user", text: "y".repeat(bytes * 5) }]);
    await mirror.flushWithin(5_000);
    expect(slow.calls).toHaveLength(5);
    expect(errors).toHaveLength(1);
  });

  it("close() waits for a hanging store only up to its deadline, reports what it abandons, then takes nothing", async () => {
    const hanging = recordingStore(() => new Promise<void>(() => {}));
    const { mirror, errors } = mirrorOf(hanging.store, "batched");
    mirror.enqueue(MAIN, [entry(1)]);
    mirror.enqueue(SUB, [entry(2)]);
    await mirror.close(20);
    expect(errors.map((e) => e.key.subpath)).toEqual([undefined, "subagents/agent-a1"]);
    expect(errors[0]?.error).toMatch(/had not finished 20 ms after the session closed/);
    mirror.enqueue(MAIN, [entry(3)]);
    expect(mirror.heldBytes).toBeGreaterThan(0); // Still the abandoned batches; nothing new.
    expect(hanging.calls).toHaveLength(1);
    // A store that throws synchronously is a failure like a rejection.
    const throwing = mirrorOf(
      {
        append: () => {
          throw new Error("sync");
        },
        load: async () => null,
      },
      "eager",
    );
    throwing.mirror.enqueue(MAIN, [entry(1)]);
    await throwing.mirror.close(5_000);
    expect(throwing.errors[0]?.error).toMatch(/3 attempt\(s\): sync/);
  });

  it("maps frames whose path names the projects directory through a symlink's target", async () => {
    const real = mkdtempSync(join(tmpdir(), "cas-mirror-real-"));
    const link = `${real}-link`;
    try {
      mkdirSync(join(real, "projects"));
      symlinkSync(real, link);
      const rec = recordingStore();
      const mirror = new TranscriptMirror(rec.store, "eager", join(link, "projects"), () => {});
      mirror.enqueue(join(real, "projects", "p", `${SESSION}.jsonl`), [entry(1)]);
      await mirror.flushWithin(5_000);
      expect(rec.calls.map((c) => c.key)).toEqual([{ projectKey: "p", sessionId: SESSION }]);
    } finally {
      rmSync(link, { force: true });
      rmSync(real, { recursive: true, force: true });
    }
  });

  it("ignores frames outside projects/ (with one warning) and malformed frames", async () => {
    const rec = recordingStore();
    const { mirror } = mirrorOf(rec.store, "eager");
    const warned = new Promise<Error>((resolve) => process.once("warning", resolve));
    mirror.enqueue("/tmp/other/p/s.jsonl", [entry(1)]);
    expect((await warned).message).toMatch(/not under/);
    mirror.enqueue(MAIN, "not a list");
    mirror.enqueue(42, [entry(1)]);
    mirror.enqueue(MAIN, []);
    await mirror.flushWithin(5_000);
    expect(rec.calls).toEqual([]);
  });
});
