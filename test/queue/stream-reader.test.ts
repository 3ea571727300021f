/**
 * The producer's stream reader on a real redis-server (skipped, saying why, when absent): the reads
 * of many runs wait in one blocking XREAD on one connection, a read added while it blocks is
 * answered at once (the wake), reads of one stream at different positions each get what they lack,
 * each read times out on its own, holds at most READ_COUNT entries, and closing rejects the waiting.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareIds, READ_COUNT, StreamReader } from "../../src/queue/stream-reader.js";
import { NO_REDIS_REASON, REDIS_SERVER, startRedis, type TestRedis } from "./support/redis.js";

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
  let redis: TestRedis;
  let raw: Redis;
  let count = 0;
  beforeAll(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
  });
  afterAll(async () => {
    raw?.disconnect();
    await redis?.[Symbol.asyncDispose]();
  });

  const open = () => {
    const id = ++count;
    const connection = new Redis(redis.url, { connectionName: `reader-${id}` });
    const reader = new StreamReader(connection, raw, `reader-test:${id}:wake`);
    return { reader, connection, key: (name: string | number) => `reader-test:${id}:${name}` };
  };

  /** Resolves once the reader's connection is blocked in XREAD, or no longer (asked, not slept for). */
  async function blocked(connection: Redis, yes = true): Promise<void> {
    const name = connection.options.connectionName;
    for (;;) {
      const clients = String(await raw.client("LIST")).split("\n");
      const line = clients.find((c) => c.includes(` name=${name} `));
      if ((line !== undefined && / flags=b /.test(line)) === yes) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  const ids = (items: [string, unknown][] | null) => items?.map(([id]) => id) ?? null;

  it("waits for a hundred streams in one blocked XREAD and gives each read its own entries", async () => {
    const { reader, connection, key } = open();
    try {
      const reads = Array.from({ length: 100 }, (_, i) => reader.read(key(i), "0-0", 600_000));
      await blocked(connection);
      const added = await Promise.all(
        Array.from({ length: 100 }, (_, i) => raw.xadd(key(i), "*", "n", String(i))),
      );
      const got = await Promise.all(reads);
      got.forEach((items, i) => {
        expect(ids(items)).toEqual([added[i]]);
        expect(items?.[0]?.[1]).toEqual(["n", String(i)]);
      });
      const clients = await raw.client("LIST");
      expect(String(clients).match(/name=reader-\d+ /g)).toHaveLength(1);
    } finally {
      connection.disconnect();
    }
  });

  it("answers a read added while the XREAD blocks at once, not when the block ends", async () => {
    const { reader, connection, key } = open();
    try {
      const first = reader.read(key("a"), "0-0", 600_000);
      await blocked(connection);
      const second = reader.read(key("b"), "0-0", 600_000);
      const id = await raw.xadd(key("b"), "*", "x", "1");
      expect(ids(await second)).toEqual([id]); // the test's timeout (far below 600 s) is the bound
      // an entry written before its read started is there too
      const before = await raw.xadd(key("c"), "*", "x", "2");
      expect(ids(await reader.read(key("c"), "0-0", 600_000))).toEqual([before]);
      const late = await raw.xadd(key("a"), "*", "x", "3");
      expect(ids(await first)).toEqual([late]);
    } finally {
      connection.disconnect();
    }
  });

  it("gives reads of one stream at different positions what each lacks", async () => {
    const { reader, connection, key } = open();
    try {
      const written: string[] = [];
      for (let i = 0; i < 3; i++) written.push((await raw.xadd(key("s"), "*", "i", String(i))) as string);
      const [all, rest] = await Promise.all([
        reader.read(key("s"), "0-0", 600_000),
        reader.read(key("s"), written[0] as string, 600_000),
      ]);
      expect(ids(all)).toEqual(written);
      expect(ids(rest)).toEqual(written.slice(1));
      // one ahead of the XREAD in flight is not answered with what it has already
      const behind = reader.read(key("t"), "0-0", 600_000);
      await blocked(connection);
      const t1 = (await raw.xadd(key("t"), "*", "i", "1")) as string;
      const ahead = reader.read(key("t"), t1, 600_000);
      expect(ids(await behind)).toEqual([t1]);
      const t2 = await raw.xadd(key("t"), "*", "i", "2");
      expect(ids(await ahead)).toEqual([t2]);
    } finally {
      connection.disconnect();
    }
  });

  it("times each read out on its own and keeps the others waiting", async () => {
    const { reader, connection, key } = open();
    try {
      const patient = reader.read(key("p"), "0-0", 600_000);
      expect(await reader.read(key("q"), "0-0", 30)).toBeNull();
      expect(await reader.read(key("p"), "0-0", 1)).toBeNull();
      const id = await raw.xadd(key("p"), "*", "x", "1");
      expect(ids(await patient)).toEqual([id]);
    } finally {
      connection.disconnect();
    }
  });

  it(`gives a read at most ${READ_COUNT} entries: a reader that does not come back holds no more`, async () => {
    const { reader, connection, key } = open();
    try {
      const written: string[] = [];
      for (let i = 0; i < 100; i++) written.push((await raw.xadd(key("big"), "*", "i", String(i))) as string);
      const first = await reader.read(key("big"), "0-0", 600_000);
      expect(ids(first)).toEqual(written.slice(0, READ_COUNT));
      const next = await reader.read(key("big"), written[READ_COUNT - 1] as string, 600_000);
      expect(ids(next)).toEqual(written.slice(READ_COUNT, 2 * READ_COUNT));
    } finally {
      connection.disconnect();
    }
  });

  it("rejects the waiting reads and later ones with the error it is closed with, and disconnects", async () => {
    const { reader, connection, key } = open();
    const waiting = reader.read(key("w"), "0-0", 600_000);
    await blocked(connection);
    const error = new Error("closed");
    reader.close(error);
    await expect(waiting).rejects.toBe(error);
    await expect(reader.read(key("w"), "0-0", 600_000)).rejects.toBe(error);
    await blocked(connection, false);
    expect(connection.status).not.toBe("ready");
  });

  it("fails only the reads of a key that is not a stream; the others read on", async () => {
    const { reader, connection, key } = open();
    try {
      await raw.set(key("str"), "not a stream");
      const wrong = reader.read(key("str"), "0-0", 600_000);
      const fine = reader.read(key("ok"), "0-0", 600_000);
      await expect(wrong).rejects.toThrow(/WRONGTYPE/);
      const id = await raw.xadd(key("ok"), "*", "x", "1");
      expect(ids(await fine)).toEqual([id]);
      expect(ids(await reader.read(key("ok"), "0-0", 600_000))).toEqual([id]);
    } finally {
      connection.disconnect();
    }
  });
});
