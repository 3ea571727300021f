/**
 * Reading a run's stream when Redis holds what no worker of this version wrote (anything that can
 * write to Redis can write there), when the worker's trimming overtakes a reader, and when the
 * producer closes mid-iteration. Entries are written with a plain ioredis client; a real
 * redis-server (skipped, saying why, when absent).
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/index.js";
import { encodeEntries, type RunEntry } from "../../src/queue/entries.js";
import { AgentQueue, QueueClosedError, QueueProtocolError, StreamGapError } from "../../src/queue/index.js";
import { NO_REDIS_REASON, REDIS_SERVER, redisForSuite } from "./support/redis.js";
import { freshQueue } from "./support/runs.js";

if (!REDIS_SERVER) console.warn(`[queue tests] skipped: ${NO_REDIS_REASON}`);

/** The fields of an entry as a worker writes them; `data` as is when a string. */
const entry = (kind: string, attempt: number, seq: number, data: unknown = {}) => [
  "k",
  kind,
  "a",
  String(attempt),
  "s",
  String(seq),
  "d",
  typeof data === "string" ? data : JSON.stringify(data),
];
const system = (n: number) => ({ message: { type: "system", subtype: "note", data: { n }, raw: {} } });
const end = { status: "completed", result: { type: "result", result: "ok", isError: false } };

/** Resolves once a connection of the server blocks in XREAD (asked every 20 ms, up to 20 s). */
async function readerBlocked(raw: Redis): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!/cmd=xread/.test(String(await raw.client("LIST")))) {
    if (Date.now() > deadline) throw new Error("no reader blocked in XREAD within 20 s");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Reads a run to its end; what it yielded and what it threw. */
async function readAll(iterable: AsyncIterable<Message>) {
  const messages: unknown[] = [];
  try {
    for await (const message of iterable) messages.push(message);
    return { messages, error: undefined };
  } catch (error) {
    return { messages, error };
  }
}

describe.skipIf(!REDIS_SERVER)("reading a run's stream", () => {
  const suite = redisForSuite();

  /** A queue, a job id and its stream key, written with `entries`. */
  async function stream(entries: string[][], queueName = freshQueue()) {
    const jobId = randomUUID();
    const key = `code-agent:${queueName}:run:${jobId}:messages`;
    for (const fields of entries) await suite.raw.xadd(key, "*", ...fields);
    return { queueName, jobId, key };
  }

  it("ends the iteration with QueueProtocolError at a malformed entry: never undefined, never a bare SyntaxError", async () => {
    const malformed: [string, string[]][] = [
      ["data that is not JSON", entry("message", 1, 1, "{not json")],
      ["a message entry without a message", entry("message", 1, 1, {})],
      ["fields missing", ["k", "message", "d", "{}"]],
      ["a seq that is not a count", entry("message", 1, -1, system(1))],
      ["an end entry with an unknown status", entry("end", 1, 1, { status: "maybe" })],
    ];
    const { queueName } = await stream([]);
    await using queue = await AgentQueue.connect({ connection: suite.server.url, queueName });
    for (const [what, bad] of malformed) {
      const { jobId } = await stream(
        [
          entry("start", 1, 0, { worker: "w" }),
          bad,
          entry("message", 1, 2, system(2)),
          entry("end", 1, 3, end),
        ],
        queueName,
      );
      const { messages, error } = await readAll(queue.run(jobId));
      expect(error, what).toBeInstanceOf(QueueProtocolError);
      expect(error, what).toMatchObject({ jobId, entryId: expect.stringMatching(/^\d+-\d+$/) });
      expect(messages, what).toEqual([]);
      // result() and collect() say the same.
      await expect(queue.run(jobId).result(), what).rejects.toBeInstanceOf(QueueProtocolError);
    }
  });

  it("skips an entry of a kind this version does not know, reports it to onError, and reads on", async () => {
    const reported: Error[] = [];
    const { queueName, jobId } = await stream([
      entry("start", 1, 0, { worker: "w" }),
      entry("message", 1, 1, system(1)),
      entry("telemetry", 1, 2, { from: "a newer worker" }),
      entry("message", 1, 3, system(3)),
      entry("end", 1, 4, end),
    ]);
    await using queue = await AgentQueue.connect({
      connection: suite.server.url,
      queueName,
      onError: (error) => reported.push(error),
    });
    const { messages, result } = await queue.run(jobId).collect();
    expect(messages).toEqual([system(1).message, system(3).message]);
    expect(result).toEqual(end.result);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toBeInstanceOf(QueueProtocolError);
    expect(reported[0]!.message).toContain('"telemetry"');
  });

  it("throws StreamGapError when trimming overtakes a live reader, and for a reader that arrives after it", async () => {
    const { queueName, jobId, key } = await stream([
      entry("start", 1, 0, { worker: "w" }),
      entry("message", 1, 1, system(1)),
    ]);
    await using queue = await AgentQueue.connect({ connection: suite.server.url, queueName });
    const iterator = queue.run(jobId)[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual(system(1).message);
    // While the reader holds message 1, the worker writes 2–9 and trims the stream to its last 3.
    const writes = suite.raw.multi();
    for (let seq = 2; seq < 9; seq++) writes.xadd(key, "*", ...entry("message", 1, seq, system(seq)));
    writes.xadd(key, "*", ...entry("end", 1, 9, end));
    writes.xtrim(key, "MAXLEN", 3);
    await writes.exec();
    const live = await iterator.next().catch((error: unknown) => error);
    expect(live).toBeInstanceOf(StreamGapError);
    expect(live).toMatchObject({ jobId, attempt: 1, expectedSeq: 2, gotSeq: 7 });

    const late = await queue
      .run(jobId)
      .collect()
      .catch((error: unknown) => error);
    expect(late).toMatchObject({ name: "StreamGapError", expectedSeq: 0, gotSeq: 7 });
  });

  it("a write re-sent after a reconnect (the same seq twice) is still delivered once", async () => {
    const { queueName, jobId } = await stream([
      entry("start", 1, 0, { worker: "w" }),
      entry("message", 1, 1, system(1)),
      entry("message", 1, 1, system(1)),
      entry("message", 1, 2, system(2)),
      entry("end", 1, 3, end),
    ]);
    await using queue = await AgentQueue.connect({ connection: suite.server.url, queueName });
    expect((await queue.run(jobId).collect()).messages).toEqual([system(1).message, system(2).message]);
  });

  /** The fields of a batch of entries of attempt 1 from `seq`, as a worker of this version writes them. */
  const batch = (seq: number, entries: [kind: string, data: unknown][]) =>
    encodeEntries(
      entries.map(([kind, data], i) => ({ kind, attempt: 1, seq: seq + i, ...(data as object) }) as RunEntry),
    );
  const messages = (from: number, count: number) =>
    Array.from({ length: count }, (_, i): [string, unknown] => ["message", system(from + i)]);

  it("reads batches and single entries alike, in order; a batch written twice is delivered once", async () => {
    const { queueName, jobId } = await stream([
      batch(0, [["start", { worker: "w" }], ...messages(1, 3)]),
      batch(0, [["start", { worker: "w" }], ...messages(1, 3)]), // re-sent after a reconnect
      entry("message", 1, 4, system(4)),
      batch(5, [...messages(5, 2), ["end", end]]),
    ]);
    await using queue = await AgentQueue.connect({ connection: suite.server.url, queueName });
    const { messages: got, result } = await queue.run(jobId).collect();
    expect(got).toEqual([1, 2, 3, 4, 5, 6].map((n) => system(n).message));
    expect(result).toEqual(end.result);
  });

  it("ends the iteration with QueueProtocolError at a malformed batch, delivering none of it", async () => {
    const malformed: [string, string[]][] = [
      ["an entry of the batch malformed", batch(2, [...messages(2, 2), ["message", {}]])],
      ["data that is not JSON", ["v", "2", "a", "1", "s", "2", "d", '[["message",']],
      ["more entries than a batch holds", batch(2, messages(2, 65))],
      ["a format this version does not know", ["v", "3", "a", "1", "s", "2", "d", "[]"]],
    ];
    const { queueName } = await stream([]);
    await using queue = await AgentQueue.connect({ connection: suite.server.url, queueName });
    for (const [what, bad] of malformed) {
      const { jobId } = await stream(
        [batch(0, [["start", { worker: "w" }], ...messages(1, 1)]), bad, batch(70, [["end", end]])],
        queueName,
      );
      const { messages: got, error } = await readAll(queue.run(jobId));
      expect(error, what).toBeInstanceOf(QueueProtocolError);
      expect(error, what).toMatchObject({ jobId, entryId: expect.stringMatching(/^\d+-\d+$/) });
      expect(got, what).toEqual([system(1).message]);
    }
  });

  it("throws StreamGapError for entries missing between batches", async () => {
    const { queueName, jobId } = await stream([
      batch(0, [["start", { worker: "w" }], ...messages(1, 2)]),
      batch(5, [...messages(5, 1), ["end", end]]),
    ]);
    await using queue = await AgentQueue.connect({ connection: suite.server.url, queueName });
    const { messages: got, error } = await readAll(queue.run(jobId));
    expect(got).toEqual([system(1).message, system(2).message]);
    expect(error).toBeInstanceOf(StreamGapError);
    expect(error).toMatchObject({ jobId, attempt: 1, expectedSeq: 3, gotSeq: 5 });
  });

  it("a slow reader holds one read of at most 16 stream entries: 16 × 64 entries, however long the stream", async () => {
    const written = [batch(0, [["start", { worker: "w" }]])];
    for (let seq = 1; seq < 64 * 40; seq += 64) written.push(batch(seq, messages(seq, 64)));
    written.push(batch(64 * 40 + 1, [["end", end]]));
    const { queueName, jobId } = await stream(written);
    const monitor = await suite.raw.monitor();
    const xreads: string[][] = [];
    let marked!: () => void;
    const marker = new Promise<void>((resolve) => {
      marked = resolve;
    });
    monitor.on("monitor", (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === "xread") xreads.push(args);
      if (args[0]?.toLowerCase() === "echo" && args[1] === `marker ${jobId}`) marked();
    });
    try {
      await using queue = await AgentQueue.connect({ connection: suite.server.url, queueName });
      const iterator = queue.run(jobId)[Symbol.asyncIterator]();
      expect((await iterator.next()).value).toEqual(system(1).message);
      // Everything Redis ran before this marker is in the monitor's feed once the marker is.
      await suite.raw.echo(`marker ${jobId}`);
      await marker;
      expect(xreads).toHaveLength(1);
      expect(xreads[0]!.slice(1, 3)).toEqual(["COUNT", "16"]);
      let count = 1;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) count++;
      expect(count).toBe(64 * 40);
    } finally {
      monitor.disconnect();
    }
    // 42 stream entries, 16 a read.
    expect(xreads.length).toBeGreaterThanOrEqual(3);
    for (const args of xreads) expect(args.slice(1, 3)).toEqual(["COUNT", "16"]);
  });

  it("ends an iteration with QueueClosedError when the producer closes while it waits", async () => {
    const { queueName, jobId } = await stream([entry("start", 1, 0, { worker: "w" })]);
    // A long idle check: the reader stays in XREAD BLOCK, not in a job-state check.
    const queue = await AgentQueue.connect({ connection: suite.server.url, queueName, idleCheckMs: 60_000 });
    const reading = readAll(queue.run(jobId));
    await readerBlocked(suite.raw);
    await queue.close();
    const { messages, error } = await reading;
    expect(messages).toEqual([]);
    expect(error).toBeInstanceOf(QueueClosedError);
    expect(error).toMatchObject({ name: "QueueClosedError", message: expect.stringContaining(jobId) });
  });
});
