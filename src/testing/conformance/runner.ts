/**
 * Runs the conformance scenarios against targets: an agent plus a scripted model it can talk to.
 * Built-in targets run the real Claude Code and Codex CLIs against the kit's fake servers; a user can
 * describe their own (another CLI path, another agent, a stand-in) as a {@link ConformanceTarget}.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getBackend } from "../../backends/registry.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import type { BackendKind } from "../../options.js";
import { startFakeAnthropic } from "../anthropic/server.js";
import { startFakeOpenAI } from "../openai/server.js";
import { anthropicTurns, type ModelStep, type ModelStepKind, responsesTurns, stepKind } from "./model.js";
import {
  CONFORMANCE_SCENARIOS,
  type ConformanceFeature,
  type ConformanceScenario,
  type ScenarioContext,
} from "./scenarios.js";
import { compareTranscript, type TranscriptEntry, unifiedTranscript } from "./transcript.js";

/** A scripted model and a workspace, ready for one scenario. */
export interface ConformanceBed extends AsyncDisposable {
  cwd: string;
  options(extra?: ResolvedOptions): ResolvedOptions;
  stalled(): Promise<void>;
  modelRequests(): string[];
}

/** An agent to run the scenarios against. */
export interface ConformanceTarget {
  /** A label for reports, e.g. `claude 2.1.330` or `cursor (stand-in)`. */
  name: string;
  backend: BackendKind;
  /** Features beyond the backend's capabilities that this target offers (see {@link ConformanceFeature}). */
  features: ConformanceFeature[];
  /** Step kinds its scripted model can play; all when omitted. A stand-in may play fewer. */
  plays?: ModelStepKind[];
  /** Starts a scripted model playing `steps` and a fresh workspace. */
  start(steps: ModelStep[]): Promise<ConformanceBed>;
}

/** How one scenario went on one target. */
export type ConformanceOutcome =
  | { status: "passed"; transcript: TranscriptEntry[] }
  | { status: "skipped"; reason: string }
  | { status: "failed"; problems: string[]; transcript?: TranscriptEntry[] };

/** One line of a conformance report. */
export interface ConformanceResult {
  target: string;
  scenario: string;
  outcome: ConformanceOutcome;
}

/**
 * Why `target` cannot run `scenario`, or `undefined` when it can: a missing capability or feature,
 * or a model step its scripted model cannot play. Never a silent pass.
 */
export function skipReason(target: ConformanceTarget, scenario: ConformanceScenario): string | undefined {
  const capabilities = getBackend(target.backend).capabilities as unknown as Record<string, boolean>;
  for (const need of scenario.needs) {
    if (need in capabilities) {
      if (capabilities[need] !== true) return `missing capability: ${need}`;
    } else if (!target.features.includes(need)) return `not offered by this target: ${need}`;
  }
  for (const step of scenario.model) {
    const kind = stepKind(step);
    if (target.plays && !target.plays.includes(kind)) return `its scripted model cannot play a ${kind} step`;
  }
  return undefined;
}

/** Runs one scenario on one target. */
export async function runScenario(
  target: ConformanceTarget,
  scenario: ConformanceScenario,
): Promise<ConformanceOutcome> {
  const reason = skipReason(target, scenario);
  if (reason) return { status: "skipped", reason };
  await using bed = await target.start(scenario.model);
  await using mcp = echoMcpServerFile();
  const ctx: ScenarioContext = {
    cwd: bed.cwd,
    options: (extra) => bed.options(extra),
    echoMcpServer: () => ({ echo: { command: process.execPath, args: [mcp.path] } }),
    stalled: () => bed.stalled(),
    modelRequests: () => bed.modelRequests(),
  };
  let run: Awaited<ReturnType<ConformanceScenario["run"]>>;
  try {
    run = await scenario.run(ctx);
  } catch (error) {
    return {
      status: "failed",
      problems: [`threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`],
    };
  }
  const transcript = unifiedTranscript(run.messages);
  const compared =
    scenario.id === "interrupt" || scenario.tailOnly
      ? transcript.slice(-scenario.expected.length)
      : transcript;
  const problems = [...compareTranscript(compared, scenario.expected), ...run.problems];
  return problems.length === 0
    ? { status: "passed", transcript }
    : { status: "failed", problems, transcript };
}

/** Runs every scenario (or the given ones) on every target, one at a time. */
export async function runConformance(
  targets: ConformanceTarget[],
  scenarios: readonly ConformanceScenario[] = CONFORMANCE_SCENARIOS,
): Promise<ConformanceResult[]> {
  const results: ConformanceResult[] = [];
  for (const target of targets) {
    for (const scenario of scenarios) {
      results.push({
        target: target.name,
        scenario: scenario.id,
        outcome: await runScenario(target, scenario),
      });
    }
  }
  return results;
}

/** A Markdown table of results: scenario × target → passed / skipped (reason) / failed. */
export function conformanceTable(results: ConformanceResult[]): string {
  const targets = [...new Set(results.map((r) => r.target))];
  const scenarios = [...new Set(results.map((r) => r.scenario))];
  const cell = (outcome: ConformanceOutcome) =>
    outcome.status === "passed"
      ? "passed"
      : outcome.status === "skipped"
        ? `skipped (${outcome.reason})`
        : "FAILED";
  const lines = [`| scenario | ${targets.join(" | ")} |`, `|---|${targets.map(() => "---").join("|")}|`];
  for (const scenario of scenarios) {
    const cells = targets.map((t) => {
      const found = results.find((r) => r.target === t && r.scenario === scenario);
      return found ? cell(found.outcome) : "";
    });
    lines.push(`| ${scenario} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

/** Claude Code (the real CLI; `cliPath` to pick one) against the kit's fake Anthropic server. */
export function claudeConformanceTarget(
  options: { name?: string; cliPath?: string } = {},
): ConformanceTarget {
  return {
    name: options.name ?? "claude",
    backend: "claude",
    features: ["structuredOutput", "stdioMcpServers", "resume", "everyCallPolicy"],
    async start(steps) {
      const cwd = workspace();
      const model = await startFakeAnthropic({ turns: anthropicTurns(steps, cwd) });
      return {
        cwd,
        options: (extra = {}) => ({
          backend: "claude",
          cwd,
          ...(options.cliPath !== undefined ? { cliPath: options.cliPath } : {}),
          ...extra,
          env: { ...model.env(), ...extra.env },
        }),
        stalled: async () => {
          await model.waitForRequest((r) => r.lastUserText === "take your time");
        },
        modelRequests: () => model.turnRequests.map((r) => JSON.stringify(r.body)),
        async [Symbol.asyncDispose]() {
          await model.close();
          rmSync(cwd, { recursive: true, force: true });
        },
      };
    },
  };
}

/** Codex (the real CLI; `cliPath` to pick one) against the kit's fake Responses server. */
export function codexConformanceTarget(options: { name?: string; cliPath?: string } = {}): ConformanceTarget {
  return {
    name: options.name ?? "codex",
    backend: "codex",
    features: ["structuredOutput", "stdioMcpServers", "resume"],
    async start(steps) {
      const cwd = workspace();
      const api = await startFakeOpenAI({ turns: responsesTurns(steps) });
      const home = api.codexHome();
      return {
        cwd,
        options: (extra = {}) => ({
          backend: "codex",
          cwd,
          ...(options.cliPath !== undefined ? { cliPath: options.cliPath } : {}),
          ...extra,
          codex: { sandboxMode: "workspace-write", ...extra.codex },
          env: { ...home.env, ...extra.env },
        }),
        stalled: async () => {
          await api.waitForRequest((r) => r.lastUserText.trimEnd() === "take your time");
        },
        modelRequests: () => api.turnRequests.map((r) => JSON.stringify(r.body)),
        async [Symbol.asyncDispose]() {
          await api.close();
          rmSync(cwd, { recursive: true, force: true });
        },
      };
    },
  };
}

function workspace(): string {
  // The real path: agents report resolved paths (macOS /private/var, symlinked tmp dirs).
  return realpathSync(mkdtempSync(join(tmpdir(), "cas-conformance-")));
}

/**
 * A stdio MCP server with one `echo` tool, written to a temporary file. It speaks the few MCP
 * methods a CLI uses (initialize, tools/list, tools/call) itself, so the file runs from anywhere
 * without resolving packages.
 */
function echoMcpServerFile(): { path: string } & AsyncDisposable {
  const dir = mkdtempSync(join(tmpdir(), "cas-echo-mcp-"));
  const path = join(dir, "echo-mcp.mjs");
  writeFileSync(path, ECHO_MCP_SERVER);
  return {
    path,
    async [Symbol.asyncDispose]() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const ECHO_MCP_SERVER = `import { createInterface } from "node:readline";
const tool = {
  name: "echo",
  description: "Echoes text back, prefixed with 'echo: '.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
};
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  let request;
  try { request = JSON.parse(line); } catch { return; }
  if (request.id === undefined) return;
  const { id, method, params } = request;
  if (method === "initialize")
    send({ id, result: { protocolVersion: params?.protocolVersion ?? "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "echo", version: "1.0.0" } } });
  else if (method === "tools/list") send({ id, result: { tools: [tool] } });
  else if (method === "tools/call") send({ id, result: { content: [{ type: "text", text: "echo: " + String(params?.arguments?.text ?? "") }] } });
  else if (method === "ping") send({ id, result: {} });
  else send({ id, error: { code: -32601, message: "Method not found: " + method } });
});
`;
