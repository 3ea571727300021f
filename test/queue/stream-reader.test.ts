/**
 * The producer's stream reader on a real redis-server (skipped, saying why, when absent): the reads
 * of many runs wait in one blocking XREAD on one connection, a read added while it blocks is
 * answered at once (the wake), reads of one stream at different positions each get what they lack,
 * each read times out on its own, holds at most READ_COUNT entries, and closing rejects the waiting.
 */
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { compareIds, LANE_READS, READ_COUNT, StreamReader } from "../../src/queue/stream-reader.js";
import { NO_REDIS_REASON, REDIS_SERVER, redisForSuite } from "./support/redis.js";

if (!REDIS_SERVER) console.warn(`[queue tests] skipped: ${NO_REDIS_REASON}`);

describe("stream ids", () => {
  it("orders by milliseconds, then sequence, as numbers (beyond 2^53 too)", () => {
    expect(compareIds("2-0", "10-0")).toBeLessThan(0);
    expect(compareIds("10-2", "10-10")).toBeLessThan(0);
    expect(compareIds("10-10", "10-10")).toBe(0);
    expect(compareIds("18446744073709551615-1", "18446744073709551614-9")).toBeGreaterThan(0);
    expect(compareIds("0-0", "1-0")).toBeLessThan(0);
  });
});

describe.skipIf(!REDIS_SERVER)("the producer's stream reader", () => {
  const suite = redisForSuite();
  let count = 0;

  const open = () => {
    const id = ++count;
    const name = `reader-${id}-`;
    const connections: Redis[] = [];
    const reader = new StreamReader(
      () => {
        const connection = new Redis(suite.server.url, { connectionName: `${name}${connections.length}` });
        connections.push(connection);
        return connection;
      },
      suite.raw,
      (lane) => `reader-test:${id}:wake:${lane}`,
    );
    return {
      reader,
      connections,
      /** Resolves once `n` of the reader's connections are blocked in XREAD (asked, not slept for). */
      blocked: (n: number) => clients(name, (c) => c.filter((line) => / flags=b /.test(line)).length === n),
      /** Resolves once `n` of its connections are open. */
      open: (n: number) => clients(name, (c) => c.length === n),
      key: (k: string | number) => `reader-test:${id}:${k}`,
      [Symbol.dispose]: () => {
        for (const connection of connections) connection.disconnect();
      },
    };
  };

  /** Resolves once the client list lines of connections named `name…` pass `test`. */
  async function clients(name: string, test: (lines: string[]) => boolean): Promise<void> {
    for (;;) {
      const lines = String(await suite.raw.client("LIST")).split("\n");
      if (test(lines.filter((line) => line.includes(` name=${name}`)))) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  const ids = (items: [string, unknown][] | null) => items?.map(([id]) => id) ?? null;

  it(`waits for a hundred streams in one blocked XREAD per ${LANE_READS} and gives each read its own entries`, async () => {
    using r = open();
    const { reader, key } = r;
    const reads = Array.from({ length: 100 }, (_, i) => reader.read(key(i), "0-0", 600_000));
    await r.blocked(Math.ceil(100 / LANE_READS));
    expect(r.connections).toHaveLength(Math.ceil(100 / LANE_READS));
    const added = await Promise.all(
      Array.from({ length: 100 }, (_, i) => suite.raw.xadd(key(i), "*", "n", String(i))),
    );
    const got = await Promise.all(reads);
    got.forEach((items, i) => {
      expect(ids(items)).toEqual([added[i]]);
      expect(items?.[0]?.[1]).toEqual(["n", String(i)]);
    });
    // idle, it keeps two connections for later reads and closes the others
    await r.open(2);
    const again = await Promise.all(
      Array.from({ length: 40 }, (_, i) => reader.read(key(i), "0-0", 600_000)),
    );
    expect(again.map(ids)).toEqual(added.slice(0, 40).map((id) => [id]));
  });

  it("answers a read added while the XREAD blocks at once, not when the block ends", async () => {
    using r = open();
    const { reader, key } = r;
    const first = reader.read(key("a"), "0-0", 600_000);
    await r.blocked(1);
    const second = reader.read(key("b"), "0-0", 600_000);
    const id = await suite.raw.xadd(key("b"), "*", "x", "1");
    expect(ids(await second)).toEqual([id]); // the test's timeout (far below 600 s) is the bound
    // an entry written before its read started is there too
    const before = await suite.raw.xadd(key("c"), "*", "x", "2");
    expect(ids(await reader.read(key("c"), "0-0", 600_000))).toEqual([before]);
    const late = await suite.raw.xadd(key("a"), "*", "x", "3");
    expect(ids(await first)).toEqual([late]);
  });

  it("gives reads of one stream at different positions what each lacks", async () => {
    using r = open();
    const { reader, key } = r;
    const written: string[] = [];
    for (let i = 0; i < 3; i++) written.push((await suite.raw.xadd(key("s"), "*", "i", String(i))) as string);
    const [all, rest] = await Promise.all([
      reader.read(key("s"), "0-0", 600_000),
      reader.read(key("s"), written[0] as string, 600_000),
    ]);
    expect(ids(all)).toEqual(written);
    expect(ids(rest)).toEqual(written.slice(1));
    // one ahead of the XREAD in flight is not answered with what it has already
    const behind = reader.read(key("t"), "0-0", 600_000);
    await r.blocked(1);
    const t1 = (await suite.raw.xadd(key("t"), "*", "i", "1")) as string;
    const ahead = reader.read(key("t"), t1, 600_000);
    expect(ids(await behind)).toEqual([t1]);
    const t2 = await suite.raw.xadd(key("t"), "*", "i", "2");
    expect(ids(await ahead)).toEqual([t2]);
  });

  it("times each read out on its own and keeps the others waiting", async () => {
    using r = open();
    const { reader, key } = r;
    const patient = reader.read(key("p"), "0-0", 600_000);
    expect(await reader.read(key("q"), "0-0", 30)).toBeNull();
    expect(await reader.read(key("p"), "0-0", 1)).toBeNull();
    const id = await suite.raw.xadd(key("p"), "*", "x", "1");
    expect(ids(await patient)).toEqual([id]);
  });

  it(`gives a read at most ${READ_COUNT} entries: a reader that does not come back holds no more`, async () => {
    using r = open();
    const { reader, key } = r;
    const written: string[] = [];
    for (let i = 0; i < 100; i++)
      written.push((await suite.raw.xadd(key("big"), "*", "i", String(i))) as string);
    const first = await reader.read(key("big"), "0-0", 600_000);
    expect(ids(first)).toEqual(written.slice(0, READ_COUNT));
    const next = await reader.read(key("big"), written[READ_COUNT - 1] as string, 600_000);
    expect(ids(next)).toEqual(written.slice(READ_COUNT, 2 * READ_COUNT));
  });

  it("replaces a lane whose connection gave up: its reads fail, later ones read on a new one", async () => {
    using r = open();
    const { reader, key } = r;
    const first = reader.read(key("d"), "0-0", 600_000);
    await r.blocked(1);
    r.connections[0]?.disconnect(); // how a connection that gave up on Redis ends
    await expect(first).rejects.toThrow(/Connection is closed/);
    const id = await suite.raw.xadd(key("d"), "*", "x", "1");
    expect(ids(await reader.read(key("d"), "0-0", 600_000))).toEqual([id]);
    expect(r.connections).toHaveLength(2);
  });

  it("rejects the waiting reads and later ones with the error it is closed with, and disconnects", async () => {
    using r = open();
    const { reader, key } = r;
    const waiting = reader.read(key("w"), "0-0", 600_000);
    await r.blocked(1);
    const error = new Error("closed");
    reader.close(error);
    await expect(waiting).rejects.toBe(error);
    await expect(reader.read(key("w"), "0-0", 600_000)).rejects.toBe(error);
    await r.open(0);
  });

  it("fails only the reads of a key that is not a stream; the others read on", async () => {
    using r = open();
    const { reader, key } = r;
    await suite.raw.set(key("str"), "not a stream");
    const wrong = reader.read(key("str"), "0-0", 600_000);
    const fine = reader.read(key("ok"), "0-0", 600_000);
    await expect(wrong).rejects.toThrow(/WRONGTYPE/);
    const id = await suite.raw.xadd(key("ok"), "*", "x", "1");
    expect(ids(await fine)).toEqual([id]);
    expect(ids(await reader.read(key("ok"), "0-0", 600_000))).toEqual([id]);
  });
});
