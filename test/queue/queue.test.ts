/**
 * code-agent-sdk/queue against a real redis-server (Debian's package; the suite skips, saying why,
 * when it is absent). Worker processes on this machine stand in for machines; the CLIs are the fake
 * claude, and one run drives the real claude offline against the scripted model.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AbortError, InvalidOptionsError, type Message } from "../../src/index.js";
import { createSdkMcpServer } from "../../src/mcp/tool.js";
import {
  AgentQueue,
  type AgentRun,
  AgentWorker,
  type RemoteAgentOptions,
  RemoteRunError,
} from "../../src/queue/index.js";
import { testBed } from "../e2e/support.js";
import { isAlive } from "../lifecycle/support/processes.js";
import { NO_REDIS_REASON, REDIS_SERVER, startRedis, type TestRedis } from "./support/redis.js";
import { FAKE_CLAUDE, fastClaude, startWorker, until } from "./support/workers.js";

if (!REDIS_SERVER) console.warn(`[queue tests] skipped: ${NO_REDIS_REASON}`);

let queueCount = 0;
/** A fresh queue name per test, so tests sharing one Redis never see each other's jobs. */
const freshQueue = () => `q${process.pid}-${++queueCount}`;

/** A scratch directory removed on dispose. */
function scratch(): { dir: string } & Disposable {
  const dir = mkdtempSync(join(tmpdir(), "cas-queue-"));
  return { dir, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Reads a run's messages in the background; `seen(pred)` resolves when one matches. */
function follow(run: AgentRun) {
  const messages: Message[] = [];
  const waiters: { pred: (m: Message) => boolean; resolve: () => void }[] = [];
  const done = (async () => {
    for await (const m of run) {
      messages.push(m);
      for (const w of waiters.filter((w) => w.pred(m))) w.resolve();
    }
  })();
  done.catch(() => {});
  return {
    messages,
    done,
    seen: (pred: (m: Message) => boolean) =>
      messages.some(pred)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ pred, resolve })),
  };
}

const isAssistantText = (text: string) => (m: Message) =>
  m.type === "assistant" && m.content.some((b) => b.type === "text" && b.text.includes(text));

describe.skipIf(!REDIS_SERVER)("code-agent-sdk/queue on a real Redis", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.[Symbol.asyncDispose]();
  });

  it("refuses at enqueue what cannot cross to a worker machine, naming each option", async () => {
    await using queue = await AgentQueue.connect({ connection: redis.url, queueName: freshQueue() });
    const options = {
      canUseTool: async () => ({ behavior: "allow" as const }),
      hooks: {},
      signal: new AbortController().signal,
      mcpServers: { mine: createSdkMcpServer({ name: "mine", tools: [] }) },
    } as unknown as RemoteAgentOptions;
    const error = await queue.enqueue({ prompt: "hi", options }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    const issues = (error as InvalidOptionsError).issues.join("\n");
    for (const name of ["canUseTool", "hooks", "signal", "mcpServers.mine"]) expect(issues).toContain(name);

    async function* streamed() {
      yield "hi";
    }
    await expect(queue.enqueue({ prompt: streamed() as unknown as string })).rejects.toThrow(/streamed/);
    // The same validation query() applies, before anything is queued.
    await expect(queue.enqueue({ prompt: "hi", options: { maxTurns: -1 } })).rejects.toBeInstanceOf(
      InvalidOptionsError,
    );
  });

  it("runs 100 jobs across 3 worker processes, each exactly once", async () => {
    using dir = scratch();
    const { cliPath, resultText } = fastClaude(dir.dir);
    const queueName = freshQueue();
    const config = { url: redis.url, queueName, concurrency: 3, cliPath };
    const [a, b, c] = await Promise.all([startWorker(config), startWorker(config), startWorker(config)]);
    await using _a = a;
    await using _b = b;
    await using _c = c;
    await using queue = await AgentQueue.connect({ connection: redis.url, queueName });
    const runs = await Promise.all(
      Array.from({ length: 100 }, (_, i) => queue.enqueue({ prompt: `job ${i}` })),
    );
    const results = await Promise.all(runs.map((run) => run.result()));
    expect(results.every((r) => r.result === resultText && !r.isError)).toBe(true);

    const started = [...a.runs, ...b.runs, ...c.runs];
    expect(started).toHaveLength(100);
    expect(new Set(started.map((r) => r.jobId))).toEqual(new Set(runs.map((r) => r.id)));
    expect(started.every((r) => r.attempt === 1)).toBe(true);
    for (const w of [a, b, c]) expect(w.runs.length).toBeGreaterThan(0);
  });

  it("retries on another worker the job of a SIGKILLed worker, whose CLI processes all die", async () => {
    using dir = scratch();
    const queueName = freshQueue();
    const fast = {
      url: redis.url,
      queueName,
      lockDurationMs: 1_500,
      stalledIntervalMs: 500,
      retryMode: "ok",
    };
    await using doomed = await startWorker(fast);
    await using queue = await AgentQueue.connect({ connection: redis.url, queueName, idleCheckMs: 500 });
    const pidsFile = join(dir.dir, "pids.json");
    const run = await queue.enqueue({
      prompt: "work until killed",
      options: {
        env: { FAKE_CLAUDE_MODE: "stall", FAKE_CLAUDE_PIDS: pidsFile, FAKE_CLAUDE_GRANDCHILD: "sleep" },
      },
    });
    const reader = follow(run);
    await reader.seen(isAssistantText("working"));
    const { pid, grandchildPid } = JSON.parse(readFileSync(pidsFile, "utf8")) as {
      pid: number;
      grandchildPid: number;
    };
    expect(isAlive(pid) && isAlive(grandchildPid) && isAlive(doomed.watchdogPid)).toBe(true);

    // Only now does a second machine join: the job can only reach it through stalled detection.
    await using survivor = await startWorker(fast);
    doomed.proc.kill("SIGKILL");
    await doomed.exited;
    await until(() => !isAlive(pid) && !isAlive(grandchildPid), "the dead worker's CLI and its child to die");
    await until(() => !isAlive(doomed.watchdogPid), "the watchdog to exit");

    await reader.done;
    const retry = reader.messages.find((m) => m.type === "system" && m.subtype === "queue_retry");
    expect(retry?.type === "system" && retry.data).toMatchObject({
      attempt: 2,
      error: { name: "WorkerLost" },
    });
    expect(reader.messages.at(-1)).toMatchObject({ type: "result", result: "ok" });
    expect(survivor.runs).toEqual([{ jobId: run.id, attempt: 2 }]);
  });

  it("delivers interrupt to the CLI and abort to the worker within a bound; aborts a waiting job", async () => {
    using dir = scratch();
    const queueName = freshQueue();
    await using worker = await AgentWorker.start({
      connection: redis.url,
      queueName,
      options: { cliPath: FAKE_CLAUDE },
    });
    await using queue = await AgentQueue.connect({ connection: redis.url, queueName });
    const pidsFile = join(dir.dir, "pids.json");
    const recordFile = join(dir.dir, "record.json");
    const run = await queue.enqueue({
      prompt: "never finishes",
      options: {
        env: { FAKE_CLAUDE_MODE: "stall", FAKE_CLAUDE_PIDS: pidsFile, FAKE_CLAUDE_RECORD: recordFile },
      },
    });
    const reader = follow(run);
    await reader.seen(isAssistantText("working"));
    const { pid } = JSON.parse(readFileSync(pidsFile, "utf8")) as { pid: number };

    await run.cancel("interrupt");
    const interrupts = () =>
      (
        JSON.parse(readFileSync(recordFile, "utf8")) as { controlRequests: { subtype: string }[] }
      ).controlRequests.filter((r) => r.subtype === "interrupt").length;
    await until(() => interrupts() === 1, "the interrupt to reach the CLI", 5_000);

    const t0 = performance.now();
    await run.cancel("abort");
    await expect(run.result()).rejects.toBeInstanceOf(AbortError);
    const elapsed = performance.now() - t0;
    expect(elapsed).toBeLessThan(10_000);
    await expect(reader.done).rejects.toBeInstanceOf(AbortError);
    expect(isAlive(pid)).toBe(false);
    await until(() => worker.running === 0, "the worker to finish the job");

    // A job no worker has taken is removed from the queue.
    await using idle = await AgentQueue.connect({ connection: redis.url, queueName: freshQueue() });
    const waiting = await idle.enqueue({ prompt: "never taken" });
    await waiting.cancel();
    await expect(waiting.result()).rejects.toBeInstanceOf(AbortError);
  });

  it("retries CLI crashes with backoff, not agent errors; ends a run at its timeout", async () => {
    using dir = scratch();
    const queueName = freshQueue();
    const attempts: string[] = [];
    await using worker = await AgentWorker.start({
      connection: redis.url,
      queueName,
      concurrency: 3,
      options: (jobOptions, info) => {
        attempts.push(`${jobOptions.env?.TAG}#${info.attempt}`);
        // The "flaky" CLI crashes on its first attempt only.
        const env =
          jobOptions.env?.TAG === "flaky" && info.attempt > 1
            ? { ...jobOptions.env, FAKE_CLAUDE_MODE: "ok" }
            : jobOptions.env;
        return { ...jobOptions, env, cliPath: FAKE_CLAUDE };
      },
    });
    await using queue = await AgentQueue.connect({ connection: redis.url, queueName, idleCheckMs: 500 });
    const crash = (tag: string) => ({ env: { TAG: tag, FAKE_CLAUDE_MODE: "crash-mid-turn" } });
    const flaky = await queue.enqueue({ prompt: "x", options: crash("flaky"), attempts: 3, backoffMs: 20 });
    const broken = await queue.enqueue({ prompt: "x", options: crash("broken"), attempts: 2, backoffMs: 20 });
    const pidsFile = join(dir.dir, "pids.json");
    const slow = await queue.enqueue({
      prompt: "x",
      options: { env: { TAG: "slow", FAKE_CLAUDE_MODE: "stall", FAKE_CLAUDE_PIDS: pidsFile } },
      timeoutMs: 1_500,
    });

    const flakyRun = await flaky.collect();
    expect(flakyRun.result.result).toBe("ok");
    const retry = flakyRun.messages.find((m) => m.type === "system" && m.subtype === "queue_retry");
    expect(retry?.type === "system" && retry.data).toMatchObject({
      attempt: 2,
      error: { name: "ProcessError", exitCode: 7, retryable: true },
    });

    // A late subscriber in another process (here: another producer) replays the run from the start.
    await using other = await AgentQueue.connect({ connection: redis.url, queueName });
    expect(await other.run(flaky.id).collect()).toEqual(flakyRun);

    const brokenError = await broken.result().catch((e: unknown) => e);
    expect(brokenError).toBeInstanceOf(RemoteRunError);
    expect((brokenError as RemoteRunError).remote).toMatchObject({ name: "ProcessError", exitCode: 7 });

    const slowError = await slow.result().catch((e: unknown) => e);
    expect((slowError as RemoteRunError).remote).toMatchObject({ name: "RunTimeoutError", retryable: false });
    // On a slow machine the limit can strike before the CLI wrote its pid (or before it was spawned);
    // either way no CLI of that run may be left.
    if (existsSync(pidsFile)) {
      const { pid } = JSON.parse(readFileSync(pidsFile, "utf8")) as { pid: number };
      expect(isAlive(pid)).toBe(false);
    }

    expect(attempts.sort()).toEqual(["broken#1", "broken#2", "flaky#1", "flaky#2", "slow#1"]);
    await until(() => worker.running === 0, "the worker to finish its jobs");
  });

  it("on close, lets a run go on for the grace period, then hands it to another worker", async () => {
    using dir = scratch();
    const queueName = freshQueue();
    await using leaving = await startWorker({ url: redis.url, queueName, graceMs: 300, retryMode: "ok" });
    await using queue = await AgentQueue.connect({ connection: redis.url, queueName });
    const pidsFile = join(dir.dir, "pids.json");
    const run = await queue.enqueue({
      prompt: "long",
      options: {
        env: {
          FAKE_CLAUDE_MODE: "gate",
          FAKE_CLAUDE_GATE: join(dir.dir, "never"),
          FAKE_CLAUDE_PIDS: pidsFile,
        },
      },
    });
    const reader = follow(run);
    await reader.seen(isAssistantText("waiting at the gate"));
    const { pid } = JSON.parse(readFileSync(pidsFile, "utf8")) as { pid: number };
    await using staying = await startWorker({ url: redis.url, queueName, retryMode: "ok" });
    leaving.proc.kill("SIGTERM");
    await leaving.exited;
    expect({ code: leaving.proc.exitCode, stderr: leaving.stderr() }).toEqual({ code: 0, stderr: "" });
    expect(isAlive(pid)).toBe(false);
    await reader.done;
    const retry = reader.messages.find((m) => m.type === "system" && m.subtype === "queue_retry");
    expect(retry?.type === "system" && retry.data).toMatchObject({
      attempt: 2,
      error: { name: "AbortError" },
    });
    expect(reader.messages.at(-1)).toMatchObject({ type: "result", result: "ok" });
    expect(staying.runs).toEqual([{ jobId: run.id, attempt: 2 }]);
  });

  it("runs the real claude offline against the scripted model, interrupt included", async () => {
    await using bed = await testBed([
      { text: "Hello across machines" },
      { stall: true, text: "hmm" },
      { error: { status: 400, type: "invalid_request_error", message: "scripted refusal" } },
    ]);
    const queueName = freshQueue();
    await using worker = await AgentWorker.start({ connection: redis.url, queueName, concurrency: 1 });
    await using queue = await AgentQueue.connect({ connection: redis.url, queueName });
    const first = await queue.enqueue({ prompt: "say hello", options: bed.options() as RemoteAgentOptions });
    const { messages, result } = await first.collect();
    expect(result).toMatchObject({ isError: false, result: "Hello across machines" });
    expect(messages.some((m) => m.type === "system" && m.subtype === "init")).toBe(true);
    expect(messages.some(isAssistantText("Hello across machines"))).toBe(true);

    const second = await queue.enqueue({
      prompt: "take your time",
      options: bed.options({ includePartialMessages: true }) as RemoteAgentOptions,
    });
    const reader = follow(second);
    await reader.seen((m) => m.type === "stream_event");
    await second.cancel("interrupt");
    const interrupted = await second.result();
    expect(interrupted.isError).toBe(true);
    expect(interrupted.terminalReason).toBe("aborted_streaming");
    await reader.done;

    // An agent error is the run's answer, not a crash: it completes, once.
    const refused = await queue.enqueue({ prompt: "refuse", options: bed.options() as RemoteAgentOptions });
    const refusedRun = await refused.collect();
    expect(refusedRun.result.isError).toBe(true);
    expect(refusedRun.messages.some((m) => m.type === "system" && m.subtype === "queue_retry")).toBe(false);
    await until(() => worker.running === 0, "the worker to finish the job");
  });

  it("lets the producer answer the real claude's permission requests (canUseTool across machines)", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "touch asked.txt", description: "create a file" } } },
      { text: "done" },
    ]);
    const queueName = freshQueue();
    await using _worker = await AgentWorker.start({ connection: redis.url, queueName, concurrency: 1 });
    await using queue = await AgentQueue.connect({ connection: redis.url, queueName });
    const asked: string[] = [];
    const run = await queue.enqueue({
      prompt: "create a file",
      options: bed.options() as RemoteAgentOptions,
      canUseTool: async (name, input, context) => {
        asked.push(`${name}:${String(input.command)}`);
        expect(context.toolUseId).toMatch(/^toolu_/);
        expect(context.signal.aborted).toBe(false);
        return { behavior: "allow", updatedInput: { ...input, command: "touch rewritten.txt" } };
      },
    });
    const { result } = await run.collect();
    expect(asked).toEqual(["Bash:touch asked.txt"]);
    expect(existsSync(join(bed.cwd, "rewritten.txt"))).toBe(true);
    expect(existsSync(join(bed.cwd, "asked.txt"))).toBe(false);
    expect(result).toMatchObject({ isError: false, result: "done" });
  });

  it("denies a permission request the producer does not answer in time", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "touch never.txt", description: "create a file" } } },
      { text: "gave up" },
    ]);
    const queueName = freshQueue();
    await using _worker = await AgentWorker.start({ connection: redis.url, queueName, concurrency: 1 });
    await using queue = await AgentQueue.connect({ connection: redis.url, queueName });
    let sawAbort!: () => void;
    const aborted = new Promise<void>((resolve) => {
      sawAbort = resolve;
    });
    const run = await queue.enqueue({
      prompt: "create a file",
      options: bed.options() as RemoteAgentOptions,
      permissionTimeoutMs: 300,
      // Never decides; its signal says when the answer stopped mattering.
      canUseTool: (_name, _input, { signal }) =>
        new Promise(() => signal.addEventListener("abort", () => sawAbort())),
    });
    const { messages, result } = await run.collect();
    await aborted;
    expect(result).toMatchObject({ result: "gave up" });
    expect(existsSync(join(bed.cwd, "never.txt"))).toBe(false);
    const denial = messages.find(
      (m) =>
        m.type === "user" &&
        Array.isArray(m.content) &&
        m.content.some((b) => b.type === "tool_result" && b.isError),
    );
    expect(JSON.stringify(denial)).toContain("did not answer this permission request within 300 ms");
  });
});

describe.skipIf(!REDIS_SERVER)("code-agent-sdk/queue across a Redis restart", () => {
  it("resumes every run after Redis restarts mid-run, losing and duplicating nothing", async () => {
    await using redis = await startRedis({ appendOnly: true });
    using dir = scratch();
    const gate = join(dir.dir, "gate");
    const queueName = freshQueue();
    const attempts: string[] = [];
    const errors: Error[] = [];
    await using _worker = await AgentWorker.start({
      connection: redis.url,
      queueName,
      concurrency: 3,
      onError: (e) => errors.push(e),
      options: (jobOptions, info) => {
        attempts.push(`${info.jobId}#${info.attempt}`);
        return { ...jobOptions, cliPath: FAKE_CLAUDE };
      },
    });
    await using queue = await AgentQueue.connect({
      connection: redis.url,
      queueName,
      onError: (e) => errors.push(e),
    });
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        queue.enqueue({
          prompt: `held ${i}`,
          options: { env: { FAKE_CLAUDE_MODE: "gate", FAKE_CLAUDE_GATE: gate } },
        }),
      ),
    );
    const readers = runs.map(follow);
    // Three runs are mid-turn (the worker's concurrency), three still wait in the queue.
    await Promise.race([
      Promise.all(readers.map((r) => r.done)),
      until(
        () => readers.filter((r) => r.messages.some(isAssistantText("gate"))).length === 3,
        "3 runs mid-turn",
      ),
    ]);
    await redis.restart();
    writeFileSync(gate, "open");
    await Promise.all(readers.map((r) => r.done));
    for (const reader of readers) {
      expect(reader.messages.map((m) => m.type)).toEqual(["system", "assistant", "result"]);
      expect(reader.messages.at(-1)).toMatchObject({ result: "through the gate" });
    }
    expect(attempts.sort()).toEqual(runs.map((r) => `${r.id}#1`).sort());
    expect(existsSync(gate)).toBe(true);
  });
});
