/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time per function and per file, so a
 * profile of one trial can be read in a terminal and quoted in a review.
 *
 *   node bench/tools/profile-summary.mjs <file.cpuprofile> [top=25] [startUs,endUs]
 *
 * With a window (a throughput worker reports its timed window as `profileWindowUs`), only samples
 * inside it count: module loading and process start-up are left out.
 */
import { readFileSync } from "node:fs";

const [file, topArg, windowArg] = process.argv.slice(2);
if (!file) {
  console.error("usage: profile-summary.mjs <file.cpuprofile> [top]");
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8"));

const [from, to] = windowArg ? windowArg.split(",").map(Number) : [-Infinity, Infinity];

// Self time per node: the time from each sample to the next, charged to the sampled node.
const byId = new Map(profile.nodes.map((n) => [n.id, { ...n, self: 0 }]));
const deltas = profile.timeDeltas;
let at = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  at += deltas[i] ?? 0;
  const next = deltas[i + 1] ?? 0;
  if (at >= from && at <= to) byId.get(profile.samples[i]).self += next / 1000;
}
const total = [...byId.values()].reduce((sum, n) => sum + n.self, 0);

function shortUrl(url) {
  if (!url) return "(native/vm)";
  return url
    .replace(/^file:\/\//, "")
    .replace(/^.*\/node_modules\//, "~/")
    .replace(/^.*\/work\/main\//, "");
}

const byFunction = new Map();
const byFile = new Map();
for (const n of byId.values()) {
  const cf = n.callFrame;
  const fn = `${cf.functionName || "(anonymous)"}  ${shortUrl(cf.url)}${cf.url ? `:${cf.lineNumber + 1}` : ""}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + n.self);
  const f = shortUrl(cf.url);
  byFile.set(f, (byFile.get(f) ?? 0) + n.self);
}

const pct = (ms) => `${((100 * ms) / total).toFixed(1).padStart(5)}%`;
const print = (title, map) => {
  console.log(`\n${title}`);
  for (const [name, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${ms.toFixed(1).padStart(8)} ms ${pct(ms)}  ${name}`);
  }
};
console.log(`${file}: ${total.toFixed(0)} ms sampled`);
print("self time by function", byFunction);
print("self time by file", byFile);
