/**
 * A host process whose Redis goes away for good (redis-gone.test.ts SIGKILLs redis-server, or
 * SIGSTOPs it: connections still accepted, nothing answered): a worker
 * running a run held at a gate, and two producers reading it. Run with
 * `--unhandled-rejections=strict`; the process must print its report and exit 0 on its own.
 *
 * Usage: node --unhandled-rejections=strict --import tsx redis-gone.mts '<json config>'
 * Prints `{"ready":true}` once both readers are mid-run, waits for a line on stdin (Redis is gone
 * then), then, in mode "closing", closes the second producer (mid-iteration), the worker and the
 * first producer; in mode "unattended" it closes nothing. Last line: `{"report":{…}}`.
 */

import type { AgentRun } from "../../../src/queue/index.js";
import { AgentQueue, AgentWorker } from "../../../src/queue/index.js";

interface Config {
  url: string;
  queueName: string;
  mode: "closing" | "unattended";
  cliPath: string;
  gate: string;
  pidsFile: string;
  reconnectTimeoutMs: number;
  responseTimeoutMs?: number;
}

const config = JSON.parse(process.argv[2] ?? "{}") as Config;
const started = performance.now();
const now = () => Math.round(performance.now() - started);
const reported = new Set<string>();
const onError = (error: Error) => {
  reported.add(error.name);
};

interface Outcome {
  name: string;
  operation?: unknown;
  jobId?: unknown;
  atMs: number;
}

/** Reads a run; `midRun` resolves at its first assistant message, `done` with how it ended. */
function read(run: AgentRun) {
  let markMidRun!: () => void;
  const midRun = new Promise<void>((resolve) => {
    markMidRun = resolve;
  });
  const done = (async (): Promise<Outcome> => {
    try {
      for await (const message of run) if (message.type === "assistant") markMidRun();
      return { name: "ended", atMs: now() };
    } catch (error) {
      const e = error as Error & { operation?: unknown; jobId?: unknown };
      return { name: e.name, operation: e.operation, jobId: e.jobId, atMs: now() };
    }
  })();
  return { midRun: Promise.race([midRun, done]), done };
}

const common = {
  connection: config.url,
  queueName: config.queueName,
  reconnectTimeoutMs: config.reconnectTimeoutMs,
  ...(config.responseTimeoutMs !== undefined ? { responseTimeoutMs: config.responseTimeoutMs } : {}),
  onError,
};
const worker = await AgentWorker.start({
  ...common,
  concurrency: 1,
  options: (jobOptions) => ({
    ...jobOptions,
    cliPath: config.cliPath,
    env: { FAKE_CLAUDE_MODE: "gate", FAKE_CLAUDE_GATE: config.gate, FAKE_CLAUDE_PIDS: config.pidsFile },
  }),
});
const first = await AgentQueue.connect(common);
const second = await AgentQueue.connect(common);
const run = await first.enqueue({ prompt: "held at the gate" });
const readers = [read(first.run(run.id)), read(second.run(run.id))] as const;
await Promise.all(readers.map((r) => r.midRun));
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);

// The test kills (or stops) redis-server, then writes a line.
await new Promise((resolve) => process.stdin.once("data", resolve));
process.stdin.destroy();
const goneAt = now();

const timed = async (what: () => Promise<unknown>) => {
  const t = now();
  try {
    await what();
    return { name: "resolved", ms: now() - t };
  } catch (error) {
    return { name: (error as Error).name, ms: now() - t };
  }
};

let secondClose: Promise<{ name: string; ms: number }> | undefined;
let workerClose: Promise<{ name: string; ms: number }> | undefined;
if (config.mode === "closing") {
  // Closed while its reader waits on a Redis that is gone: the reader ends with QueueClosedError.
  secondClose = timed(() => second.close());
  workerClose = timed(() => worker.close({ graceMs: 200 }));
}
const [readerFirst, readerSecond] = await Promise.all(readers.map((r) => r.done));
// Once the connections gave up, a call fails at once, typed.
const enqueue = await timed(() => first.enqueue({ prompt: "after" }));
const firstClose = config.mode === "closing" ? await timed(() => first.close()) : undefined;
const report = {
  mode: config.mode,
  goneAt,
  jobId: run.id,
  readerFirst,
  readerSecond,
  enqueue,
  secondClose: await secondClose,
  workerClose: await workerClose,
  firstClose,
  reported: [...reported].sort(),
  ms: now(),
};
process.stdout.write(`${JSON.stringify({ report })}\n`);
