/**
 * Producer → worker parentage across the queue, against a real redis-server: a run enqueued
 * inside a span is traced on the worker as that span's child (the job carries its traceparent).
 */
import { tmpdir } from "node:os";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../../src/index.js";
import { AgentQueue, AgentWorker, type RemoteAgentOptions } from "../../src/queue/index.js";
import { NO_REDIS_REASON, REDIS_SERVER, startRedis, type TestRedis } from "../queue/support/redis.js";
import { freshQueue } from "../queue/support/runs.js";
import { FAKE_CLAUDE, until } from "../queue/support/workers.js";
import { only, otelHarness, spanTree } from "./support.js";

if (!REDIS_SERVER) console.warn(`[queue telemetry test] skipped: ${NO_REDIS_REASON}`);

describe.skipIf(!REDIS_SERVER)("telemetry across the queue (real Redis)", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.[Symbol.asyncDispose]();
  });
  afterEach(() => {
    trace.disable();
    context.disable();
  });

  it("the worker's invoke_agent span is a child of the producer's span, in its trace", async () => {
    await using otel = otelHarness();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(otel.tracerProvider);
    const queueName = freshQueue();
    // Started outside any span: without the job's traceparent its runs would be roots.
    await using worker = await AgentWorker.start({
      connection: redis.url,
      queueName,
      accept: { cwd: { root: tmpdir() } },
      options: { cliPath: FAKE_CLAUDE },
    });
    await using queue = await AgentQueue.connect({ connection: redis.url, queueName });
    const producerSpan = trace.getTracer("producer").startSpan("handle request");
    const run = await context.with(trace.setSpan(context.active(), producerSpan), () =>
      queue.enqueue({ prompt: "hello over the queue" }),
    );
    const { result } = await run.collect();
    producerSpan.end();
    expect(result.isError).toBe(false);
    await until(() => worker.running === 0, "the worker to finish the job");
    await until(
      () => otel.spans().some((s) => s.name === "invoke_agent claude-code"),
      "the worker's span to end",
    );
    console.log(`queue trace:\n${spanTree(otel.spans())}`);
    const turn = only(otel.spans(), "invoke_agent claude-code");
    expect(turn.spanContext().traceId).toBe(producerSpan.spanContext().traceId);
    expect(turn.parentSpanContext).toMatchObject({
      spanId: producerSpan.spanContext().spanId,
      isRemote: true,
    });
  });

  it("a job cannot bring telemetry options of its own: refused at enqueue, saying why", async () => {
    await using queue = await AgentQueue.connect({ connection: redis.url, queueName: freshQueue() });
    const error = await queue
      .enqueue({
        prompt: "x",
        options: { telemetry: { recordContent: true } } as unknown as RemoteAgentOptions,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).issues.join("\n")).toMatch(
      /^telemetry: providers are in-process objects/m,
    );
  });
});
