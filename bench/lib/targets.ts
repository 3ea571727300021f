/**
 * The targets as checks on one run's numbers. Ratios and differences are paired (per
 * repetition, then the median), so the floor and the SDK are always compared under the same load.
 */
import type { Outcome, Target } from "./model.js";
import { difference, ratio } from "./stats.js";

const fmt = (v: number, digits = 2): string => v.toFixed(digits);

/** ours/raw ≤ limit for `metric`. */
export function ratioToFloor(metric: string, limit: number): Target {
  return {
    metric,
    text: `ours/raw ≤ ${limit}`,
    evaluate: (o) => {
      const r = o.paired("ours", "raw", metric, ratio);
      return r === undefined ? undefined : { pass: r <= limit, actual: `${fmt(r)}×` };
    },
  };
}

/** ours/raw ≥ limit for `metric` (a rate that must keep up with the floor's). */
export function ratioToFloorAtLeast(metric: string, limit: number): Target {
  return {
    metric,
    text: `ours/raw ≥ ${limit}`,
    evaluate: (o) => {
      const r = o.paired("ours", "raw", metric, ratio);
      return r === undefined ? undefined : { pass: r >= limit, actual: `${fmt(r)}×` };
    },
  };
}

/** ours − raw ≤ limit (same unit as `metric`). */
export function overFloor(metric: string, limit: number, unit: string): Target {
  return {
    metric,
    text: `ours−raw ≤ ${limit} ${unit}`,
    evaluate: (o) => {
      const d = o.paired("ours", "raw", metric, difference);
      return d === undefined
        ? undefined
        : { pass: d <= limit, actual: `${d >= 0 ? "+" : ""}${fmt(d)} ${unit}` };
    },
  };
}

/** ours − anchor ≤ limit (same unit as `metric`): within `limit` of the official SDK. */
export function overAnchor(metric: string, limit: number, unit: string): Target {
  return {
    metric,
    text: `ours−anchor ≤ ${limit} ${unit}`,
    evaluate: (o) => {
      const d = o.paired("ours", "anchor", metric, difference);
      return d === undefined
        ? undefined
        : { pass: d <= limit, actual: `${d >= 0 ? "+" : ""}${fmt(d)} ${unit}` };
    },
  };
}

/** ours ≤ limit (median). */
export function atMost(metric: string, limit: number, unit: string): Target {
  return {
    metric,
    text: `ours ≤ ${limit} ${unit}`,
    evaluate: (o) => {
      const v = o.median("ours", metric);
      return v === undefined ? undefined : { pass: v <= limit, actual: `${fmt(v)} ${unit}` };
    },
  };
}

/** A check on every one of ours' results (all repetitions must pass). */
export function everyResult(
  metric: string,
  text: string,
  check: (result: Record<string, unknown>) => boolean,
  actual: (o: Outcome) => string,
): Target {
  return {
    metric,
    text,
    evaluate: (o) => {
      const trials = o.trials.ours;
      if (trials.length === 0) return undefined;
      const pass = trials.every((t) => t.result !== undefined && check(t.result));
      return { pass, actual: actual(o) };
    },
  };
}
