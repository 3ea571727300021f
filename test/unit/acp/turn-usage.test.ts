/**
 * ACP cost and token usage per turn, on the shapes of the captured transcripts
 * (../shared/protocol/acp/<agent>/acp/transcript.jsonl): OpenCode and Kilo send `usage_update` with
 * `cost: { amount, currency: "USD" }` (the session's cumulative cost) and per-turn `usage` in the
 * prompt answer; Copilot sends `usage_update` without cost and a running `usage` total; Codex ACP
 * sends `usage_update` without cost and no `usage`.
 */
import { describe, expect, it } from "vitest";
import { AcpUpdateMapper } from "../../../src/backends/acp/updates.js";

function mapper(options: { resumed?: boolean; cumulative?: boolean } = {}) {
  let t = 1000;
  return new AcpUpdateMapper({
    sessionId: () => "s-1",
    model: "agent-x",
    includePartialMessages: false,
    now: () => (t += 5),
    resumed: options.resumed ?? false,
    cumulativeUsage: () => options.cumulative ?? false,
  });
}
const usageUpdate = (fields: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId: "s-1", update: { sessionUpdate: "usage_update", ...fields } },
});

/** One turn: the updates, then the prompt answer. */
function turn(m: AcpUpdateMapper, updates: Record<string, unknown>[], response: Record<string, unknown>) {
  m.beginTurn();
  const messages = updates.flatMap((u) => m.map(usageUpdate(u)));
  return { messages, result: m.result(response) };
}

describe("ACP cost per turn (usage_update cost is the session's cumulative amount)", () => {
  it("totalCostUsd is the turn's share, sessionCostUsd the cumulative amount; usage_update stays a system message", () => {
    const m = mapper();
    const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
    const one = turn(m, [{ used: 10, size: 100000, cost: { amount: 0.012, currency: "USD" } }], {
      stopReason: "end_turn",
      usage,
      _meta: {},
    });
    expect(one.messages).toMatchObject([{ type: "system", subtype: "acp_usage_update" }]);
    expect(one.result).toMatchObject({
      totalCostUsd: 0.012,
      sessionCostUsd: 0.012,
      tokenUsage: {
        inputTokens: 10,
        outputTokens: 5,
        cacheReadInputTokens: null,
        cacheCreationInputTokens: null,
        reasoningOutputTokens: null,
      },
    });
    expect(one.result.raw.cost).toEqual({ amount: 0.012, currency: "USD" });
    const two = turn(
      m,
      [
        { used: 10, size: 100000, cost: { amount: 0.02, currency: "USD" } },
        { used: 20, size: 100000, cost: { amount: 0.031, currency: "USD" } },
      ],
      { stopReason: "end_turn", usage },
    );
    expect(two.result.totalCostUsd).toBe(0.019);
    expect(two.result.sessionCostUsd).toBe(0.031);
    // A turn with no new report cost nothing more.
    const three = turn(m, [], { stopReason: "end_turn", usage });
    expect(three.result.totalCostUsd).toBe(0);
    expect(three.result.sessionCostUsd).toBe(0.031);
  });

  it("OpenCode/Kilo's real shape (amount 0 USD every turn) gives 0, not null", () => {
    const m = mapper();
    const r = turn(m, [{ used: 10, size: 100000, cost: { amount: 0, currency: "USD" } }], {
      stopReason: "end_turn",
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      _meta: {},
    }).result;
    expect(r.totalCostUsd).toBe(0);
    expect(r.sessionCostUsd).toBe(0);
  });

  it("a resumed session's first turn: the cost before it is not known, so the turn's is null", () => {
    const m = mapper({ resumed: true });
    const first = turn(m, [{ used: 10, size: 100000, cost: { amount: 0.5, currency: "USD" } }], {
      stopReason: "end_turn",
    }).result;
    expect(first.totalCostUsd).toBeNull();
    expect(first.sessionCostUsd).toBe(0.5);
    const second = turn(m, [{ used: 10, size: 100000, cost: { amount: 0.6, currency: "USD" } }], {
      stopReason: "end_turn",
    }).result;
    expect(second.totalCostUsd).toBe(0.1);
    expect(second.sessionCostUsd).toBe(0.6);
  });

  it("a cost reported by the load replay (before the first turn) is the baseline", () => {
    const m = mapper({ resumed: true });
    m.map(usageUpdate({ used: 10, size: 100000, cost: { amount: 0.5, currency: "USD" } }));
    const r = turn(m, [{ used: 10, size: 100000, cost: { amount: 0.75, currency: "USD" } }], {
      stopReason: "end_turn",
    }).result;
    expect(r.totalCostUsd).toBe(0.25);
    expect(r.sessionCostUsd).toBe(0.75);
  });

  it("another currency or unit: both cost fields null, the amount kept in raw.cost", () => {
    const m = mapper();
    const r = turn(m, [{ used: 10, size: 100000, cost: { amount: 3, currency: "credits" } }], {
      stopReason: "end_turn",
    }).result;
    expect(r.totalCostUsd).toBeNull();
    expect(r.sessionCostUsd).toBeNull();
    expect(r.raw.cost).toEqual({ amount: 3, currency: "credits" });
  });

  it("no cost reported (Copilot, Codex ACP: usage_update with used/size only): null, never a made-up number", () => {
    const m = mapper();
    const r = turn(m, [{ used: 8820, size: 64000 }], { stopReason: "end_turn" }).result;
    expect(r.totalCostUsd).toBeNull();
    expect(r.sessionCostUsd).toBeUndefined();
    expect(r.tokenUsage).toBeNull();
    expect(r.raw.cost).toBeUndefined();
  });

  it("malformed costs are ignored (negative, NaN, no currency)", () => {
    const m = mapper();
    for (const cost of [
      { amount: -1, currency: "USD" },
      { amount: "1", currency: "USD" },
      { amount: 1 },
      null,
    ]) {
      m.map(usageUpdate({ used: 1, size: 2, cost }));
    }
    m.beginTurn();
    expect(m.result({ stopReason: "end_turn" }).totalCostUsd).toBeNull();
  });

  it("an error answer still carries the turn's cost", () => {
    const m = mapper();
    m.beginTurn();
    m.map(usageUpdate({ used: 1, size: 2, cost: { amount: 0.25, currency: "USD" } }));
    const r = m.errorResult("boom", { code: -32603, message: "boom" });
    expect(r.isError).toBe(true);
    expect(r.totalCostUsd).toBe(0.25);
    expect(r.sessionCostUsd).toBe(0.25);
  });
});

describe("ACP token usage per turn", () => {
  it("maps every ACP usage field (thoughtTokens, cachedReadTokens, cachedWriteTokens)", () => {
    const m = mapper();
    const r = turn(m, [], {
      stopReason: "end_turn",
      usage: {
        inputTokens: 10,
        outputTokens: 5,
        totalTokens: 15,
        thoughtTokens: 2,
        cachedReadTokens: 3,
        cachedWriteTokens: 4,
      },
    }).result;
    expect(r.tokenUsage).toEqual({
      inputTokens: 10,
      outputTokens: 5,
      cacheReadInputTokens: 3,
      cacheCreationInputTokens: 4,
      reasoningOutputTokens: 2,
    });
  });

  it("Copilot's running totals (20 → 30 → 50 → 50 cancelled → 60) become each turn's own counts", () => {
    const m = mapper({ cumulative: true });
    const copilot = (input: number, output: number) => ({
      inputTokens: input,
      outputTokens: output,
      totalTokens: input + output,
      cachedReadTokens: 0,
      cachedWriteTokens: 0,
    });
    const counts = [
      [20, 10],
      [30, 15],
      [50, 25],
      [50, 25],
      [60, 30],
    ].map(([i, o]) => {
      const r = turn(m, [{ used: 8820, size: 64000 }], {
        stopReason: "end_turn",
        usage: copilot(i ?? 0, o ?? 0),
      });
      return [r.result.tokenUsage?.inputTokens, r.result.tokenUsage?.outputTokens];
    });
    expect(counts).toEqual([
      [20, 10],
      [10, 5],
      [20, 10],
      [0, 0],
      [10, 5],
    ]);
  });

  it("per-turn usage (OpenCode, Kilo) is taken as it is", () => {
    const m = mapper();
    for (let i = 0; i < 3; i++) {
      const r = turn(m, [], {
        stopReason: "end_turn",
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      });
      expect(r.result.tokenUsage?.inputTokens).toBe(10);
    }
  });
});
