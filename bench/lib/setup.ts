/**
 * Everything a run needs before the first trial: the anchors installed in bench/node_modules, the
 * SDK built into dist/, the native fake compiled. Each step says what it did, so a surprising
 * number can be traced to a stale build.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BENCH_DIR, BUILD_DIR, DIST_ENTRY, FAKE_CLI, ROOT_DIR } from "./paths.js";

const ANCHORS = ["@anthropic-ai/claude-agent-sdk", "@openai/codex-sdk"] as const;

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

function installedVersion(pkg: string): string | undefined {
  try {
    const json = readFileSync(join(BENCH_DIR, "node_modules", pkg, "package.json"), "utf8");
    return (JSON.parse(json) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/**
 * Installs bench/'s own dependencies when missing. `--omit=optional` skips the platform packages
 * with the real CLI binaries (hundreds of MB): every anchor is pointed at the fake CLI instead.
 */
export function ensureAnchors(): Record<string, string> {
  if (ANCHORS.some((pkg) => installedVersion(pkg) === undefined)) {
    log("installing the anchors into bench/node_modules …");
    const npm = spawnSync(
      "npm",
      ["install", "--prefix", BENCH_DIR, "--no-audit", "--no-fund", "--omit=optional"],
      { stdio: ["ignore", "inherit", "inherit"] },
    );
    if (npm.status !== 0) throw new Error(`npm install --prefix bench failed (exit ${npm.status})`);
  }
  return Object.fromEntries(ANCHORS.map((pkg) => [pkg, installedVersion(pkg) ?? "missing"]));
}

/** What we measure as "ours", and whether it is current. */
export interface SdkBuild {
  available: boolean;
  note: string;
}

/**
 * Runs `npm run build` in the root so dist/ matches src/. Other work may be in progress in src/:
 * tsc still emits JavaScript when it reports type errors, so a failed check is a warning, and only
 * a missing dist/ makes "ours" unavailable. BENCH_SKIP_BUILD=1 measures dist/ as it is;
 * BENCH_DIST=<index.js> measures another build.
 */
export function buildSdk(): SdkBuild {
  if (process.env.BENCH_DIST) {
    log(`BENCH_DIST: measuring ${DIST_ENTRY}`);
    return { available: existsSync(DIST_ENTRY), note: `SDK from ${DIST_ENTRY} (BENCH_DIST)` };
  }
  if (process.env.BENCH_SKIP_BUILD === "1") {
    log("BENCH_SKIP_BUILD=1: measuring dist/ as it is");
    return { available: existsSync(DIST_ENTRY), note: "dist/ not rebuilt (BENCH_SKIP_BUILD=1)" };
  }
  log("npm run build …");
  const build = spawnSync("npm", ["run", "build", "--silent"], { cwd: ROOT_DIR, encoding: "utf8" });
  if (build.status === 0) return { available: true, note: "dist/ freshly built" };
  const errors = `${build.stdout}${build.stderr}`.split("\n").filter((line) => line.includes("error TS"));
  log(`build reported ${errors.length} type error(s); tsc emitted dist/ anyway:`);
  for (const line of errors.slice(0, 5)) log(`  ${line}`);
  return {
    available: existsSync(DIST_ENTRY),
    note: `dist/ built with ${errors.length} type error(s) in src/ (work in progress)`,
  };
}

/** Compiles the native fake (`CC`, default gcc) and installs it as `claude` and `codex`. */
export function buildFake(): void {
  mkdirSync(BUILD_DIR, { recursive: true });
  const cc = process.env.CC ?? "gcc";
  const source = join(BENCH_DIR, "fake", "fake-cli.c");
  const result = spawnSync(cc, ["-O2", "-Wall", "-o", FAKE_CLI.claude, source], { encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(`${cc} could not build the fake CLI:\n${result.stderr ?? result.error}`);
  }
  // A copy, not a symlink: an SDK that resolves the real path would otherwise see "claude".
  copyFileSync(FAKE_CLI.claude, FAKE_CLI.codex);
}
