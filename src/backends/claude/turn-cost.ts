/**
 * Cost per turn on Claude. Claude Code's `total_cost_usd` is the session's running total, restored
 * on resume (a fork starts from its parent's), so a turn's cost is the difference from the total
 * before it: the previous result's in this process, or — before a resumed session's first turn —
 * the total the CLI reports (`get_usage`). Where no earlier total is known the turn's cost is
 * `null`, never a guess.
 */
import type { RawObject, ResultMessage } from "../../messages.js";

/** Digits kept of a difference of two totals (drops the float noise of the subtraction). */
const COST_DECIMALS = 12;

/** Running totals by session id, and the total the process started with. */
export class TurnCost {
  /** The last running total seen per session id (`null`: a result without one). */
  private readonly totals = new Map<string, number | null>();
  private firstResultSeen = false;

  /**
   * @param startTotal - The session's total before this process's first turn: `0` for a new session,
   *   the CLI's restored total for a resumed one, `null` when it is not known.
   */
  constructor(private startTotal: number | null) {}

  /** Sets the total the process started with (the answer to `get_usage`, or `null`). */
  setStartTotal(total: number | null): void {
    this.startTotal = total;
  }

  /**
   * The result with `totalCostUsd` this turn's cost and `sessionCostUsd` the CLI's running total.
   * `raw.total_cost_usd` stays as the CLI sent it.
   */
  apply(result: ResultMessage): ResultMessage {
    const total = typeof result.raw.total_cost_usd === "number" ? finite(result.raw.total_cost_usd) : null;
    const session = result.sessionId;
    let before: number | null;
    if (this.totals.has(session)) before = this.totals.get(session) ?? null;
    else before = this.firstResultSeen ? null : this.startTotal;
    this.firstResultSeen = true;
    this.totals.set(session, total);
    return { ...result, totalCostUsd: turnCost(total, before), sessionCostUsd: total };
  }
}

function turnCost(total: number | null, before: number | null): number | null {
  if (total === null || before === null) return null;
  const cost = Number((total - before).toFixed(COST_DECIMALS));
  // A total that went down was reset: the turn's own share is not known.
  return cost >= 0 ? cost : null;
}

function finite(value: number): number | null {
  return Number.isFinite(value) && value >= 0 ? value : null;
}

/** The session's running total in a `get_usage` answer (`session.total_cost_usd`), or `null`. */
export function sessionTotalOf(answer: RawObject): number | null {
  const session = answer.session;
  if (typeof session !== "object" || session === null) return null;
  const total = (session as RawObject).total_cost_usd;
  return typeof total === "number" ? finite(total) : null;
}
