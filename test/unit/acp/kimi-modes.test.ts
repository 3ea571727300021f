/**
 * Our permission modes on Kimi Code 2.1.0, from its real `session/new` answer: a `mode` config
 * option (and `modes`) with default / plan / auto / yolo. Its `yolo` ("Ask When Needed") still asks
 * before a dangerous command; its `auto` ("Never Ask") runs everything — bypassPermissions is `auto`,
 * not the `yolo` other agents' bypass mode is called.
 */
import { describe, expect, it } from "vitest";
import { AcpSessionConfig } from "../../../src/backends/acp/session-config.js";
import { InvalidOptionsError } from "../../../src/index.js";

const modes = [
  { id: "default", name: "Default", description: "Manual approvals; tools execute normally." },
  { id: "plan", name: "Plan", description: "Read-only planning; no tool execution." },
  { id: "auto", name: "Auto", description: "Auto-approve safe operations." },
  { id: "yolo", name: "YOLO", description: "Auto-approve everything." },
];
/** `kimi acp`'s session/new answer (session id as captured). */
const sessionNew = {
  sessionId: "session_b72576c6-dfd6-4995-8c6d-ad39da19568e",
  configOptions: [
    {
      type: "select",
      id: "model",
      name: "Model",
      category: "model",
      currentValue: "fake",
      options: [{ value: "fake", name: "fake-model" }],
    },
    {
      type: "select",
      id: "mode",
      name: "Mode",
      category: "mode",
      currentValue: "default",
      options: modes.map((m) => ({ value: m.id, name: m.name, description: m.description })),
    },
  ],
  modes: { currentModeId: "default", availableModes: modes },
};

function config(agent: string): AcpSessionConfig {
  const c = new AcpSessionConfig(agent);
  c.read(sessionNew);
  return c;
}

describe("Kimi Code modes", () => {
  it("bypassPermissions is Kimi's auto (Never Ask), not its yolo (dangerous commands still ask)", () => {
    expect(config("kimi").modeRequest("bypassPermissions")).toEqual({
      method: "session/set_config_option",
      params: { configId: "mode", value: "auto" },
    });
    // Another agent with the same mode names keeps the common reading (yolo is everything).
    expect(config("other").modeRequest("bypassPermissions").params.value).toBe("yolo");
  });

  it("default, plan and auto by their ids; Kimi's own yolo by its id; no acceptEdits or dontAsk", () => {
    const kimi = config("kimi");
    expect(kimi.modeRequest("default").params.value).toBe("default");
    expect(kimi.modeRequest("plan").params.value).toBe("plan");
    expect(kimi.modeRequest("auto").params.value).toBe("auto");
    expect(kimi.modeRequest("yolo").params.value).toBe("yolo");
    expect(() => kimi.modeRequest("acceptEdits")).toThrow(InvalidOptionsError);
    expect(() => kimi.modeRequest("dontAsk")).toThrow(/its modes: default \(Default\), plan \(Plan\)/);
    expect(() => kimi.modeRequest("constructor")).toThrow(InvalidOptionsError);
  });

  it("setModel by the alias or the model's name", () => {
    const kimi = config("kimi");
    expect(kimi.modelRequest("fake").params).toEqual({ configId: "model", value: "fake" });
    expect(kimi.modelRequest("fake-model").params).toEqual({ configId: "model", value: "fake" });
    expect(kimi.report()).toEqual({ setModel: "config_option", setPermissionMode: "config_option" });
  });
});
