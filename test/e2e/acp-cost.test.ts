/**
 * Cost and token usage per turn on real ACP agents, offline against the fake model.
 * - GitHub Copilot answers each `session/prompt` with `usage` that is a running total over its
 *   process: the result's `tokenUsage` is the turn's own share (`raw.usage` keeps the total).
 * - OpenCode and Kilo send `usage_update` with `cost: { amount, currency: "USD" }` (the session's
 *   cumulative cost, from the model's price in their config, which the test sets): the result's
 *   `totalCostUsd` is the turn's share, `sessionCostUsd` the cumulative amount (measured: OpenCode
 *   0.023076 then 0.023139, session 0.046215; after a resume in a new process the amount goes on,
 *   0.069408, and that first turn's share is null). Up to ~30 s each from a fresh home: only with
 *   CODE_AGENT_SDK_SLOW_TESTS=1.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type AcpAgentOptions, AgentSdkClient } from "../../src/index.js";
import {
  ACP_AGENTS,
  type AcpAgentEnv,
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

/**
 * Gives the fake model of an OpenCode/Kilo config a price (USD per million tokens), so that the
 * cost the agent reports is not 0.
 */
function priceModel(env: AcpAgentEnv, agent: "opencode" | "kilo"): void {
  const file = join(env.home, ".config", agent, `${agent}.json`);
  const config = JSON.parse(readFileSync(file, "utf8"));
  for (const provider of Object.values(config.provider) as { models: Record<string, object> }[]) {
    for (const [id, entry] of Object.entries(provider.models)) {
      provider.models[id] = { ...entry, cost: { input: 3, output: 15 } };
    }
  }
  writeFileSync(file, JSON.stringify(config));
}

async function twoTurns(agent: AcpAgentName, resumeTurn = false) {
  await using model = await startFakeModelForAgent(agent, { defaultTurn: { text: "OK" } });
  const env = createAcpAgentEnv(agent, { baseUrl: model.url });
  try {
    if (agent === "opencode" || agent === "kilo") priceModel(env, agent);
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
    if (resumeTurn) {
      await using again = new AgentSdkClient({ ...options, resume: first.result.sessionId });
      await again.connect();
      const third = await again.run("one more");
      await again.disconnect();
      return [first.result, second.result, third.result] as const;
    }
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
      `${ACP_AGENTS[agent].displayName} ${ACP_AGENTS[agent].testedVersion}: usage_update's USD cost gives totalCostUsd and sessionCostUsd, also after a resume; tokens per turn`,
      { timeout },
      async () => {
        const [a, b, c] = await twoTurns(agent, true);
        for (const r of [a, b]) {
          expect(r.raw.cost).toMatchObject({ currency: "USD" });
          // The priced model: every turn costs something.
          expect(r.totalCostUsd).toBeGreaterThan(0);
          expect(r.sessionCostUsd).toBe((r.raw.cost as { amount: number }).amount);
          expect(r.tokenUsage?.inputTokens).toBeGreaterThan(0);
        }
        // The first turn's cost is the whole session's so far; the second's only its own share.
        expect(a.totalCostUsd).toBe(a.sessionCostUsd);
        expect(b.totalCostUsd).toBeLessThan(b.sessionCostUsd ?? 0);
        expect(b.sessionCostUsd).toBeCloseTo(
          (a.sessionCostUsd ?? Number.NaN) + (b.totalCostUsd ?? Number.NaN),
          9,
        );
        // Resumed in a new process: the agent's amount goes on from the session's (it is kept with the
        // session), but no amount came before the turn (none in the load replay), so the turn's own
        // share is not known.
        expect(c?.sessionCostUsd).toBeGreaterThan(b.sessionCostUsd ?? Number.POSITIVE_INFINITY);
        expect(c?.totalCostUsd).toBeNull();
      },
    );
  }
});
