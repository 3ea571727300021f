/**
 * `npm run test:versions`: runs the end-to-end query suites against older releases of each CLI.
 *
 * Each version is installed (once) with the SDK's own `installCli()` into a cache outside the
 * repository — `$CODE_AGENT_SDK_VERSIONS_CACHE`, default `~/.cache/code-agent-sdk/versions` — and the
 * suites run with `CLAUDE_CLI_PATH` / `CODEX_CLI_PATH` naming that binary and
 * `CODE_AGENT_TEST_CLAUDE_VERSION` / `CODE_AGENT_TEST_CODEX_VERSION` telling the tests which version
 * to expect. One suite runs at a time (the machine is shared). The result is printed as a Markdown
 * table (version × suite → passed / failed and why) and written to `versions-report.json` in the
 * cache directory.
 *
 * Arguments: `--only claude|codex`, `--install-only`.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { installCli } from "../src/install/index.js";

type Cli = "claude" | "codex";

/** The releases this matrix covers, oldest first; the last one is the devDependency. */
const MATRIX: Record<Cli, { versions: string[]; suites: string[] }> = {
  claude: {
    versions: ["2.0.77", "2.1.100", "2.1.200", "2.1.330"],
    suites: ["test/e2e/claude-query.test.ts"],
  },
  codex: {
    versions: ["0.160.0", "0.164.0", "0.169.0"],
    suites: ["test/e2e/codex-query.test.ts"],
  },
};

const PATH_ENV: Record<Cli, string> = { claude: "CLAUDE_CLI_PATH", codex: "CODEX_CLI_PATH" };
const VERSION_ENV: Record<Cli, string> = {
  claude: "CODE_AGENT_TEST_CLAUDE_VERSION",
  codex: "CODE_AGENT_TEST_CODEX_VERSION",
};

interface SuiteOutcome {
  cli: Cli;
  version: string;
  suite: string;
  passed: number;
  failed: number;
  skipped: number;
  /** The first failing tests and their first error lines. */
  failures: string[];
  /** Set when the suite could not run at all (install failed, vitest crashed). */
  error?: string;
}

const cacheDir =
  process.env.CODE_AGENT_SDK_VERSIONS_CACHE ?? join(homedir(), ".cache", "code-agent-sdk", "versions");
const args = process.argv.slice(2);
const only = args.includes("--only") ? (args[args.indexOf("--only") + 1] as Cli) : undefined;
const installOnly = args.includes("--install-only");

async function main(): Promise<void> {
  mkdirSync(cacheDir, { recursive: true });
  const outcomes: SuiteOutcome[] = [];
  for (const cli of Object.keys(MATRIX) as Cli[]) {
    if (only && only !== cli) continue;
    for (const version of MATRIX[cli].versions) {
      let path: string;
      try {
        path = await install(cli, version);
        console.log(`${cli} ${version}: ${path}`);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        console.log(`${cli} ${version}: install failed: ${reason}`);
        for (const suite of MATRIX[cli].suites) {
          outcomes.push({
            cli,
            version,
            suite,
            passed: 0,
            failed: 0,
            skipped: 0,
            failures: [],
            error: reason,
          });
        }
        continue;
      }
      if (installOnly) continue;
      for (const suite of MATRIX[cli].suites) {
        const outcome = await runSuite(cli, version, path, suite);
        outcomes.push(outcome);
        console.log(`  ${suite}: ${summary(outcome)}`);
      }
    }
  }
  if (installOnly) return;
  writeFileSync(join(cacheDir, "versions-report.json"), `${JSON.stringify(outcomes, null, 2)}\n`);
  console.log(`\n${table(outcomes)}`);
}

/**
 * Installs one release. `installCli()` knows the native-binary packages; Claude Code releases before
 * the native builds (2.0.x, early 2.1.x) ship a Node script (`cli.js`) instead, installed here by
 * a plain `npm install` into the same cache.
 */
async function install(cli: Cli, version: string): Promise<string> {
  try {
    return (await installCli({ backend: cli, version, cacheDir })).path;
  } catch (error) {
    if (cli !== "claude") throw error;
    const dir = join(cacheDir, "claude-js", version);
    const script = join(dir, "node_modules", "@anthropic-ai", "claude-code", "cli.js");
    if (!existsSync(script)) {
      mkdirSync(dir, { recursive: true });
      const code = await run("npm", [
        "install",
        "--prefix",
        dir,
        "--no-save",
        "--no-audit",
        "--no-fund",
        `@anthropic-ai/claude-code@${version}`,
      ]);
      if (code !== 0 || !existsSync(script)) throw error;
    }
    chmodSync(script, 0o755);
    return script;
  }
}

function run(command: string, argv: string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(command, argv, { stdio: ["ignore", "ignore", "inherit"] });
    child.on("error", () => resolve(null));
    child.on("exit", (code) => resolve(code));
  });
}

/** Runs one suite file under vitest with the CLI at `path`, and reads vitest's JSON report. */
async function runSuite(cli: Cli, version: string, path: string, suite: string): Promise<SuiteOutcome> {
  const report = join(cacheDir, `report-${cli}-${version}-${suite.replaceAll("/", "_")}.json`);
  rmSync(report, { force: true });
  const env = { ...process.env, [PATH_ENV[cli]]: path, [VERSION_ENV[cli]]: version };
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(
      process.execPath,
      ["node_modules/vitest/vitest.mjs", "run", suite, "--reporter=json", `--outputFile=${report}`],
      { env, stdio: ["ignore", "ignore", "inherit"] },
    );
    child.on("error", () => resolve(null));
    child.on("exit", (exitCode) => resolve(exitCode));
  });
  const outcome: SuiteOutcome = { cli, version, suite, passed: 0, failed: 0, skipped: 0, failures: [] };
  let parsed: VitestReport;
  try {
    parsed = JSON.parse(readFileSync(report, "utf8")) as VitestReport;
  } catch {
    outcome.error = `vitest exited with ${code} and wrote no report`;
    return outcome;
  }
  for (const file of parsed.testResults) {
    for (const test of file.assertionResults) {
      if (test.status === "passed") outcome.passed++;
      else if (test.status === "failed") {
        outcome.failed++;
        const firstLine = (test.failureMessages[0] ?? "").split("\n")[0]?.slice(0, 160) ?? "";
        outcome.failures.push(`${test.title}: ${firstLine}`);
      } else outcome.skipped++;
    }
    if (file.assertionResults.length === 0 && file.message) outcome.error = file.message.split("\n")[0];
  }
  return outcome;
}

interface VitestReport {
  testResults: {
    message?: string;
    assertionResults: { title: string; status: string; failureMessages: string[] }[];
  }[];
}

function summary(outcome: SuiteOutcome): string {
  if (outcome.error && outcome.passed + outcome.failed === 0) return `not run: ${outcome.error}`;
  const total = outcome.passed + outcome.failed;
  return outcome.failed === 0
    ? `passed (${outcome.passed}/${total})`
    : `failed (${outcome.failed}/${total} failed)`;
}

function table(outcomes: SuiteOutcome[]): string {
  const lines = ["| CLI | version | suite | outcome | why |", "|---|---|---|---|---|"];
  for (const o of outcomes) {
    const why =
      o.failures.length > 0 ? o.failures.slice(0, 3).join("; ").replaceAll("|", "\\|") : (o.error ?? "");
    lines.push(`| ${o.cli} | ${o.version} | ${o.suite.replace("test/e2e/", "")} | ${summary(o)} | ${why} |`);
  }
  return lines.join("\n");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
