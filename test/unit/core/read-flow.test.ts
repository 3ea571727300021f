/**
 * The flow state between a session's log and its read loop (src/transport/read-flow.ts), the hub's
 * marks that drive it, and validation of its options.
 */
import { describe, expect, it } from "vitest";
import { ReaderOverflowError } from "../../../src/errors.js";
import { agentOptionsIssues } from "../../../src/options-schema.js";
import { MessageHub } from "../../../src/session/message-hub.js";
import { flowLimits, ReadFlow } from "../../../src/transport/read-flow.js";

/** A reader switch that records what it was told. */
function recorder() {
  const calls: string[] = [];
  return { calls, reader: { pause: () => calls.push("pause"), resume: () => calls.push("resume") } };
}

describe("ReadFlow", () => {
  it("pauses over the high-water mark, resumes at the low one", () => {
    const flow = new ReadFlow({ highWaterMark: 100, lowWaterMark: 40, maxReaderLagBytes: 1000 });
    const hub = new MessageHub<number>();
    hub.limitBy(flow);
    const { calls, reader } = recorder();
    flow.attach(reader);
    const reading = hub.subscribe();
    for (let i = 0; i < 12; i++) {
      flow.chunkRead(10);
      hub.push(i);
    }
    expect(calls).toEqual(["pause"]);
    expect(flow.isPaused).toBe(true);
    // Taking 7 of the 12 leaves 50 bytes waiting (> 40): still paused; the 8th leaves 40.
    for (let i = 0; i < 7; i++) void reading.next();
    expect(flow.isPaused).toBe(true);
    void reading.next();
    expect(flow.isPaused).toBe(false);
    expect(calls).toEqual(["pause", "resume"]);
  });

  it("keeps reading while a request holds it, and pauses again on release if still over", () => {
    const flow = new ReadFlow({ highWaterMark: 100, lowWaterMark: 40, maxReaderLagBytes: 1000 });
    const hub = new MessageHub<number>();
    hub.limitBy(flow);
    const { calls, reader } = recorder();
    flow.attach(reader);
    const release = flow.hold();
    for (let i = 0; i < 20; i++) {
      flow.chunkRead(10);
      hub.push(i);
    }
    expect(flow.isPaused).toBe(false);
    release();
    expect(flow.isPaused).toBe(true);
    expect(calls).toEqual(["pause"]);
  });

  it("defaults: 16 MiB high, half of it low, 64 MiB reader lag", () => {
    expect(flowLimits({})).toEqual({
      highWaterMark: 16 * 1024 * 1024,
      lowWaterMark: 8 * 1024 * 1024,
      maxReaderLagBytes: 64 * 1024 * 1024,
    });
  });
});

describe("a stalled subscriber", () => {
  it("is dropped with ReaderOverflowError once it lags past the limit; the others read on", async () => {
    const flow = new ReadFlow({ highWaterMark: 10_000, lowWaterMark: 5_000, maxReaderLagBytes: 100 });
    const hub = new MessageHub<number>();
    hub.limitBy(flow);
    const stalled = hub.subscribe();
    const reading = hub.subscribe();
    for (let i = 0; i < 30; i++) {
      flow.chunkRead(10);
      hub.push(i);
      expect((await reading.next()).value).toBe(i);
    }
    const error = await stalled.next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReaderOverflowError);
    expect((error as ReaderOverflowError).option).toBe("maxReaderLagBytes");
    // Nothing is kept for it any more.
    expect(hub.log.length).toBeLessThanOrEqual(1);
  });
});

describe("flow options", () => {
  it("are validated before anything runs", () => {
    expect(agentOptionsIssues({ highWaterMark: 1000 })).toEqual([
      "highWaterMark: must be at least 65536 bytes (64 KiB)",
    ]);
    expect(agentOptionsIssues({ highWaterMark: 1 << 20, lowWaterMark: 1 << 20 })).toEqual([
      "lowWaterMark: must be below highWaterMark (1048576 bytes)",
    ]);
    expect(agentOptionsIssues({ maxReaderLagBytes: 1.5 })).toHaveLength(1);
    expect(
      agentOptionsIssues({ highWaterMark: 1 << 20, lowWaterMark: 0, maxReaderLagBytes: 1 << 20 }),
    ).toEqual([]);
  });
});
