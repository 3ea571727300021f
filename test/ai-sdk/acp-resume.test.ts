/**
 * Conversations on ACP through the AI SDK provider (`ai` 6 on Node 20, 7 on Node 22+): the second
 * turn resumes the agent's session by the id in `providerMetadata` (`session/load`), leaving what
 * the load replays out of the answer; a session the agent cannot load falls back to a text replay
 * in a new session. Against Qwen Code, offline (the testing kit's fake model server).
 */
import type { ModelMessage } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { codeAgent } from "../../src/ai-sdk/index.js";
import {
  ACP_AGENTS,
  acpAgentUnavailableReason,
  createAcpAgentEnv,
  startFakeModelForAgent,
} from "../../src/testing/index.js";
import { runningAgents } from "../e2e/acp-support.js";
import { AI_MAJOR, ai } from "./ai-version.js";

const { generateText, streamText } = ai;

afterEach(() => {
  expect(runningAgents()).toBe(0);
});

const agent = "qwen";
const reason = acpAgentUnavailableReason(agent);
const preset = ACP_AGENTS[agent];

async function bed() {
  const model = await startFakeModelForAgent(agent, { defaultTurn: { text: "OK" } });
  const env = createAcpAgentEnv(agent, { baseUrl: model.url });
  const settings = {
    // Qwen starts sessions in mode `auto` (an LLM classifier instead of permission prompts).
    acp: { args: [...preset.acpArgs], mode: "default" },
    cwd: env.cwd,
    env: env.env,
    inheritEnv: false,
  };
  return {
    model,
    settings,
    async [Symbol.asyncDispose]() {
      await model.close();
      await env.cleanup();
    },
  };
}

describe.skipIf(reason !== undefined)(
  `ai-sdk provider over acp/${agent} ${preset.testedVersion} (ai ${AI_MAJOR})${reason ? ` (skipped: ${reason})` : ""}`,
  () => {
    it("the second turn resumes the session (session/load): no text replay, and the replayed history is not in the answer", {
      timeout: 120_000,
    }, async () => {
      await using b = await bed();
      const model = codeAgent(`acp/${agent}`, b.settings);
      b.model.push({ text: "remember 42" });
      const first = await generateText({ model, prompt: "remember a number" });
      expect(first.text).toBe("remember 42");
      const sessionId = first.providerMetadata?.codeAgent?.sessionId;
      expect(sessionId).toBeTruthy();
      b.model.push({ text: "it was 42" });
      const second = streamText({
        model,
        messages: [
          { role: "user", content: "remember a number" },
          ...first.response.messages,
          { role: "user", content: "which number?" },
        ],
      });
      expect(await second.text).toBe("it was 42");
      expect((await second.providerMetadata)?.codeAgent?.sessionId).toBe(sessionId);
      expect(await second.warnings).toEqual([]);
      // The agent sent the history itself (loaded); our prompt was only the new turn.
      const request = b.model.turnRequests.at(-1);
      expect(JSON.stringify(request?.body)).toContain("remember 42");
      expect(JSON.stringify(request?.body)).not.toContain("The conversation so far");
    });

    it("a session the agent cannot load: the history is replayed as text to a new session, with a warning", {
      timeout: 120_000,
    }, async () => {
      await using b = await bed();
      const model = codeAgent(`acp/${agent}`, b.settings);
      b.model.push({ text: "it was 7" });
      const messages: ModelMessage[] = [
        { role: "user", content: "remember a number" },
        {
          role: "assistant",
          content: [
            {
              type: "text",
              text: "remember 7",
              providerOptions: {
                codeAgent: { sessionId: "00000000-0000-4000-8000-000000000000", backend: "acp" },
              },
            },
          ],
        },
        { role: "user", content: "which number?" },
      ];
      const result = await generateText({ model, messages });
      expect(result.text).toBe("it was 7");
      expect(result.providerMetadata?.codeAgent?.sessionId).not.toBe("00000000-0000-4000-8000-000000000000");
      expect(result.warnings?.map((w) => ("feature" in w ? w.feature : w.type))).toContain(
        "conversation history",
      );
      expect(JSON.stringify(b.model.turnRequests.at(-1)?.body)).toContain("Assistant: remember 7");
    });
  },
);
