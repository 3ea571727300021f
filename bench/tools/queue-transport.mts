/**
 * Why code-agent-sdk/queue streams messages through one Redis stream per run rather than BullMQ's
 * queue events: both carry 20 messages of 400 B for each of 200 jobs (4 at a time) on a local
 * redis-server, and the script prints jobs/s, per-message latency and what each reader has to read.
 *
 *   node --import tsx bench/tools/queue-transport.mts
 */
import { Queue, QueueEvents, Worker } from "bullmq";
import { Redis } from "ioredis";
import { startRedis } from "../../test/queue/support/redis.js";

const JOBS = 200,
  MSGS = 20,
  CONC = 4;
const pct = (v: number[], p: number) => {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!.toFixed(2);
};
await using redis = await startRedis();
const conn = { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null };
const payload = "x".repeat(400);
{
  // BullMQ events
  const queue = new Queue("ev", { connection: conn });
  const events = new QueueEvents("ev", { connection: conn });
  await events.waitUntilReady();
  const lat: number[] = [];
  let seen = 0;
  const done = new Map<string, () => void>();
  events.on("progress", ({ data }) => {
    seen++;
    lat.push(performance.now() - (data as { t: number }).t);
  });
  events.on("completed", ({ jobId }) => done.get(jobId)?.());
  const worker = new Worker(
    "ev",
    async (job) => {
      for (let i = 0; i < MSGS; i++) await job.updateProgress({ t: performance.now(), i, payload });
      return 1;
    },
    { connection: conn, concurrency: CONC },
  );
  await worker.waitUntilReady();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: JOBS }, async () => {
      const job = await queue.add("j", {});
      await new Promise<void>((r) => done.set(job.id!, r));
    }),
  );
  const s = (performance.now() - t0) / 1000;
  console.log(
    `bullmq events: ${(JOBS / s).toFixed(1)} jobs/s, progress latency p50 ${pct(lat, 50)} ms p99 ${pct(lat, 99)} ms, events one listener read: ${seen} progress (all jobs' traffic reaches every listener)`,
  );
  const probe = new Redis(conn);
  const len = await probe.xlen("bull:ev:events");
  probe.disconnect();
  console.log(`  bull:ev:events length after run: ${len} (one shared stream, trimmed ~10000 by default)`);
  await worker.close();
  await events.close();
  await queue.close();
}
{
  // per-run streams (what code-agent-sdk/queue does)
  const queue = new Queue("st", { connection: conn });
  const w = new Redis({ ...conn, enableAutoPipelining: true });
  const lat: number[] = [];
  const worker = new Worker(
    "st",
    async (job) => {
      const ps = [];
      for (let i = 0; i < MSGS; i++)
        ps.push(
          w.xadd(`run:${job.id}`, "MAXLEN", "~", 10000, "*", "t", String(performance.now()), "p", payload),
        );
      await Promise.all(ps);
      await w.xadd(`run:${job.id}`, "*", "end", "1");
      return 1;
    },
    { connection: conn, concurrency: CONC },
  );
  await worker.waitUntilReady();
  const readers: Redis[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: JOBS }, async () => {
      const job = await queue.add("j", {});
      const r = readers.pop() ?? new Redis(conn);
      let last = "0-0";
      for (;;) {
        const reply = (await r.xread("COUNT", 512, "BLOCK", 2000, "STREAMS", `run:${job.id}`, last)) as
          | [string, [string, string[]][]][]
          | null;
        if (!reply) continue;
        let end = false;
        for (const [, items] of reply)
          for (const [id, f] of items) {
            last = id;
            if (f[0] === "end") end = true;
            else lat.push(performance.now() - Number(f[1]));
          }
        if (end) break;
      }
      readers.push(r);
    }),
  );
  const s = (performance.now() - t0) / 1000;
  console.log(
    `per-run streams: ${(JOBS / s).toFixed(1)} jobs/s, message latency p50 ${pct(lat, 50)} ms p99 ${pct(lat, 99)} ms, each reader reads only its run`,
  );
  for (const r of readers) r.disconnect();
  w.disconnect();
  await worker.close();
  await queue.close();
}
