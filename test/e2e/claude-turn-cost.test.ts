/**
 * Cost and usage per turn on Claude (issue 28, item 3), against the real claude CLI offline. The
 * CLI's `total_cost_usd` is the session's running total (restored on resume); `result.totalCostUsd` is the turn's own cost, `result.sessionCostUsd` the running total.
 */
import { describe, expect, it } from "vitest";
import { type AgentOptions, AgentSdkClient, query, type ResultMessage } from "../../src/index.js";
import { collect, results, testBed } from "./support.js";

/** A model the CLI has prices for, so turns cost something. */
const PRICED = "claude-sonnet-4-5";

async function clientTurns(options: AgentOptions, prompts: string[]): Promise<ResultMessage[]> {
  await using client = new AgentSdkClient(options);
  await client.connect();
  const out: ResultMessage[] = [];
  for (const prompt of prompts) {
    const turn = await client.run(prompt);
    out.push(turn.result);
  }
  return out;
}

const cliTotal = (r: ResultMessage | undefined) => r?.raw.total_cost_usd as number;
const inputTokens = (r: ResultMessage | undefined) =>
  (r?.raw.usage as { input_tokens?: number } | undefined)?.input_tokens;

describe("cost and usage per turn on claude", () => {
  it("a 3-turn client conversation: totalCostUsd is each turn's cost, sessionCostUsd the running total", async () => {
    await using bed = await testBed([{ text: "one" }, { text: "two two" }, { text: "three three three" }]);
    const [a, b, c] = await clientTurns(bed.options({ model: PRICED }), ["first", "second", "third"]);
    // The CLI's figure is cumulative; it stays as sent in raw.
    expect(cliTotal(a)).toBeGreaterThan(0);
    expect(cliTotal(b)).toBeGreaterThan(cliTotal(a));
    expect(cliTotal(c)).toBeGreaterThan(cliTotal(b));
    expect(a?.totalCostUsd).toBeCloseTo(cliTotal(a), 12);
    expect(b?.totalCostUsd).toBeCloseTo(cliTotal(b) - cliTotal(a), 12);
    expect(c?.totalCostUsd).toBeCloseTo(cliTotal(c) - cliTotal(b), 12);
    expect([a, b, c].map((r) => r?.sessionCostUsd)).toEqual([cliTotal(a), cliTotal(b), cliTotal(c)]);
    // Token usage is the turn's own: each turn's input is about the same size, not growing sums.
    expect(b?.tokenUsage?.inputTokens).toBe(inputTokens(b));
    expect(b?.tokenUsage?.inputTokens).toBeLessThan(2 * (a?.tokenUsage?.inputTokens ?? 0));
    const modelUsage = (r: ResultMessage | undefined) =>
      (r?.modelUsage?.[PRICED] as { inputTokens?: number } | undefined)?.inputTokens ?? Number.NaN;
    expect(c?.tokenUsage?.inputTokens).toBe(modelUsage(c) - modelUsage(b));
  });

  it("a resumed session's first turn costs its own share (the CLI restored the total), and a fork's", async () => {
    await using bed = await testBed([{ text: "one" }, { text: "two" }, { text: "three" }, { text: "four" }]);
    const [first, second] = await clientTurns(bed.options({ model: PRICED }), ["first", "second"]);
    const sessionId = second!.sessionId;

    const resumed = results(
      await collect(query({ prompt: "third", options: bed.options({ model: PRICED, resume: sessionId }) })),
    )[0];
    // The CLI restored the running total: its figure includes the two turns of the first process.
    expect(cliTotal(resumed)).toBeGreaterThan(cliTotal(second));
    expect(resumed?.sessionCostUsd).toBe(cliTotal(resumed));
    expect(resumed?.totalCostUsd).toBeCloseTo(cliTotal(resumed) - cliTotal(second), 12);
    expect(resumed?.totalCostUsd).toBeLessThan(1.5 * (first?.totalCostUsd ?? 0));

    const forked = results(
      await collect(
        query({
          prompt: "fourth",
          options: bed.options({ model: PRICED, resume: sessionId, forkSession: true }),
        }),
      ),
    )[0];
    expect(forked?.sessionId).not.toBe(sessionId);
    expect(forked?.totalCostUsd).toBeCloseTo(cliTotal(forked) - cliTotal(resumed), 12);
  });

  it("resuming an earlier session after another one ran: the turn's cost is still its own", async () => {
    await using bed = await testBed([{ text: "a1" }, { text: "b1" }, { text: "a2" }]);
    const a = results(
      await collect(query({ prompt: "session a", options: bed.options({ model: PRICED }) })),
    )[0];
    await collect(query({ prompt: "session b", options: bed.options({ model: PRICED }) }));
    const again = results(
      await collect(
        query({ prompt: "a again", options: bed.options({ model: PRICED, resume: a!.sessionId }) }),
      ),
    )[0];
    expect(again?.sessionId).toBe(a?.sessionId);
    // The CLI restored session a's total, though session b ran last in the project.
    expect(cliTotal(again)).toBeGreaterThan(1.5 * (a?.totalCostUsd ?? 0));
    // Whatever the CLI counted from, the turn's cost is the difference from where it started.
    expect(again?.totalCostUsd).toBeGreaterThan(0);
    expect(again?.totalCostUsd).toBeLessThan(1.5 * (a?.totalCostUsd ?? 0));
    expect(again?.totalCostUsd).toBeGreaterThan(0.5 * (a?.totalCostUsd ?? 0));
  });

  it("resumedCostBaseline: false sends no get_usage and leaves a resumed session's first turn cost null", async () => {
    await using bed = await testBed([{ text: "one" }, { text: "two" }]);
    const first = results(
      await collect(query({ prompt: "first", options: bed.options({ model: PRICED }) })),
    )[0];
    const resumed = results(
      await collect(
        query({
          prompt: "second",
          options: bed.options({ model: PRICED, resume: first!.sessionId, resumedCostBaseline: false }),
        }),
      ),
    )[0];
    expect(resumed?.totalCostUsd).toBeNull();
    expect(resumed?.sessionCostUsd).toBe(cliTotal(resumed));
  });
});
