/**
 * code-agent-sdk/queue against a real redis-server (Debian's package; the suite skips, saying why,
 * when it is absent), worker in this process: what may be enqueued, cancellation, retries and
 * timeouts, the real claude offline against the scripted model (permission requests answered by
 * the producer included), and a Redis restart mid-run. Worker processes: machines.test.ts.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AbortError, InvalidOptionsError } from "../../src/index.js";
import { createSdkMcpServer } from "../../src/mcp/tool.js";
import {
  AgentQueue,
  AgentWorker,
  type JobAcceptance,
  type RemoteAgentOptions,
  RemoteRunError,
} from "../../src/queue/index.js";
import { testBed } from "../e2e/support.js";
import { isAlive } from "../lifecycle/support/processes.js";
import { NO_REDIS_REASON, REDIS_SERVER, startRedis, type TestRedis } from "./support/redis.js";
import { follow, freshQueue, isAssistantText, scratch } from "./support/runs.js";
import { FAKE_CLAUDE, until } from "./support/workers.js";

if (!REDIS_SERVER) console.warn(`[queue tests] skipped: ${NO_REDIS_REASON}`);

/** These tests' producers steer the fake CLI through env and run in scratch folders: opted in. */
const TRUSTED: JobAcceptance = { env: true, cwd: { root: tmpdir() } };

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

  it("refuses connection timings that no timer can hold, before anything connects", async () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, "5" as unknown as number]) {
      for (const field of ["responseTimeoutMs", "reconnectTimeoutMs"] as const) {
        const options = { connection: redis.url, [field]: bad };
        await expect(AgentQueue.connect(options)).rejects.toThrow(new RegExp(`^.*${field}`, "s"));
        await expect(AgentWorker.start(options)).rejects.toBeInstanceOf(InvalidOptionsError);
      }
      await expect(AgentQueue.connect({ connection: redis.url, idleCheckMs: bad })).rejects.toBeInstanceOf(
        InvalidOptionsError,
      );
    }
  });

  it("delivers interrupt to the CLI and abort to the worker within a bound; aborts a waiting job", async () => {
    using dir = scratch();
    const queueName = freshQueue();
    await using worker = await AgentWorker.start({
      connection: redis.url,
      queueName,
      accept: TRUSTED,
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
      accept: TRUSTED,
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

  it("runs the real claude offline against the scripted model, interrupt included", async () => {
    await using bed = await testBed([
      { text: "Hello across machines" },
      { stall: true, text: "hmm" },
      { error: { status: 400, type: "invalid_request_error", message: "scripted refusal" } },
    ]);
    const queueName = freshQueue();
    await using worker = await AgentWorker.start({
      connection: redis.url,
      queueName,
      concurrency: 1,
      accept: TRUSTED,
    });
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
    await using _worker = await AgentWorker.start({
      connection: redis.url,
      queueName,
      concurrency: 1,
      accept: TRUSTED,
    });
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

  it("a canUseTool that throws something unprintable or answers what JSON cannot carry: denied with the reason, the producer's connection not blamed", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "touch one.txt", description: "a file" } } },
      { toolUse: { name: "Bash", input: { command: "touch two.txt", description: "a file" } } },
      { text: "both refused" },
    ]);
    const queueName = freshQueue();
    await using _worker = await AgentWorker.start({
      connection: redis.url,
      queueName,
      concurrency: 1,
      accept: TRUSTED,
    });
    const errors: Error[] = [];
    await using queue = await AgentQueue.connect({
      connection: redis.url,
      queueName,
      onError: (error) => errors.push(error),
    });
    let calls = 0;
    const run = await queue.enqueue({
      prompt: "create two files",
      options: bed.options() as RemoteAgentOptions,
      canUseTool: async () => {
        calls += 1;
        if (calls === 1) throw Object.create(null);
        return { behavior: "allow", updatedInput: { n: 1n } } as never;
      },
    });
    const { messages, result } = await run.collect();
    expect(result).toMatchObject({ result: "both refused" });
    expect(calls).toBe(2);
    const denials = messages.flatMap((m) =>
      m.type === "user" && Array.isArray(m.content)
        ? m.content.filter((b) => b.type === "tool_result" && b.isError).map((b) => JSON.stringify(b))
        : [],
    );
    expect(denials).toHaveLength(2);
    expect(denials[0]).toContain("prototype-less object");
    expect(denials[1]).toContain("cannot be sent to the worker");
    expect(existsSync(join(bed.cwd, "one.txt")) || existsSync(join(bed.cwd, "two.txt"))).toBe(false);
    expect(errors).toEqual([]);
  });

  it("denies a permission request the producer does not answer in time", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "touch never.txt", description: "create a file" } } },
      { text: "gave up" },
    ]);
    const queueName = freshQueue();
    await using _worker = await AgentWorker.start({
      connection: redis.url,
      queueName,
      concurrency: 1,
      accept: TRUSTED,
    });
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

/**
 * Six gated runs on a worker taking three at a time; `outage` while three are mid-turn (and three
 * still queued), then the gate opens: every run completes once, its messages neither lost nor
 * doubled. `timings` go to the producer and the worker alike; `errors` collects what both report.
 */
async function outageMidRun(
  redis: TestRedis,
  outage: (errors: Error[]) => Promise<void>,
  timings: { responseTimeoutMs?: number; reconnectTimeoutMs?: number } = {},
): Promise<void> {
  using dir = scratch();
  const gate = join(dir.dir, "gate");
  const queueName = freshQueue();
  const attempts: string[] = [];
  const errors: Error[] = [];
  await using _worker = await AgentWorker.start({
    connection: redis.url,
    queueName,
    accept: TRUSTED,
    concurrency: 3,
    ...timings,
    onError: (e) => errors.push(e),
    options: (jobOptions, info) => {
      attempts.push(`${info.jobId}#${info.attempt}`);
      return { ...jobOptions, cliPath: FAKE_CLAUDE };
    },
  });
  await using queue = await AgentQueue.connect({
    connection: redis.url,
    queueName,
    idleCheckMs: 200,
    ...timings,
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
  await Promise.race([
    Promise.all(readers.map((r) => r.done)),
    until(
      () => readers.filter((r) => r.messages.some(isAssistantText("gate"))).length === 3,
      "3 runs mid-turn",
    ),
  ]);
  await outage(errors);
  writeFileSync(gate, "open");
  await Promise.all(readers.map((r) => r.done));
  for (const reader of readers) {
    expect(reader.messages.map((m) => m.type)).toEqual(["system", "assistant", "result"]);
    expect(reader.messages.at(-1)).toMatchObject({ result: "through the gate" });
  }
  expect(attempts.sort()).toEqual(runs.map((r) => `${r.id}#1`).sort());
}

describe.skipIf(!REDIS_SERVER)("code-agent-sdk/queue across a Redis outage", () => {
  it("resumes every run after Redis restarts mid-run, losing and duplicating nothing", async () => {
    await using redis = await startRedis({ appendOnly: true });
    await outageMidRun(redis, () => redis.restart());
  });

  it("rides out a Redis that answers nothing for longer than responseTimeoutMs, losing and duplicating nothing", async () => {
    await using redis = await startRedis();
    // Silent past 300 ms: the connections reconnect (to a server that still answers nothing) and
    // would give up only after 60 s.
    const timings = { responseTimeoutMs: 300, reconnectTimeoutMs: 60_000 };
    await outageMidRun(
      redis,
      async (errors) => {
        redis.pause();
        // Both sides noticed the silence (the producer's readers, the worker's idle PING).
        const timedOut = (e: Error) =>
          /Socket timeout/.test(String((e as { cause?: unknown }).cause ?? e.message));
        await until(() => errors.filter(timedOut).length >= 2, "the connections to time out");
        redis.resume();
      },
      timings,
    );
  });
});
