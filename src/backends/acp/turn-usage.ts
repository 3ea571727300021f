/**
 * Cost and token usage per turn on ACP.
 *
 * Cost: agents report it in `session/update` `usage_update` (`cost: { amount, currency }`), which the
 * ACP schema defines as the session's cumulative cost. A turn's cost is the difference from the
 * amount before the turn: the last one seen in this process, or `0` before a new session's first
 * report. Before a resumed session's first report the earlier amount is not known, so that turn's
 * cost is `null`. Only `"USD"` amounts become `totalCostUsd` / `sessionCostUsd`; any other currency
 * (or unit such as `"credits"`) leaves both `null` and stays in the result's `raw.cost`.
 *
 * Tokens: the `session/prompt` answer's `usage` (`inputTokens`, `outputTokens`, `cachedReadTokens`,
 * `cachedWriteTokens`, `thoughtTokens`). The schema calls it the turn's usage but its fields
 * "across the session"; agents differ: OpenCode and Kilo report the turn's own counts,
 * GitHub Copilot a running total over its process (20 → 30 → 50 → 60 input tokens over four turns of
 * 2, 1, 2 and 1 model calls; 10 again after a `session/load` in a new process). For an agent known
 * to report running totals the turn's counts are the difference from the previous answer's. Qwen
 * Code puts no `usage` in the answer, only a per-model-call `_meta.usage` on message chunks, which
 * is outside the protocol and not read (its `tokenUsage` is `null`).
 */
import type { RawObject, TokenUsage } from "../../messages.js";
import { isObject, str } from "../../wire/read.js";

/** Digits kept of a difference of two totals (drops the float noise of the subtraction). */
const COST_DECIMALS = 12;

/** `agentInfo.name` of the agents whose `session/prompt` `usage` is a running total, not the turn's. */
const CUMULATIVE_USAGE_AGENTS: ReadonlySet<string> = new Set(["Copilot"]);

/** True when the agent (by its `initialize` `agentInfo.name`) reports running token totals. */
export function reportsCumulativeUsage(agentName: string | undefined): boolean {
  return agentName !== undefined && CUMULATIVE_USAGE_AGENTS.has(agentName);
}

/** A `usage_update`'s `cost`, as the agent sent it. */
export interface AcpCost {
  amount: number;
  currency: string;
}

/** This turn's cost and tokens, and the session's running cost. */
export interface AcpTurnFigures {
  totalCostUsd: number | null;
  /** `undefined` when the agent reported no cost (the session's running total is then unknown too). */
  sessionCostUsd?: number | null;
  tokenUsage: TokenUsage | null;
  /** The last `usage_update` cost (the session's cumulative amount in its own currency). */
  cost?: AcpCost;
}

/** Cost and token bookkeeping of one ACP session in one agent process. */
export class AcpTurnUsage {
  private cost: AcpCost | undefined;
  /** The cumulative amount before this turn (`null`: not known). */
  private costBefore: number | null = null;
  private lastUsage: TokenUsage | null = null;

  /**
   * @param resumed - The session was loaded or resumed (its cost before this process is not known).
   * @param cumulativeUsage - Asked at each result: the agent's `usage` is a running total.
   */
  constructor(
    private readonly resumed: boolean,
    private readonly cumulativeUsage: () => boolean = () => false,
  ) {}

  /** Notes a `usage_update` (any time: during a turn, a load replay or between turns). */
  onUsageUpdate(update: RawObject): void {
    const cost = update.cost;
    if (!isObject(cost)) return;
    const amount = cost.amount;
    const currency = str(cost.currency);
    if (typeof amount !== "number" || !Number.isFinite(amount) || amount < 0 || currency === undefined)
      return;
    this.cost = { amount, currency };
  }

  /** A prompt was sent: its cost counts from the amount known now. */
  beginTurn(): void {
    this.costBefore = this.cost ? this.cost.amount : this.resumed ? null : 0;
  }

  /** The figures for the turn's result, from the prompt answer's `usage` (if any). */
  finishTurn(usage: unknown): AcpTurnFigures {
    const tokenUsage = this.tokens(usage);
    const cost = this.cost;
    if (!cost) return { totalCostUsd: null, tokenUsage };
    const figures: AcpTurnFigures = {
      totalCostUsd: null,
      sessionCostUsd: null,
      tokenUsage,
      cost: { ...cost },
    };
    if (cost.currency.toUpperCase() === "USD") {
      figures.sessionCostUsd = cost.amount;
      figures.totalCostUsd = difference(cost.amount, this.costBefore);
    }
    // The next turn counts from here even when no prompt is sent through beginTurn first.
    this.costBefore = cost.amount;
    return figures;
  }

  private tokens(usage: unknown): TokenUsage | null {
    const now = acpTokenUsage(usage);
    if (!this.cumulativeUsage()) return now;
    const before = this.lastUsage;
    if (now !== null) this.lastUsage = now;
    if (now === null) return null;
    const per = (key: keyof TokenUsage): number | null => {
      const a = now[key];
      if (a === null) return null;
      const b = before ? before[key] : 0;
      // A count that went down was reset: this turn's own share is not known.
      return b === null ? null : a >= b ? a - b : null;
    };
    return {
      inputTokens: per("inputTokens"),
      outputTokens: per("outputTokens"),
      cacheReadInputTokens: per("cacheReadInputTokens"),
      cacheCreationInputTokens: per("cacheCreationInputTokens"),
      reasoningOutputTokens: per("reasoningOutputTokens"),
    };
  }
}

/** An ACP `usage` object (`inputTokens`, `outputTokens`, `cachedReadTokens`, …) as token counts. */
export function acpTokenUsage(usage: unknown): TokenUsage | null {
  if (!isObject(usage)) return null;
  const count = (key: string): number | null => {
    const value = usage[key];
    return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
  };
  return {
    inputTokens: count("inputTokens"),
    outputTokens: count("outputTokens"),
    cacheReadInputTokens: count("cachedReadTokens"),
    cacheCreationInputTokens: count("cachedWriteTokens"),
    reasoningOutputTokens: count("thoughtTokens"),
  };
}

function difference(total: number, before: number | null): number | null {
  if (before === null) return null;
  const cost = Number((total - before).toFixed(COST_DECIMALS));
  // A total that went down was reset: the turn's own share is not known.
  return cost >= 0 ? cost : null;
}
