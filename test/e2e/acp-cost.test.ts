/**
 * Cost and token usage per turn on real ACP agents, offline against the fake model.
 * - GitHub Copilot answers each `session/prompt` with `usage` that is a running total over its
 *   process: the result's `tokenUsage` is the turn's own share (`raw.usage` keeps the total).
 * - OpenCode and Kilo send `usage_update` with `cost: { amount, currency: "USD" }` (the session's cumulative
 *   cost; 0 for the fake model, which has no price): the result's `totalCostUsd` and
 *   `sessionCostUsd` are numbers, not `null`. ~30 s from a fresh home: only with
 *   CODE_AGENT_SDK_SLOW_TESTS=1.
 */
import { describe, expect, it } from "vitest";
import { type AcpAgentOptions, AgentSdkClient } from "../../src/index.js";
import {
  ACP_AGENTS,
  type AcpAgentName,
  acpAgentUnavailableReason,
  createAcpAgentEnv,
  startFakeModelForAgent,
} from "../../src/testing/index.js";
import { runningAgents } from "./acp-support.js";

const timeout = 180_000;

function skipReason(agent: AcpAgentName, slow: boolean): string | undefined {
  return (
    acpAgentUnavailableReason(agent) ??
    (slow && process.env.CODE_AGENT_SDK_SLOW_TESTS !== "1" ? "slow: CODE_AGENT_SDK_SLOW_TESTS=1" : undefined)
  );
}

async function twoTurns(agent: AcpAgentName) {
  await using model = await startFakeModelForAgent(agent, { defaultTurn: { text: "OK" } });
  const env = createAcpAgentEnv(agent, { baseUrl: model.url });
  try {
    const options: AcpAgentOptions = {
      backend: "acp",
      acp: { agent, args: [...ACP_AGENTS[agent].acpArgs] },
      cwd: env.cwd,
      env: env.env,
      inheritEnv: false,
      canUseTool: async () => ({ behavior: "allow" }),
    };
    await using client = new AgentSdkClient(options);
    await client.connect();
    const first = await client.run("say something");
    const second = await client.run("say something else");
    await client.disconnect();
    expect(runningAgents()).toBe(0);
    return [first.result, second.result] as const;
  } finally {
    await env.cleanup();
  }
}

describe("ACP cost and tokens per turn on real agents", () => {
  it.skipIf(skipReason("copilot", false) !== undefined)(
    `Copilot ${ACP_AGENTS.copilot.testedVersion}: tokenUsage is each turn's own, though the agent reports running totals`,
    { timeout },
    async () => {
      const [a, b] = await twoTurns("copilot");
      const totalA = a.raw.usage as { inputTokens: number; outputTokens: number };
      const totalB = b.raw.usage as { inputTokens: number; outputTokens: number };
      expect(totalA.inputTokens).toBeGreaterThan(0);
      // The agent's figure grows across turns (a running total)…
      expect(totalB.inputTokens).toBeGreaterThan(totalA.inputTokens);
      // …and the result's is the turn's share of it.
      expect(a.tokenUsage).toMatchObject({
        inputTokens: totalA.inputTokens,
        outputTokens: totalA.outputTokens,
      });
      expect(b.tokenUsage).toMatchObject({
        inputTokens: totalB.inputTokens - totalA.inputTokens,
        outputTokens: totalB.outputTokens - totalA.outputTokens,
      });
      // Copilot reports no cost.
      expect(b.totalCostUsd).toBeNull();
      expect(b.sessionCostUsd).toBeNull();
    },
  );

  for (const agent of ["opencode", "kilo"] as const) {
    it.skipIf(skipReason(agent, true) !== undefined)(
      `${ACP_AGENTS[agent].displayName} ${ACP_AGENTS[agent].testedVersion}: usage_update's USD cost gives totalCostUsd and sessionCostUsd; tokens per turn`,
      { timeout },
      async () => {
        const [a, b] = await twoTurns(agent);
        for (const r of [a, b]) {
          expect(r.raw.cost).toMatchObject({ currency: "USD" });
          expect(typeof r.totalCostUsd).toBe("number");
          expect(r.sessionCostUsd).toBe((r.raw.cost as { amount: number }).amount);
          expect(r.tokenUsage?.inputTokens).toBeGreaterThan(0);
        }
        expect(b.sessionCostUsd).toBeCloseTo(
          (a.sessionCostUsd ?? Number.NaN) + (b.totalCostUsd ?? Number.NaN),
          9,
        );
      },
    );
  }
});
