/**
 * The portable limits and failure classes on an ACP agent (Qwen Code, which has no turn, token or
 * time limit the client can set): the SDK enforces them. Real agent against the fake model.
 */
import { describe, expect, it } from "vitest";
import { type AcpAgentOptions, AgentSdkClient, query, TimeoutError } from "../../src/index.js";
import {
  ACP_AGENTS,
  type AcpAgentEnv,
  type AgentModelServer,
  type AgentTurn,
  acpAgentUnavailableReason,
  createAcpAgentEnv,
  startFakeModelForAgent,
} from "../../src/testing/index.js";
import { runningAgents } from "./acp-support.js";

const agent = "qwen" as const;
const reason = acpAgentUnavailableReason(agent);
const timeout = 120_000;

async function bed(
  turns: AgentTurn[] = [],
): Promise<{ model: AgentModelServer; env: AcpAgentEnv } & AsyncDisposable> {
  const model = await startFakeModelForAgent(agent, { turns, defaultTurn: { text: "OK" } });
  const env = createAcpAgentEnv(agent, { baseUrl: model.url });
  return {
    model,
    env,
    async [Symbol.asyncDispose]() {
      await model.close();
      await env.cleanup();
    },
  };
}

function options(env: AcpAgentEnv, extra: Omit<AcpAgentOptions, "backend"> = {}): AcpAgentOptions {
  return {
    backend: "acp",
    acp: { agent, args: [...ACP_AGENTS[agent].acpArgs], mode: "default" },
    cwd: env.cwd,
    env: env.env,
    inheritEnv: false,
    canUseTool: async () => ({ behavior: "allow" }),
    ...extra,
  };
}

describe.skipIf(reason !== undefined)(
  `portable limits on ACP ${agent} ${ACP_AGENTS[agent].testedVersion}`,
  () => {
    it("maxTurns ends the turn after the tool round it allows (error_max_turns); the session goes on", {
      timeout,
    }, async () => {
      // Whether the agent asks again before the cancel lands varies: answer by the prompt.
      const byPrompt: AgentTurn = (req) =>
        JSON.stringify(req.body).includes("hello") ? { text: "next answer" } : { shell: "echo more" };
      await using b = await bed([{ shell: "echo one" }, byPrompt, byPrompt, byPrompt]);
      await using client = new AgentSdkClient(options(b.env, { maxTurns: 1 }));
      await client.connect();
      const first = await client.run("run things");
      expect(first.result).toMatchObject({ subtype: "error_max_turns", isError: true, errorKind: null });
      const next = await client.run("hello");
      expect(next.result).toMatchObject({ isError: false, result: "next answer" });
      await client.disconnect();
      expect(runningAgents()).toBe(0);
    });

    it("timeoutMs ends a stalled turn with a TimeoutError, the agent's process group gone", {
      timeout,
    }, async () => {
      await using b = await bed([{ stall: true, text: "thinking" }]);
      const error = await query({ prompt: "x", options: options(b.env, { timeoutMs: 3000 }) })
        .collect()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(TimeoutError);
      expect(runningAgents()).toBe(0);
    });

    it("a 400 from the model → invalid_request; 401 → authentication_failed", { timeout }, async () => {
      for (const [status, kind] of [
        [400, "invalid_request"],
        [401, "authentication_failed"],
      ] as const) {
        await using b = await bed([{ error: { status, message: `scripted ${status}` } }]);
        const turn = await query({ prompt: "x", options: options(b.env) }).collect();
        expect({ status, kind: turn.errorKind, error: turn.error, text: turn.text }).toMatchObject({ kind });
      }
    });
  },
);
