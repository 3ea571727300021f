/**
 * ACP session controls against real agents, offline: `setModel` / `setPermissionMode` where the agent
 * offers them (session config options, else session/set_model / session/set_mode), the typed error
 * where it does not, and `close()` (session/close where declared; what goes on the wire is checked
 * in test/unit/acp/session-config.test.ts). Each session answers a turn after the switches.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  type AcpAgentOptions,
  AgentSdkClient,
  InvalidOptionsError,
  UnsupportedFeatureError,
} from "../../src/index.js";
import {
  ACP_AGENTS,
  type AcpAgentName,
  acpAgentUnavailableReason,
  createAcpAgentEnv,
  startFakeModelForAgent,
} from "../../src/testing/index.js";
import {
  CLAUDE_CODE_ACP_VERSION,
  claudeAcpBed,
  codexAcpBed,
  collect,
  results,
  runningAgents,
} from "./acp-support.js";

afterEach(() => {
  expect(runningAgents()).toBe(0);
});

const timeout = 180_000;

interface Controls {
  setModel: string | false;
  setPermissionMode: string | false;
  close: boolean;
  resume: string | false;
}

/** The choices of the session's model config option, else of its `models`. */
function modelChoices(session: Record<string, unknown>): string[] {
  const options = Array.isArray(session.configOptions)
    ? (session.configOptions as Record<string, unknown>[])
    : [];
  // Cline sends a `provider` option in category model before its `model` one.
  const inCategory = options.filter((o) => o.category === "model");
  const model = inCategory.find((o) => o.id === "model") ?? inCategory[0];
  if (model && Array.isArray(model.options)) return model.options.map((o: { value: string }) => o.value);
  const models = session.models as { availableModels?: { modelId: string }[] } | undefined;
  return (models?.availableModels ?? []).map((m) => m.modelId);
}

/**
 * One session: the controls it reports match `expected`; `setPermissionMode(mode)` and
 * `setModel(pick(choices))` succeed where reported and throw the typed error where not; a bad model
 * is refused with the choices; a turn still answers; close() ends the agent.
 */
async function exercise(
  options: AcpAgentOptions,
  expected: Controls,
  mode: Parameters<AgentSdkClient["setPermissionMode"]>[0],
  pick: (choices: string[]) => string,
): Promise<{ model: string | undefined }> {
  const client = new AgentSdkClient(options);
  let chosen: string | undefined;
  try {
    await client.connect();
    const info = (await client.getServerInfo()) as Record<string, unknown>;
    expect(info.controls).toMatchObject(expected);
    if (expected.setPermissionMode) await client.setPermissionMode(mode);
    else await expect(client.setPermissionMode(mode)).rejects.toBeInstanceOf(UnsupportedFeatureError);
    if (expected.setModel) {
      chosen = pick(modelChoices(info.session as Record<string, unknown>));
      await client.setModel(chosen);
      await expect(client.setModel("no-such-model")).rejects.toBeInstanceOf(InvalidOptionsError);
    } else {
      await expect(client.setModel("any")).rejects.toBeInstanceOf(UnsupportedFeatureError);
    }
    await client.query("hello after the switches");
    expect(results(await collect(client.receiveResponse()))[0]?.isError).toBe(false);
  } finally {
    await client.disconnect();
  }
  return { model: chosen };
}

describe("ACP session controls against real agents", () => {
  it(`claude-code-acp ${CLAUDE_CODE_ACP_VERSION}: session/set_mode (plan) and session/set_model (opus)`, {
    timeout,
  }, async () => {
    await using bed = await claudeAcpBed([], { text: "OK" });
    const { model } = await exercise(
      bed.options(),
      { setModel: "set_model", setPermissionMode: "set_mode", close: false, resume: "load" },
      "plan",
      (choices) => choices.find((c) => c === "opus") ?? String(choices[0]),
    );
    expect(model).toBe("opus");
    // The turn after the switch went to an Opus model.
    const turn = bed.model.requests.find((r) => r.lastUserText.includes("hello after the switches"));
    expect(String(turn?.body?.model)).toContain("opus");
  });

  it("codex-acp: the model config option (the next turn uses it); no modes; session/close declared", {
    timeout,
  }, async () => {
    await using bed = await codexAcpBed([]);
    const { model } = await exercise(
      bed.options(),
      { setModel: "config_option", setPermissionMode: false, close: true, resume: "load" },
      "plan",
      (choices) => String(choices.at(-1)),
    );
    const turn = bed.api.requests.at(-1);
    expect(turn?.body?.model).toBe(model);
  });

  const agents: { agent: AcpAgentName; expected: Controls; mode: "plan" | "acceptEdits"; slow?: boolean }[] =
    [
      // Qwen: mode and model config options (auto-edit for acceptEdits), session/resume but no close.
      {
        agent: "qwen",
        expected: {
          setModel: "config_option",
          setPermissionMode: "config_option",
          close: false,
          resume: "load",
        },
        mode: "acceptEdits",
      },
      // Gemini CLI: `modes` and `models` only (session/set_mode, session/set_model; autoEdit for acceptEdits).
      {
        agent: "gemini",
        expected: { setModel: "set_model", setPermissionMode: "set_mode", close: false, resume: "load" },
        mode: "acceptEdits",
      },
      // OpenCode: mode and model config options, no `modes`; session/close, list, resume and fork.
      // ~27 s here (a process start from a fresh home): only with CODE_AGENT_SDK_SLOW_TESTS=1.
      {
        agent: "opencode",
        slow: true,
        expected: {
          setModel: "config_option",
          setPermissionMode: "config_option",
          close: true,
          resume: "load",
        },
        mode: "plan",
      },
      // Cline: mode (plan, act) and model config options beside `modes` and `models`; no close.
      {
        agent: "cline",
        expected: {
          setModel: "config_option",
          setPermissionMode: "config_option",
          close: false,
          resume: "load",
        },
        mode: "plan",
      },
      // CodeBuddy Code: mode and model config options beside `modes` and `models` (the custom model's
      // value is `custom-local:<id>`); session/load, no session/close.
      {
        agent: "codebuddy",
        expected: {
          setModel: "config_option",
          setPermissionMode: "config_option",
          close: false,
          resume: "load",
        },
        mode: "acceptEdits",
      },
      // Kimi Code (Node >= 22.19): mode and model config options beside `modes`; session/close,
      // list, resume and fork declared.
      {
        agent: "kimi",
        expected: {
          setModel: "config_option",
          setPermissionMode: "config_option",
          close: true,
          resume: "load",
        },
        mode: "plan",
      },
      // Factory Droid: mode (autonomy level: auto-low for acceptEdits) and model config options beside
      // `modes` and `models`; session/load and session/resume, no session/close.
      {
        agent: "droid",
        expected: {
          setModel: "config_option",
          setPermissionMode: "config_option",
          close: false,
          resume: "load",
        },
        mode: "acceptEdits",
      },
      // Copilot: a mode config option (URL ids), no model choice offline, session/close.
      {
        agent: "copilot",
        expected: { setModel: false, setPermissionMode: "config_option", close: true, resume: "load" },
        mode: "plan",
      },
    ];
  for (const { agent, expected, mode, slow } of agents) {
    const reason =
      acpAgentUnavailableReason(agent) ??
      (slow && process.env.CODE_AGENT_SDK_SLOW_TESTS !== "1"
        ? "slow: CODE_AGENT_SDK_SLOW_TESTS=1"
        : undefined);
    const preset = ACP_AGENTS[agent];
    it.skipIf(reason !== undefined)(
      `${preset.displayName} ${preset.testedVersion}: setPermissionMode("${mode}"), setModel`,
      {
        timeout,
      },
      async () => {
        await using model = await startFakeModelForAgent(agent, { defaultTurn: { text: "OK" } });
        const env = createAcpAgentEnv(agent, { baseUrl: model.url });
        try {
          const { model: chosen } = await exercise(
            {
              backend: "acp",
              acp: { agent, args: [...preset.acpArgs] },
              cwd: env.cwd,
              env: env.env,
              inheritEnv: false,
            },
            expected,
            mode,
            (choices) => String(choices[0]),
          );
          if (agent === "codebuddy") {
            // The turn after the switch asked the fake for the chosen model, by its id.
            const turn = model.requests.find((r) => r.lastUserText.includes("hello after the switches"));
            expect(chosen).toBe("custom-local:fake-model");
            expect(turn?.body?.model).toBe("fake-model");
          }
          if (agent === "droid") {
            // Its custom model's value is `custom:<displayName>-<index>`; the turn asks for its model.
            const turn = model.requests.find((r) => r.lastUserText.includes("hello after the switches"));
            expect(chosen).toBe("custom:fake-model-0");
            expect(turn?.body?.model).toBe("fake-model");
          }
          if (agent === "cline") {
            // The turn after the switch asked for the chosen model.
            const turn = model.requests.find((r) => r.lastUserText.includes("hello after the switches"));
            expect(turn?.body?.model).toBe(chosen);
          }
        } finally {
          await env.cleanup();
        }
      },
    );
  }
});
