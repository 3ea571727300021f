/**
 * The cross-backend conformance suite of the testing kit: the same programs and scripted models on
 * every backend, compared as unified transcripts. Claude Code 2.1.330 and Codex 0.169.0 run for
 * real, offline; Cursor runs against its stand-in (no binary is installable here), labelled as such.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { liveGroupCount } from "../../src/process/group-registry.js";
import {
  ACP_AGENTS,
  type AgentTurn,
  acpAgentUnavailableReason,
  anthropicTurns,
  CONFORMANCE_SCENARIOS,
  type ConformanceResult,
  type ConformanceTarget,
  claudeConformanceTarget,
  codexConformanceTarget,
  conformanceTable,
  createAcpAgentEnv,
  type ModelStep,
  runScenario,
  startFakeAnthropic,
  startFakeModelForAgent,
} from "../../src/testing/index.js";
import { CLAUDE_CODE_ACP_VERSION } from "./acp-support.js";
import { FAKE_CURSOR } from "./cursor-support.js";

/** The Cursor stand-in: it plays scripted text answers only, and has no model server to inspect. */
const cursorStandIn: ConformanceTarget = {
  name: "cursor (stand-in)",
  backend: "cursor",
  features: [],
  plays: ["text"],
  async start(steps) {
    const root = mkdtempSync(join(tmpdir(), "cas-conformance-cursor-"));
    const replies = steps.map((step) => ("text" in step ? step.text : ""));
    return {
      cwd: root,
      options: (extra = {}) => ({
        backend: "cursor",
        cliPath: FAKE_CURSOR,
        cwd: root,
        ...extra,
        env: { HOME: root, FAKE_CURSOR_REPLIES: JSON.stringify(replies), ...extra.env },
        cursor: { apiKey: "sk-cursor-test", ...extra.cursor },
      }),
      stalled: () => Promise.reject(new Error("the stand-in does not stall")),
      modelRequests: () => [],
      async [Symbol.asyncDispose]() {
        rmSync(root, { recursive: true, force: true });
      },
    };
  },
};

/** An ACP agent's turn for a scripted step (the steps its fake model can play). */
function agentTurn(step: ModelStep, cwd: string): AgentTurn {
  if ("text" in step) return { text: step.text };
  if ("bash" in step) return { shell: step.bash };
  if ("write" in step)
    return { writeFile: { path: join(cwd, step.write.path), content: step.write.content } };
  if ("stall" in step) return { stall: true, text: step.stall };
  if ("fail" in step)
    return step.fail === "rate_limit"
      ? { error: { status: 429, message: "Rate limit reached for requests" } }
      : { error: { status: 429, message: "You exceeded your current quota (insufficient_quota)" } };
  throw new Error(`the ACP target cannot play ${JSON.stringify(step)}`);
}

/** Qwen Code over ACP against its fake Chat Completions model. */
const ACP_AGENT = "qwen" as const;
const acpTarget: ConformanceTarget = {
  name: `${ACP_AGENT} ${ACP_AGENTS[ACP_AGENT].testedVersion} (acp)`,
  backend: "acp",
  features: [],
  // Not "fail": Qwen Code retries a 429 itself, so a scripted failure is answered by the next turn.
  plays: ["text", "bash", "write", "stall"],
  async start(steps) {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "cas-conformance-acp-")));
    const model = await startFakeModelForAgent(ACP_AGENT, { turns: steps.map((s) => agentTurn(s, root)) });
    const env = createAcpAgentEnv(ACP_AGENT, { baseUrl: model.url, cwd: root });
    return {
      cwd: env.cwd,
      options: (extra = {}) => ({
        backend: "acp",
        acp: { agent: ACP_AGENT, args: [...ACP_AGENTS[ACP_AGENT].acpArgs], mode: "default" },
        cwd: env.cwd,
        inheritEnv: false,
        ...extra,
        env: { ...env.env, ...extra.env },
      }),
      stalled: async () => {
        await model.waitForRequest((r) => JSON.stringify(r.body).includes("take your time"));
      },
      modelRequests: () => model.turnRequests.map((r) => JSON.stringify(r.body)),
      async [Symbol.asyncDispose]() {
        await model.close();
        await env.cleanup();
        rmSync(root, { recursive: true, force: true });
      },
    };
  },
};

/** claude-code-acp (the adapter runs commands through the client's terminal) against the fake Anthropic API. */
const claudeAcpTarget: ConformanceTarget = {
  name: `claude-code-acp ${CLAUDE_CODE_ACP_VERSION} (acp)`,
  backend: "acp",
  features: ["clientTerminals"],
  plays: ["text", "bash"],
  async start(steps) {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "cas-conformance-ccacp-")));
    // The adapter offers its client-terminal Bash as the MCP tool mcp__acp__Bash.
    const turns = steps.flatMap((step) =>
      "bash" in step
        ? [
            {
              toolUse: {
                name: "mcp__acp__Bash",
                input: { command: step.bash, timeout: 10_000, description: "run it" },
              },
            },
          ]
        : anthropicTurns([step], root),
    );
    const model = await startFakeAnthropic({ turns });
    return {
      cwd: root,
      options: (extra = {}) => ({
        backend: "acp",
        acp: { agent: "claude-code-acp" },
        cwd: root,
        inheritEnv: false,
        ...extra,
        env: { ...model.env(), ...extra.env },
      }),
      stalled: () => Promise.reject(new Error("not used")),
      modelRequests: () => model.turnRequests.map((r) => JSON.stringify(r.body)),
      async [Symbol.asyncDispose]() {
        await model.close();
        rmSync(root, { recursive: true, force: true });
      },
    };
  },
};

/** The scenarios the ACP target runs (each agent start takes seconds: the portable ones). */
const ACP_SCENARIOS = new Set([
  "text-answer",
  "timeout",
  "max-turns",
  "two-turn-cost",
  "rate-limit-vs-quota",
  "interrupt-then-ask",
]);

const targets = [
  claudeConformanceTarget({ name: "claude 2.1.330" }),
  codexConformanceTarget({ name: "codex 0.169.0" }),
  cursorStandIn,
  ...(acpAgentUnavailableReason(ACP_AGENT) === undefined ? [acpTarget] : []),
  claudeAcpTarget,
];
const results: ConformanceResult[] = [];

afterAll(() => {
  // The table in the README and the closing note comes from this output.
  if (results.length > 0) console.log(`\n${conformanceTable(results)}\n`);
});

describe.each(targets)("conformance: $name", (target) => {
  const scenarios = CONFORMANCE_SCENARIOS.filter(
    (s) =>
      (target !== acpTarget || ACP_SCENARIOS.has(s.id)) &&
      (target !== claudeAcpTarget || s.id === "terminal-on-acp"),
  );
  it.each(scenarios.map((s) => [s.id, s] as const))("%s", { timeout: 120_000 }, async (_id, scenario) => {
    const outcome = await runScenario(target, scenario);
    results.push({ target: target.name, scenario: scenario.id, outcome });
    if (outcome.status === "failed") {
      throw new Error(
        `${scenario.id} on ${target.name}:\n- ${outcome.problems.join("\n- ")}\n${JSON.stringify(outcome.transcript, null, 1)}`,
      );
    }
    if (outcome.status === "skipped")
      expect(outcome.reason).toMatch(
        /^(missing capability|not offered by this target|its scripted model cannot play)/,
      );
    expect(liveGroupCount()).toBe(0);
  });
});
