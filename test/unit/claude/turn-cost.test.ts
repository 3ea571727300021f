/**
 * TurnCost (src/backends/claude/turn-cost.ts): a turn's cost from the CLI's running totals, `null`
 * wherever the total before the turn is not known — never a guess.
 */
import { describe, expect, it } from "vitest";
import { sessionTotalOf, TurnCost } from "../../../src/backends/claude/turn-cost.js";
import type { ResultMessage } from "../../../src/messages.js";

function result(total: unknown, sessionId = "s1"): ResultMessage {
  return {
    type: "result",
    subtype: "success",
    isError: false,
    durationMs: 1,
    durationApiMs: null,
    numTurns: 1,
    sessionId,
    totalCostUsd: typeof total === "number" ? total : null,
    tokenUsage: null,
    raw: total === undefined ? {} : { total_cost_usd: total },
  };
}

const costs = (cost: TurnCost, ...results: ResultMessage[]) =>
  results.map((r) => {
    const out = cost.apply(r);
    return [out.totalCostUsd, out.sessionCostUsd];
  });

describe("TurnCost", () => {
  it("a new session: the first turn costs the total, each later one the difference (without float noise)", () => {
    expect(costs(new TurnCost(0), result(0.073125), result(0.146442), result(0.219966))).toEqual([
      [0.073125, 0.073125],
      [0.073317, 0.146442],
      [0.073524, 0.219966],
    ]);
  });

  it("a resumed session: the first turn is measured from the restored total, or null when unknown", () => {
    const known = new TurnCost(null);
    known.setStartTotal(0.2);
    expect(costs(known, result(0.25))).toEqual([[0.05, 0.25]]);
    expect(costs(new TurnCost(null), result(0.25), result(0.3))).toEqual([
      [null, 0.25],
      [0.05, 0.3],
    ]);
  });

  it("a result without a total, a total that went down, another session id: null, not a guess", () => {
    expect(costs(new TurnCost(0), result(0.1), result(undefined), result(0.3), result(0.4))).toEqual([
      [0.1, 0.1],
      [null, null],
      [null, 0.3],
      [0.1, 0.4],
    ]);
    expect(costs(new TurnCost(0), result(0.5), result(0.2))).toEqual([
      [0.5, 0.5],
      [null, 0.2],
    ]);
    expect(costs(new TurnCost(0), result(0.1, "a"), result(0.3, "b"))).toEqual([
      [0.1, 0.1],
      [null, 0.3],
    ]);
    expect(costs(new TurnCost(0), result(Number.NaN), result(-1), result("0.1"))).toEqual([
      [null, null],
      [null, null],
      [null, null],
    ]);
  });

  it("reads the running total of a get_usage answer", () => {
    expect(sessionTotalOf({ session: { total_cost_usd: 0.073125 } })).toBe(0.073125);
    expect(sessionTotalOf({ session: null })).toBeNull();
    expect(sessionTotalOf({})).toBeNull();
    expect(sessionTotalOf({ session: { total_cost_usd: "1" } })).toBeNull();
  });
});
