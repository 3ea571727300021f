/**
 * The vocabulary of a run: implementations, scenarios, what each scenario reports, and targets.
 */
import { median, pairedMedian } from "./stats.js";
import type { Trial } from "./trial.js";

/** raw = the floor (bare node script), ours = code-agent-sdk, anchor = the backend's official SDK. */
export type Impl = "raw" | "ours" | "anchor";
export const IMPLS: readonly Impl[] = ["raw", "ours", "anchor"];
export type Backend = "claude" | "codex";

/** One reported quantity of a worker result. */
export interface Metric {
  key: string;
  label: string;
  /** A string-valued result (e.g. an outcome): shown as-is, no medians or ratios. */
  text?: boolean;
  /** A count (sessions, children, fds): ratios would say nothing. */
  count?: boolean;
  /** The floor is ~0 here (bare node imports nothing): only anchor/ours is a meaningful ratio. */
  noFloorRatio?: boolean;
}

export interface Verdict {
  pass: boolean;
  /** The measured value the target was checked against, e.g. "2.72×". */
  actual: string;
}

/** A goal from the issue, checked on this run's numbers and shown on the row of `metric`. */
export interface Target {
  metric: string;
  text: string;
  /** `undefined`: not checkable in this run (e.g. ours unavailable). */
  evaluate(outcome: Outcome): Verdict | undefined;
}

export interface Scenario {
  id: string;
  title: string;
  backend: Backend;
  worker: string;
  reps: number;
  /** Environment of the worker, inherited by the fake CLI (FAKE_N, FAKE_S, FAKE_K). */
  env: Record<string, string>;
  params?: Record<string, unknown>;
  metrics: Metric[];
  targets: Target[];
  timeoutMs: number;
  /** Implementations this scenario has no counterpart for, with the reason shown in the table. */
  unavailable?: Partial<Record<Impl, string>>;
}

/** The trials of one scenario, per implementation in repetition order, and what they add up to. */
export class Outcome {
  constructor(
    readonly scenario: Scenario,
    readonly trials: Record<Impl, Trial[]>,
    /** Implementations that were not run, with the reason (e.g. "n/a: backend not available"). */
    readonly unavailable: Partial<Record<Impl, string>>,
  ) {}

  /** Per repetition: the metric's value, `undefined` where the trial failed. */
  values(impl: Impl, key: string): (number | undefined)[] {
    return this.trials[impl].map((t) => {
      const v = t.result?.[key];
      return typeof v === "number" ? v : undefined;
    });
  }

  median(impl: Impl, key: string): number | undefined {
    return median(this.values(impl, key).filter((v): v is number => v !== undefined));
  }

  paired(a: Impl, b: Impl, key: string, combine: (x: number, y: number) => number): number | undefined {
    return pairedMedian(this.values(a, key), this.values(b, key), combine);
  }

  /** A text metric: the distinct values over repetitions. */
  text(impl: Impl, key: string): string | undefined {
    const seen = new Set(this.trials[impl].map((t) => t.result?.[key]).filter((v) => v !== undefined));
    return seen.size > 0 ? [...seen].map(String).join(" / ") : undefined;
  }

  /** The first error of an implementation whose trials all failed. */
  failure(impl: Impl): string | undefined {
    const trials = this.trials[impl];
    if (trials.length === 0 || trials.some((t) => t.result)) return undefined;
    return trials[0]!.error;
  }
}
