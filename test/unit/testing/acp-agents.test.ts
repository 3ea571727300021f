import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ACP_AGENT_NAMES,
  ACP_AGENTS,
  type AcpAgentName,
  acpAgentUnavailableReason,
  createAcpAgentEnv,
  isToolFollowUp,
  type RecordedChatRequest,
  resolveAcpAgentCommand,
  startFakeModelForAgent,
  toAgentApiTurn,
  toolResultTexts,
} from "../../../src/testing/index.js";

const BASE = "http://127.0.0.1:4567";

function chatRequest(over: Partial<RecordedChatRequest>): RecordedChatRequest {
  return {
    method: "POST",
    path: "/v1/chat/completions",
    query: "",
    headers: {},
    body: {},
    scripted: false,
    lastUserText: "",
    systemText: "",
    toolNames: [],
    toolResults: [],
    isToolFollowUp: false,
    sideCall: undefined,
    ...over,
  };
}

describe("ACP agent presets", () => {
  it("resolve every installed agent to a native binary or a node script, never an npm launcher", () => {
    for (const agent of ACP_AGENT_NAMES) {
      const cmd = resolveAcpAgentCommand(agent);
      if (!cmd) {
        expect(acpAgentUnavailableReason(agent)).toContain(ACP_AGENTS[agent].packageName);
        continue;
      }
      expect(acpAgentUnavailableReason(agent)).toBeUndefined();
      expect(cmd.source).toBe("node_modules");
      expect(existsSync(cmd.command)).toBe(true);
      if (agent === "gemini" || agent === "qwen") {
        expect(cmd.command).toBe(process.execPath);
        expect(cmd.prefixArgs.at(-1)).toMatch(agent === "gemini" ? /gemini\.js$/ : /qwen-code\/cli\.js$/);
      } else if (agent === "kimi") {
        // A Node bundle (no native package on npm), run on this Node (>= 22.19: see below).
        expect(cmd.command).toBe(process.execPath);
        expect(cmd.prefixArgs).toEqual([expect.stringMatching(/@moonshot-ai\/kimi-code\/dist\/main\.mjs$/)]);
      } else if (agent === "codebuddy") {
        // The bundled CLI's bin script loads its bundle in-process: it runs on this Node.
        expect(cmd.command).toBe(process.execPath);
        expect(cmd.prefixArgs).toEqual([
          expect.stringMatching(/@tencent-ai\/agent-sdk\/cli\/bin\/codebuddy$/),
        ]);
      } else {
        expect(cmd.prefixArgs).toEqual([]);
        expect(cmd.command).not.toMatch(/\.js$|npm-loader/);
      }
    }
  });

  it("Kimi Code runs only on Node >= 22.19; on an older Node it is unavailable, saying why", () => {
    const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
    if (major > 22 || (major === 22 && minor >= 19)) {
      expect(acpAgentUnavailableReason("kimi")).toBeUndefined();
    } else {
      expect(resolveAcpAgentCommand("kimi")).toBeUndefined();
      expect(acpAgentUnavailableReason("kimi")).toBe(
        `@moonshot-ai/kimi-code 2.1.0 (Kimi Code) needs Node >= 22.19.0 (this is ${process.versions.node})`,
      );
    }
  });

  it.each(ACP_AGENT_NAMES.filter((a) => resolveAcpAgentCommand(a)))(
    "%s: createAcpAgentEnv writes an isolated offline home and removes it",
    async (agent: AcpAgentName) => {
      const env = createAcpAgentEnv(agent, { baseUrl: `${BASE}/v1/`, model: "m-1", env: { EXTRA: "1" } });
      try {
        expect(env.agent.name).toBe(agent);
        expect(env.args.slice(-env.agent.acpArgs.length)).toEqual([...env.agent.acpArgs]);
        expect(env.headlessArgs("hi")).toContain("hi");
        expect(env.env.HOME).toBe(env.home);
        expect(env.cwd).toBe(join(env.home, "work"));
        expect(existsSync(env.cwd)).toBe(true);
        expect(env.env.EXTRA).toBe("1");
        expect(env.env.PATH).toBe(process.env.PATH);
        // Nothing of the real user's credentials leaks in.
        for (const key of Object.keys(env.env))
          expect(key).not.toMatch(/^(GITHUB_TOKEN|GH_TOKEN|ANTHROPIC_API_KEY)$/);
        const urls = Object.values(env.env).filter((v) => v.startsWith("http"));
        for (const u of urls) expect(u.startsWith(BASE)).toBe(true);
        switch (agent) {
          case "gemini": {
            expect(env.env.GOOGLE_GEMINI_BASE_URL).toBe(BASE);
            expect(env.env.GEMINI_API_KEY).toBeTruthy();
            const settings = JSON.parse(readFileSync(join(env.home, ".gemini", "settings.json"), "utf8"));
            expect(settings.security.auth.selectedType).toBe("gemini-api-key");
            expect(settings.telemetry.enabled).toBe(false);
            break;
          }
          case "qwen":
            expect(env.env).toMatchObject({ OPENAI_BASE_URL: `${BASE}/v1`, OPENAI_MODEL: "m-1" });
            expect(env.args).toContain("--auth-type");
            expect(JSON.parse(readFileSync(join(env.home, ".qwen", "settings.json"), "utf8")).tools).toEqual({
              approvalMode: "default",
            });
            break;
          case "opencode":
          case "kilo": {
            const file = join(env.home, ".config", agent, `${agent}.json`);
            const config = JSON.parse(readFileSync(file, "utf8"));
            expect(config.model).toBe("fake/m-1");
            expect(config.provider.fake.npm).toBe("@ai-sdk/openai-compatible");
            expect(config.provider.fake.options.baseURL).toBe(`${BASE}/v1`);
            expect(config.permission).toEqual({ bash: "ask", edit: "ask" });
            expect(env.env.XDG_CONFIG_HOME).toBe(join(env.home, ".config"));
            break;
          }
          case "cline": {
            // Its own base URL (no fixed-port forwarder), the local backend (no hub daemon), no telemetry.
            expect(env.env).toMatchObject({
              CLINE_API_BASE_URL: BASE,
              CLINE_ENVIRONMENT: "local",
              CLINE_PROVIDER: "cline",
              CLINE_MODEL: "m-1",
              CLINE_SESSION_BACKEND_MODE: "local",
              CLINE_NO_AUTO_UPDATE: "1",
              E2E_TEST: "true",
            });
            const file = join(env.home, ".cline", "data", "settings", "global-settings.json");
            expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
              telemetryOptOut: true,
              autoUpdateEnabled: false,
            });
            // A prompt is never a flag (Cline refuses a dash-led one after `--` instead of parsing it).
            expect(env.headlessArgs("--version").slice(-2)).toEqual(["--", "--version"]);
            break;
          }
          case "droid": {
            // Airgap Mode: no Factory backend; one custom model on the fake, selected for ACP and exec.
            expect(env.env).toMatchObject({
              FACTORY_AIRGAP_ENABLED: "1",
              FACTORY_DROID_AUTO_UPDATE_ENABLED: "false",
              OTEL_SDK_DISABLED: "true",
            });
            expect(env.env.FACTORY_API_KEY).toBeTruthy();
            const settings = JSON.parse(readFileSync(join(env.home, ".factory", "settings.json"), "utf8"));
            expect(settings.customModels).toEqual([
              expect.objectContaining({
                model: "m-1",
                displayName: "m-1",
                baseUrl: `${BASE}/v1`,
                provider: "generic-chat-completion-api",
              }),
            ]);
            expect(settings.model).toBe("custom:m-1-0");
            expect(settings.sessionDefaultSettings).toEqual({ model: "custom:m-1-0" });
            expect(env.args.slice(-3)).toEqual(["exec", "--output-format", "acp"]);
            break;
          }
          case "codebuddy": {
            // A custom model on the fake selected by CODEBUDDY_MODEL; remote config, telemetry, update
            // checks, memory sub-agents and cloud audit off.
            expect(env.env).toMatchObject({
              CODEBUDDY_MODEL: "m-1",
              CODEBUDDY_REMOTE_CONFIG_DISABLED: "1",
              CODEBUDDY_DISABLE_AUTO_MEMORY: "1",
              CODEBUDDY_SANDBOX_CLOUD_AUDIT_DISABLED: "1",
              DISABLE_TELEMETRY: "1",
              DISABLE_AUTOUPDATER: "1",
            });
            expect(env.env.CODEBUDDY_API_KEY).toBeTruthy();
            const models = JSON.parse(readFileSync(join(env.home, ".codebuddy", "models.json"), "utf8"));
            expect(models.models).toEqual([
              expect.objectContaining({
                id: "m-1",
                url: `${BASE}/v1/chat/completions`,
                supportsToolCall: true,
              }),
            ]);
            expect(models.availableModels).toEqual(["m-1"]);
            expect(env.args.at(-1)).toBe("--acp");
            break;
          }
          case "kimi": {
            // An openai provider on the fake, the model as the default; telemetry, updates and the
            // model-catalog refresh off.
            expect(env.env).toMatchObject({
              KIMI_CODE_HOME: join(env.home, ".kimi-code"),
              KIMI_DISABLE_TELEMETRY: "1",
              KIMI_CODE_NO_AUTO_UPDATE: "1",
              KIMI_CODE_MODEL_CATALOG_REFRESH_ON_START: "0",
            });
            // Its bundle's compile kept between starts (Node 22), in a private directory.
            expect(env.env.NODE_COMPILE_CACHE).toMatch(/code-agent-sdk-node-compile-cache-/);
            const toml = readFileSync(join(env.home, ".kimi-code", "config.toml"), "utf8");
            expect(toml).toContain('default_model = "m-1"');
            expect(toml).toContain(
              '[providers.fake]\ntype = "openai"\nbase_url = "http://127.0.0.1:4567/v1"',
            );
            expect(toml).toContain('[models.m-1]\nprovider = "fake"\nmodel = "m-1"');
            expect(toml).toContain("telemetry = false");
            expect(env.args.at(-1)).toBe("acp");
            break;
          }
          case "copilot":
            expect(env.env).toMatchObject({
              COPILOT_OFFLINE: "true",
              COPILOT_PROVIDER_BASE_URL: `${BASE}/v1`,
              COPILOT_PROVIDER_TYPE: "openai",
              COPILOT_PROVIDER_WIRE_API: "completions",
              COPILOT_PROVIDER_WIRE_MODEL: "m-1",
            });
            break;
        }
      } finally {
        await env.cleanup();
      }
      expect(existsSync(env.home)).toBe(false);
      await env.cleanup(); // idempotent
    },
  );

  it.skipIf(!resolveAcpAgentCommand("opencode"))(
    "askPermissions: false leaves OpenCode's default permissions; an explicit cwd is used as is",
    async () => {
      await using env = createAcpAgentEnv("opencode", {
        baseUrl: BASE,
        askPermissions: false,
        cwd: process.cwd(),
      });
      const config = JSON.parse(readFileSync(join(env.home, ".config", "opencode", "opencode.json"), "utf8"));
      expect(config.permission).toBeUndefined();
      expect(env.cwd).toBe(process.cwd());
    },
  );

  it("side calls recognise title, suggestion, memory and classifier requests and nothing else", () => {
    const find = (agent: AcpAgentName, r: RecordedChatRequest) =>
      ACP_AGENTS[agent].chatSideCalls.find((s) => s.match(r))?.name;
    const title = chatRequest({ systemText: "You are a title generator. You output ONLY a thread title." });
    expect(find("opencode", title)).toBe("title");
    expect(find("kilo", title)).toBe("title");
    expect(
      find("opencode", chatRequest({ systemText: "You are opencode", toolNames: ["bash"] })),
    ).toBeUndefined();
    expect(
      find("qwen", chatRequest({ lastUserText: "[SUGGESTION MODE: Suggest what the user might type]" })),
    ).toBe("qwen-suggestion");
    expect(find("qwen", chatRequest({ lastUserText: "Managed memory has TWO directories. Choose…" }))).toBe(
      "qwen-memory",
    );
    expect(find("qwen", chatRequest({ toolNames: ["respond_in_schema"] }))).toBe("qwen-classifier");
    expect(
      find("qwen", chatRequest({ lastUserText: "RUN: ls", toolNames: ["run_shell_command"] })),
    ).toBeUndefined();
    expect(ACP_AGENTS.copilot.chatSideCalls).toEqual([]);
    const codebuddyTitle = chatRequest({
      systemText: "Generate a concise, sentence-case title (3-7 words) that captures the main topic",
      lastUserText: "",
    });
    expect(find("codebuddy", codebuddyTitle)).toBe("codebuddy-title");
    expect(
      find("codebuddy", chatRequest({ systemText: "You are CodeBuddy Code.", toolNames: ["Bash", "Write"] })),
    ).toBeUndefined();
    const droidTitle = chatRequest({
      systemText:
        "You are Droid, an AI software engineering agent built by Factory.\nYou are a helper that generates concise session titles for a session picker.",
    });
    expect(find("droid", droidTitle)).toBe("droid-title");
    expect(
      find(
        "droid",
        chatRequest({
          systemText: "You are Droid, an AI software engineering agent",
          toolNames: ["Execute"],
        }),
      ),
    ).toBeUndefined();
  });
});

describe("agent-neutral turns", () => {
  it("become each agent's own tool calls on its API", () => {
    expect(toAgentApiTurn("gemini", { shell: "ls", text: "t" })).toEqual({
      functionCall: { name: "run_shell_command", args: { command: "ls", description: "run a command" } },
      text: "t",
    });
    expect(toAgentApiTurn("qwen", { writeFile: { path: "/a", content: "b" } })).toEqual({
      toolCall: { name: "write_file", arguments: { file_path: "/a", content: "b" } },
    });
    expect(toAgentApiTurn("opencode", { writeFile: { path: "/a", content: "b" } })).toEqual({
      toolCall: { name: "write", arguments: { filePath: "/a", content: "b" } },
    });
    expect(toAgentApiTurn("copilot", { writeFile: { path: "/a", content: "b" } })).toEqual({
      toolCall: { name: "create", arguments: { path: "/a", file_text: "b" } },
    });
    expect(toAgentApiTurn("kilo", { tool: { name: "read", args: { filePath: "/a" } } })).toEqual({
      toolCall: { name: "read", arguments: { filePath: "/a" } },
    });
    // Droid's Execute refuses a call without its risk classification.
    expect(toAgentApiTurn("droid", { shell: "ls" })).toEqual({
      toolCall: {
        name: "Execute",
        arguments: { command: "ls", riskLevelReason: "a scripted test command", riskLevel: "low" },
      },
    });
    expect(toAgentApiTurn("droid", { writeFile: { path: "/a", content: "b" } })).toEqual({
      toolCall: { name: "Create", arguments: { file_path: "/a", content: "b" } },
    });
    expect(toAgentApiTurn("kimi", { shell: "ls" })).toEqual({
      toolCall: { name: "Bash", arguments: { command: "ls" } },
    });
    expect(toAgentApiTurn("kimi", { writeFile: { path: "/a", content: "b" } })).toEqual({
      toolCall: { name: "Write", arguments: { path: "/a", content: "b" } },
    });
    expect(toAgentApiTurn("copilot", { stall: true })).toEqual({ stall: true });
    expect(toAgentApiTurn("gemini", { text: "hi" })).toEqual({ text: "hi" });
    expect(toAgentApiTurn("gemini", { api: { json: { a: 1 } } })).toEqual({ json: { a: 1 } });
  });

  it("function turns answer by prompt and follow-up, on either API", async () => {
    const script = (r: Parameters<typeof isToolFollowUp>[0]) =>
      isToolFollowUp(r) ? { text: `done ${r.lastUserText}` } : { shell: "ls" };
    await using chat = await startFakeModelForAgent("qwen", { defaultTurn: script });
    const post = (messages: unknown[]) =>
      fetch(`${chat.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ messages }) }).then(
        (r) => r.json() as Promise<any>,
      );
    const first = await post([{ role: "user", content: "go" }]);
    expect(first.choices[0].message.tool_calls[0].function.name).toBe("run_shell_command");
    const second = await post([
      { role: "user", content: "go" },
      { role: "tool", tool_call_id: "c", content: "out" },
    ]);
    expect(second.choices[0].message.content).toBe("done go");

    await using gemini = await startFakeModelForAgent("gemini", { defaultTurn: script });
    const g = (contents: unknown[]) =>
      fetch(`${gemini.url}/v1beta/models/m:generateContent`, {
        method: "POST",
        body: JSON.stringify({ contents }),
      }).then((r) => r.json() as Promise<any>);
    expect(
      (await g([{ role: "user", parts: [{ text: "go" }] }])).candidates[0].content.parts[0].functionCall.name,
    ).toBe("run_shell_command");
    const followUp = await g([
      { role: "user", parts: [{ text: "go" }] },
      { role: "user", parts: [{ functionResponse: { name: "run_shell_command", response: {} } }] },
    ]);
    expect(followUp.candidates[0].content.parts[0].text).toBe("done go");
  });

  it("startFakeModelForAgent starts the agent's API with its side calls; toolResultTexts reads either API", async () => {
    await using chat = await startFakeModelForAgent("opencode", { turns: [{ shell: "ls" }] });
    const title = await fetch(`${chat.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ messages: [{ role: "system", content: "You are a title generator." }] }),
    });
    expect(((await title.json()) as any).choices[0].message.content).toBe("Fake title");
    const withResult = await fetch(`${chat.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({
        messages: [
          { role: "user", content: "go" },
          { role: "tool", tool_call_id: "c", content: "out" },
        ],
      }),
    });
    expect(((await withResult.json()) as any).choices[0].message.tool_calls[0].function.name).toBe("bash");
    expect(toolResultTexts(chat.turnRequests[0]!)).toEqual(["out"]);
    chat.push({ text: "pushed" });
    const waited = chat.waitForRequest((r) => r.lastUserText === "again");
    await (
      await fetch(`${chat.url}/v1/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ messages: [{ role: "user", content: "again" }] }),
      })
    ).json();
    expect((await waited).scripted).toBe(true);

    await using gemini = await startFakeModelForAgent("gemini", { defaultTurn: { text: "dflt" } });
    const res = await fetch(`${gemini.url}/v1beta/models/g:generateContent`, {
      method: "POST",
      body: JSON.stringify({
        contents: [
          {
            role: "user",
            parts: [{ functionResponse: { name: "run_shell_command", response: { output: "o" } } }],
          },
        ],
      }),
    });
    expect(((await res.json()) as any).candidates[0].content.parts[0].text).toBe("dflt");
    expect(toolResultTexts(gemini.requests[0]!)).toEqual(['{"output":"o"}']);
  });
});
