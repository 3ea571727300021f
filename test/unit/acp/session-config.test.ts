/**
 * ACP session controls against the stand-in agent (./config-agent.mjs), in the shapes the real
 * agents answer with (/work/shared/protocol/acp captures): setModel / setPermissionMode through
 * session config options, session/set_model and session/set_mode, the typed errors where the agent
 * offers no such thing, session/close on close(), session/resume for an agent without session/load.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SESSION_CLOSE_TIMEOUT_MS } from "../../../src/backends/acp/session.js";
import { AgentSdkClient, InvalidOptionsError, UnsupportedFeatureError } from "../../../src/index.js";
import { liveGroupCount } from "../../../src/process/group-registry.js";

const AGENT = fileURLToPath(new URL("./config-agent.mjs", import.meta.url));
let dir: string;
let agent: string;
let runs = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cas-acp-config-"));
  agent = join(dir, "config-agent");
  writeFileSync(agent, `#!${process.execPath}\nimport(${JSON.stringify(pathToFileURL(AGENT).href)});\n`);
  chmodSync(agent, 0o755);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  expect(liveGroupCount()).toBe(0);
});

interface Profile {
  caps?: Record<string, unknown>;
  session?: Record<string, unknown>;
  closeHangs?: boolean;
  optionsOnPrompt?: unknown[];
}

type Recorded = { method: string; params: Record<string, unknown> }[];

function client(
  profile: Profile,
  extra: { resume?: string; acp?: { mode?: string }; controlTimeoutMs?: number } = {},
): { client: AgentSdkClient; requests: () => Recorded; controls: () => Recorded } {
  const run = join(dir, `run-${++runs}`);
  mkdirSync(run);
  const record = join(run, "record.json");
  const requests = () => JSON.parse(readFileSync(record, "utf8")) as Recorded;
  return {
    client: new AgentSdkClient({
      backend: "acp",
      cwd: run,
      ...extra,
      acp: { command: agent, ...extra.acp },
      env: { CONFIG_AGENT_PROFILE: JSON.stringify(profile), CONFIG_AGENT_RECORD: record },
    }),
    requests,
    controls: () => requests().filter((r) => /set_|close|resume|load/.test(r.method)),
  };
}

const URL_MODE = "https://agentclientprotocol.com/protocol/session-modes#";

/** codex-acp 0.16: a `model` config option; sessionCapabilities list, resume, close. */
const CODEX_LIKE: Profile = {
  caps: { sessionCapabilities: { list: {}, resume: {}, close: {} } },
  session: {
    configOptions: [
      {
        id: "model",
        name: "Model",
        category: "model",
        type: "select",
        currentValue: "gpt-5.5",
        options: [
          { value: "gpt-5.5", name: "GPT-5.5" },
          { value: "gpt-5.4-mini", name: "GPT-5.4-Mini" },
        ],
      },
      {
        id: "reasoning_effort",
        name: "Reasoning Effort",
        category: "thought_level",
        type: "select",
        currentValue: "medium",
        options: [{ value: "medium", name: "Medium" }],
      },
    ],
  },
};

/** Copilot 1.0: mode ids are URLs, a `mode` config option (grouped here), no model choice. */
const COPILOT_LIKE: Profile = {
  caps: { sessionCapabilities: { close: {}, list: {} } },
  session: {
    modes: {
      currentModeId: `${URL_MODE}agent`,
      availableModes: [{ id: `${URL_MODE}agent`, name: "Agent" }],
    },
    configOptions: [
      {
        type: "select",
        id: "mode",
        name: "Mode",
        category: "mode",
        currentValue: `${URL_MODE}agent`,
        options: [
          {
            group: "all",
            name: "All",
            options: ["agent", "plan", "autopilot"].map((m) => ({ value: `${URL_MODE}${m}`, name: m })),
          },
        ],
      },
    ],
  },
};

/** claude-code-acp 0.16: `modes` and `models` only, no config options, no session/close. */
const CLAUDE_LIKE: Profile = {
  caps: { sessionCapabilities: { fork: {}, list: {}, resume: {} } },
  session: {
    modes: {
      currentModeId: "default",
      availableModes: ["default", "acceptEdits", "plan", "dontAsk"].map((id) => ({ id, name: id })),
    },
    models: {
      currentModelId: "default",
      availableModels: [
        { modelId: "default", name: "Default (recommended)" },
        { modelId: "opus", name: "Opus" },
      ],
    },
  },
};

describe("ACP setModel / setPermissionMode", () => {
  it("sets the model through the agent's model config option, by id or display name", async () => {
    const t = client(CODEX_LIKE);
    await t.client.connect();
    await t.client.setModel("gpt-5.4-mini");
    await t.client.setModel("GPT-5.5");
    await t.client.query("hi");
    for await (const _ of t.client.receiveResponse());
    await t.client.disconnect();
    expect(t.controls().filter((r) => r.method === "session/set_config_option")).toEqual([
      {
        method: "session/set_config_option",
        params: expect.objectContaining({ configId: "model", value: "gpt-5.4-mini" }),
      },
      {
        method: "session/set_config_option",
        params: expect.objectContaining({ configId: "model", value: "gpt-5.5" }),
      },
    ]);
  });

  it("of two options in category model (Cline's provider, then model) uses the one with id model", async () => {
    const select = (id: string, currentValue: string, values: string[], category = "model") => ({
      id,
      name: id,
      category,
      type: "select",
      currentValue,
      options: values.map((value) => ({ value, name: value.toUpperCase() })),
    });
    const t = client({
      session: {
        configOptions: [
          select("provider", "cline", ["cline", "cline-pass"]),
          select("model", "anthropic/claude-sonnet-5", ["anthropic/claude-sonnet-5", "openai/gpt-6-luna"]),
          select("mode", "act", ["plan", "act"], "mode"),
        ],
      },
    });
    await t.client.connect();
    await t.client.setModel("openai/gpt-6-luna");
    await expect(t.client.setModel("cline-pass")).rejects.toBeInstanceOf(InvalidOptionsError);
    // setModel() without a model goes back to the model the session started with, not the provider.
    await t.client.setModel();
    // Cline's modes: `plan`, and `act` for our default.
    await t.client.setPermissionMode("plan");
    await t.client.setPermissionMode("default");
    await t.client.disconnect();
    expect(t.controls().filter((r) => r.method === "session/set_config_option")).toEqual([
      {
        method: "session/set_config_option",
        params: expect.objectContaining({ configId: "model", value: "openai/gpt-6-luna" }),
      },
      {
        method: "session/set_config_option",
        params: expect.objectContaining({ configId: "model", value: "anthropic/claude-sonnet-5" }),
      },
      {
        method: "session/set_config_option",
        params: expect.objectContaining({ configId: "mode", value: "plan" }),
      },
      {
        method: "session/set_config_option",
        params: expect.objectContaining({ configId: "mode", value: "act" }),
      },
    ]);
  });

  it("refuses a model the agent does not offer (listing its choices) and a mode switch it lacks", async () => {
    const t = client(CODEX_LIKE);
    await t.client.connect();
    const wrong = await t.client.setModel("gpt-9").catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(InvalidOptionsError);
    expect(String((wrong as Error).message)).toContain("gpt-5.4-mini (GPT-5.4-Mini)");
    const mode = await t.client.setPermissionMode("plan").catch((e: unknown) => e);
    expect(mode).toBeInstanceOf(UnsupportedFeatureError);
    expect((mode as UnsupportedFeatureError).feature).toContain("mode");
    const info = await t.client.getServerInfo();
    expect(info?.controls).toEqual({
      setModel: "config_option",
      setPermissionMode: false,
      close: true,
      resume: "load",
      list: true,
      fork: false,
    });
    await t.client.disconnect();
    expect(t.controls().some((r) => r.method === "session/set_config_option")).toBe(false);
  });

  it("maps our permission modes to the agent's mode ids (Copilot's URLs, grouped options)", async () => {
    const t = client(COPILOT_LIKE);
    await t.client.connect();
    await t.client.setPermissionMode("plan");
    await t.client.setPermissionMode("bypassPermissions");
    await t.client.setPermissionMode("default");
    const none = await t.client.setPermissionMode("dontAsk").catch((e: unknown) => e);
    expect(none).toBeInstanceOf(InvalidOptionsError);
    expect(String((none as Error).message)).toContain(`${URL_MODE}autopilot (autopilot)`);
    const model = await t.client.setModel("x").catch((e: unknown) => e);
    expect(model).toBeInstanceOf(UnsupportedFeatureError);
    expect((model as UnsupportedFeatureError).feature).toContain("config-agent");
    await t.client.disconnect();
    expect(
      t
        .controls()
        .filter((r) => r.method === "session/set_config_option")
        .map((r) => r.params.value),
    ).toEqual([`${URL_MODE}plan`, `${URL_MODE}autopilot`, `${URL_MODE}agent`]);
  });

  it("falls back to session/set_model and session/set_mode; setModel() goes back to the first model", async () => {
    const t = client(CLAUDE_LIKE);
    await t.client.connect();
    await t.client.setModel("opus");
    await t.client.setPermissionMode("acceptEdits");
    await t.client.setModel();
    await t.client.disconnect();
    const sent = t.controls().map((r) => [r.method, r.params.modelId ?? r.params.modeId]);
    expect(sent).toEqual([
      ["session/set_model", "opus"],
      ["session/set_mode", "acceptEdits"],
      ["session/set_model", "default"],
    ]);
  });
});

describe("ACP config option updates", () => {
  it("a config_option_update during a turn changes what setModel accepts", async () => {
    const gpt6 = {
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: "gpt-6",
      options: [{ value: "gpt-6", name: "GPT-6" }],
    };
    const t = client({ ...CODEX_LIKE, optionsOnPrompt: [gpt6] });
    await t.client.connect();
    await expect(t.client.setModel("gpt-6")).rejects.toBeInstanceOf(InvalidOptionsError);
    await t.client.query("hi");
    for await (const _ of t.client.receiveResponse());
    await t.client.setModel("gpt-6");
    await expect(t.client.setModel("gpt-5.5")).rejects.toBeInstanceOf(InvalidOptionsError);
    await t.client.disconnect();
    expect(
      t
        .controls()
        .filter((r) => r.method === "session/set_config_option")
        .map((r) => r.params.value),
    ).toEqual(["gpt-6"]);
  });
});

describe("ACP acp.mode at start", () => {
  it("goes through the mode config option of an agent without modes (Kilo, OpenCode)", async () => {
    const kiloLike: Profile = {
      session: {
        configOptions: [
          {
            id: "mode",
            name: "Session Mode",
            category: "mode",
            type: "select",
            currentValue: "code",
            options: ["code", "ask", "plan"].map((value) => ({ value, name: value })),
          },
        ],
      },
    };
    const t = client(kiloLike, { acp: { mode: "plan" } });
    await t.client.connect();
    await t.client.disconnect();
    expect(t.controls()).toEqual([
      {
        method: "session/set_config_option",
        params: expect.objectContaining({ configId: "mode", value: "plan" }),
      },
    ]);
  });

  it("is session/set_mode with the id as given when the agent advertises no modes", async () => {
    const t = client({}, { acp: { mode: "agent-own" } });
    await t.client.connect();
    await t.client.disconnect();
    expect(t.controls()).toEqual([
      { method: "session/set_mode", params: expect.objectContaining({ modeId: "agent-own" }) },
    ]);
  });

  it("refuses a mode the agent does not list, naming its modes, before any turn", async () => {
    const t = client(CLAUDE_LIKE, { acp: { mode: "yolo" } });
    const error = await t.client.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect(String((error as Error).message)).toContain("acceptEdits");
    await t.client.disconnect();
  });
});

describe("ACP session/close and session/resume", () => {
  it("close() sends session/close where the agent declares it, and not where it does not", async () => {
    const on = client(CODEX_LIKE);
    await on.client.connect();
    await on.client.disconnect();
    expect(on.requests().at(-1)?.method).toBe("session/close");
    const off = client(CLAUDE_LIKE);
    await off.client.connect();
    await off.client.disconnect();
    expect(off.requests().some((r) => r.method === "session/close")).toBe(false);
  });

  it("close() is bounded when the agent never answers session/close", { timeout: 30_000 }, async () => {
    // Bounded by SESSION_CLOSE_TIMEOUT_MS (5 s; less when controlTimeoutMs is): then the group ends.
    // A shorter controlTimeoutMs bounds the wait (the shorter of the two); the default bound is 5 s.
    // 3 s, not less: the same bound covers the stand-in's initialize, slow on a loaded machine.
    expect(SESSION_CLOSE_TIMEOUT_MS).toBe(5_000);
    const t = client({ ...CODEX_LIKE, closeHangs: true }, { controlTimeoutMs: 3_000 });
    await t.client.connect();
    const started = Date.now();
    await t.client.disconnect();
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_950);
    // The unanswered request may be cancelled (`$/cancel_request`) before the agent is ended: a
    // loaded machine lets that notification reach the stand-in, a quiet one not always.
    const methods = t.requests().map((r) => r.method);
    expect(methods.filter((m) => m !== "$/cancel_request").at(-1)).toBe("session/close");
  });

  it("resumes by session/resume when the agent has it but no session/load", async () => {
    const t = client(
      { caps: { loadSession: false, sessionCapabilities: { resume: {} } } },
      { resume: "earlier-session" },
    );
    await t.client.connect();
    expect((await t.client.getServerInfo())?.sessionId).toBe("earlier-session");
    await t.client.disconnect();
    expect(t.controls()).toEqual([
      { method: "session/resume", params: expect.objectContaining({ sessionId: "earlier-session" }) },
    ]);
  });

  it("resumes by session/load (history replayed) when the agent has both", async () => {
    const t = client(CODEX_LIKE, { resume: "earlier-session" });
    await t.client.connect();
    await t.client.disconnect();
    expect(t.controls().map((r) => r.method)).toEqual(["session/load", "session/close"]);
  });
});
