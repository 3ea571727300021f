/**
 * The worker's stream writer on a real redis-server (skipped, saying why, when absent): entries
 * added in one turn of the event loop go out as one XADD, in order, within the batch caps (entries
 * and characters), and a Redis that does not answer pauses the writer after a bounded window
 * instead of letting it buffer.
 */
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/index.js";
import { QueueKey } from "../../src/queue/auth.js";
import { decodeStreamEntry, MAX_BATCH_ENTRIES, type RunEntry } from "../../src/queue/entries.js";
import { MAX_BATCH_CHARS, StreamWriter } from "../../src/queue/stream-writer.js";
import { NO_REDIS_REASON, REDIS_SERVER, redisForSuite } from "./support/redis.js";

if (!REDIS_SERVER) console.warn(`[queue tests] skipped: ${NO_REDIS_REASON}`);

const note = (n: number, text = ""): Message => ({
  type: "system",
  subtype: "note",
  data: { n, text },
  raw: {},
});

/** Resolves after the event loop has gone round twice (setImmediate callbacks included). */
const twoTurns = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

describe.skipIf(!REDIS_SERVER)("a run's stream writer", () => {
  const suite = redisForSuite();
  let count = 0;

  const writer = (connection: Redis, key = `stream-writer:${process.pid}:${++count}`, signer?: QueueKey) =>
    new StreamWriter(connection, key, 1, 10_000, signer?.entries(key), (error) =>
      error instanceof Error ? error : new Error(String(error)),
    );

  /** Every stream entry of `key`: its fields and the entries it decodes to. */
  async function read(key: string) {
    const items = (await suite.raw.xrange(key, "-", "+")) as [string, string[]][];
    return items.map(([, fields]) => {
      const decoded = decodeStreamEntry(fields);
      if (!decoded.parts) throw new Error(decoded.problem);
      return { fields, entries: decoded.parts.map((part) => part.entry as RunEntry) };
    });
  }

  it("sends what one turn of the event loop adds as one XADD, in order, at most 64 entries to one", async () => {
    const stream = writer(suite.raw);
    const added: Promise<void>[] = [];
    for (let n = 0; n < 150; n++) added.push(stream.add({ kind: "message", message: note(n) }));
    await Promise.all(added);
    await stream.flush();
    await stream.add({ kind: "end", status: "completed" });
    await stream.flush();
    const entries = await read(stream.key);
    expect(entries.map((e) => e.entries.length)).toEqual([MAX_BATCH_ENTRIES, MAX_BATCH_ENTRIES, 22, 1]);
    expect(entries.flatMap((e) => e.entries).map((e) => e.seq)).toEqual([...Array(151).keys()]);
    expect(
      entries
        .flatMap((e) => e.entries)
        .slice(0, 150)
        .map((e) => (e.kind === "message" ? e.message : undefined)),
    ).toEqual([...Array(150).keys()].map((n) => note(n)));
  });

  it("an idle writer sends at the end of the turn; while an XADD is unanswered, later turns' entries wait and go out together", async () => {
    const connection = suite.raw.duplicate();
    const admin = suite.raw.duplicate();
    try {
      const stream = writer(connection);
      // Nothing unanswered: the entry goes out at the end of this turn, no flush needed.
      await stream.add({ kind: "message", message: note(0) });
      const first = (await suite.raw.xread("BLOCK", 10_000, "STREAMS", stream.key, "0-0")) as [
        string,
        [string, string[]][],
      ][];
      expect(first[0]![1]).toHaveLength(1);
      await connection.ping();
      await admin.client("PAUSE", 60_000, "WRITE");
      await stream.add({ kind: "message", message: note(1) });
      await twoTurns(); // sent, and not answered while Redis is paused
      await stream.add({ kind: "message", message: note(2) });
      await twoTurns();
      await stream.add({ kind: "message", message: note(3) });
      await twoTurns();
      await admin.client("UNPAUSE");
      await stream.flush();
      const entries = await read(stream.key);
      expect(entries.map((e) => e.entries.map((entry) => entry.seq))).toEqual([[0], [1], [2, 3]]);
    } finally {
      await admin.client("UNPAUSE").catch(() => {});
      connection.disconnect();
      admin.disconnect();
    }
  });

  it("keeps a batch within 64 KiB of JSON; an entry larger than that goes alone", async () => {
    const stream = writer(suite.raw);
    const text = (chars: number) => "x".repeat(chars);
    const sizes = [30_000, 30_000, 30_000, 100_000, 10, 10];
    const added = sizes.map((chars, n) => stream.add({ kind: "message", message: note(n, text(chars)) }));
    await Promise.all(added);
    await stream.flush();
    const entries = await read(stream.key);
    expect(entries.map((e) => e.entries.map((entry) => entry.seq))).toEqual([[0, 1], [2], [3], [4, 5]]);
    for (const { fields, entries: inside } of entries)
      if (inside.length > 1) expect(fields[7]!.length).toBeLessThanOrEqual(MAX_BATCH_CHARS);
  });

  it("MACs each batch with a queue key", async () => {
    const key = QueueKey.from("q".repeat(32))!;
    const name = `stream-writer:${process.pid}:${++count}`;
    const stream = writer(suite.raw, name, key);
    await Promise.all([1, 2, 3].map((n) => stream.add({ kind: "message", message: note(n) })));
    await stream.flush();
    const entries = await read(name);
    expect(entries).toHaveLength(1);
    expect(key.entries(name).verify(entries[0]!.fields)).toBe(true);
    expect(key.entries(`${name}:other`).verify(entries[0]!.fields)).toBe(false);
  });

  it("a Redis that does not answer stops add() after 16 batches in flight: the writer holds a bounded amount", async () => {
    const connection = suite.raw.duplicate();
    const admin = suite.raw.duplicate();
    try {
      const stream = writer(connection);
      const big = "y".repeat(MAX_BATCH_CHARS); // one entry fills a batch: each add() is one XADD
      await connection.ping();
      await admin.client("PAUSE", 60_000, "WRITE");
      const settled: boolean[] = [];
      const adds = Array.from({ length: StreamWriter.WINDOW + 3 }, (_, n) => {
        settled.push(false);
        return stream.add({ kind: "message", message: note(n, big) }).then(() => {
          settled[n] = true;
        });
      });
      // Nothing is answered while Redis is paused, so whatever has not resolved by now waits for
      // the window: an add() resolves while fewer than 16 batches are in flight.
      await twoTurns();
      expect(settled.filter(Boolean)).toHaveLength(StreamWriter.WINDOW - 1);
      expect(settled.slice(0, StreamWriter.WINDOW - 1).every(Boolean)).toBe(true);
      await admin.client("UNPAUSE");
      await Promise.all(adds);
      await stream.flush();
      const entries = await read(stream.key);
      expect(entries.flatMap((e) => e.entries.map((entry) => entry.seq))).toEqual([
        ...Array(StreamWriter.WINDOW + 3).keys(),
      ]);
    } finally {
      await admin.client("UNPAUSE").catch(() => {});
      connection.disconnect();
      admin.disconnect();
    }
  });
});
