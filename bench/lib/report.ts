/**
 * Turns outcomes into the one table `npm run bench` prints, and into bench/results/latest.json
 * (every trial's raw result, so a number in the table can always be traced back).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { IMPLS, type Impl, type Outcome } from "./model.js";
import { RESULTS_FILE } from "./paths.js";
import { ratio } from "./stats.js";

const HEADER = [
  "scenario",
  "metric",
  "raw",
  "ours",
  "anchor",
  "ours/raw",
  "anchor/raw",
  "anchor/ours",
  "target",
  "got",
  "",
];

function number(v: number | undefined): string {
  if (v === undefined) return "–";
  if (Number.isInteger(v)) return String(v);
  const abs = Math.abs(v);
  return v.toFixed(abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3);
}

function times(v: number | undefined): string {
  return v === undefined ? "–" : `${v.toFixed(2)}×`;
}

/** The cell of one implementation: its value, or why there is none. */
function cell(o: Outcome, impl: Impl, key: string, text: boolean | undefined): string {
  if (o.unavailable[impl]) return "n/a";
  if (o.failure(impl)) return "ERR";
  return text ? (o.text(impl, key) ?? "–") : number(o.median(impl, key));
}

function rows(outcomes: readonly Outcome[]): string[][] {
  const out: string[][] = [];
  for (const o of outcomes) {
    o.scenario.metrics.forEach((m, i) => {
      const target = o.scenario.targets.find((t) => t.metric === m.key);
      const verdict = target?.evaluate(o);
      const paired = (a: Impl, b: Impl): string =>
        m.text || m.count || (m.noFloorRatio && b === "raw") ? "" : times(o.paired(a, b, m.key, ratio));
      out.push([
        i === 0 ? o.scenario.title : "",
        m.label,
        ...IMPLS.map((impl) => cell(o, impl, m.key, m.text)),
        paired("ours", "raw"),
        paired("anchor", "raw"),
        paired("anchor", "ours"),
        target?.text ?? "",
        verdict?.actual ?? (target ? "n/a" : ""),
        verdict ? (verdict.pass ? "PASS" : "FAIL") : "",
      ]);
    });
  }
  return out;
}

/** Plain-text table with aligned columns (also valid Markdown). */
export function table(outcomes: readonly Outcome[]): string {
  const body = rows(outcomes);
  const widths = HEADER.map((h, c) => Math.max(h.length, ...body.map((r) => r[c]!.length)));
  const line = (r: readonly string[]): string =>
    `| ${r.map((v, c) => (c >= 2 && c <= 7 ? v.padStart(widths[c]!) : v.padEnd(widths[c]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, c) => (c >= 2 && c <= 7 ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [line(HEADER), rule, ...body.map(line)].join("\n");
}

/** Every target of every scenario, one row each, with one column per Node line: got and verdict. */
export function targetSummary(runs: readonly { node: string; outcomes: readonly Outcome[] }[]): string {
  const header = ["scenario", "target", ...runs.map((r) => r.node)];
  const body: string[][] = [];
  for (const [i, first] of (runs[0]?.outcomes ?? []).entries()) {
    for (const target of first.scenario.targets) {
      const cells = runs.map((r) => {
        const outcome = r.outcomes[i];
        const t = outcome?.scenario.targets.find((x) => x.metric === target.metric && x.text === target.text);
        const verdict = outcome && t ? t.evaluate(outcome) : undefined;
        return verdict ? `${verdict.actual} ${verdict.pass ? "met" : "MISSED"}` : "n/a";
      });
      const metric = first.scenario.metrics.find((m) => m.key === target.metric)?.label ?? target.metric;
      body.push([first.scenario.title, `${metric}: ${target.text}`, ...cells]);
    }
  }
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((r) => r[c]!.length)));
  const line = (r: readonly string[]): string => `| ${r.map((v, c) => v.padEnd(widths[c]!)).join(" | ")} |`;
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...body.map(line)].join("\n");
}

/** Why implementations are missing or failed, one line each, for under the table. */
export function notes(outcomes: readonly Outcome[]): string[] {
  const out: string[] = [];
  for (const o of outcomes) {
    for (const impl of IMPLS) {
      const why = o.unavailable[impl] ?? o.failure(impl);
      if (why) out.push(`${o.scenario.title} — ${impl}: ${why.split("\n").join(" ")}`);
      const failed = o.trials[impl].filter((t) => !t.result).length;
      if (!why && failed > 0)
        out.push(
          `${o.scenario.title} — ${impl}: ${failed} trial(s) failed: ${o.trials[impl].find((t) => !t.result)?.error}`,
        );
    }
  }
  return out;
}

/** Writes every trial and every summary to bench/results/latest.json, per Node line. */
export function writeJson(
  meta: Record<string, unknown>,
  runs: readonly { node: string; outcomes: readonly Outcome[] }[],
): string {
  const scenarios = runs.flatMap(({ node, outcomes }) =>
    outcomes.map((o) => ({
      node,
      id: o.scenario.id,
      title: o.scenario.title,
      backend: o.scenario.backend,
      reps: o.scenario.reps,
      env: o.scenario.env,
      params: o.scenario.params,
      unavailable: o.unavailable,
      summary: Object.fromEntries(
        o.scenario.metrics.map((m) => [
          m.key,
          m.text
            ? Object.fromEntries(IMPLS.map((impl) => [impl, o.text(impl, m.key)]))
            : {
                ...Object.fromEntries(IMPLS.map((impl) => [impl, o.median(impl, m.key)])),
                oursOverRaw: o.paired("ours", "raw", m.key, ratio),
                anchorOverRaw: o.paired("anchor", "raw", m.key, ratio),
                anchorOverOurs: o.paired("anchor", "ours", m.key, ratio),
              },
        ]),
      ),
      targets: o.scenario.targets.map((t) => ({ metric: t.metric, target: t.text, ...t.evaluate(o) })),
      trials: o.trials,
    })),
  );
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(RESULTS_FILE, `${JSON.stringify({ meta, scenarios }, null, 2)}\n`);
  return RESULTS_FILE;
}
