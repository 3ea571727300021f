/**
 * `code-agent --demo`: the real agent CLI against the built-in scripted model, offline. The script
 * makes the agent run a shell command (which needs a permission decision), call an in-process MCP
 * tool, and answer.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { createSdkMcpServer, tool } from "../mcp/tool.js";
import type { ResolvedOptions } from "../options/resolved.js";
import type { BackendKind } from "../options.js";
import { UsageError } from "./args.js";

/** The prompt used when `--demo` is given none. */
export const DEMO_PROMPT = "Create a file called hello.txt, then tell me the weather in Paris.";

/** A running demo: options to merge into the run, and cleanup. */
export interface Demo {
  /** Options the demo needs (env pointing at the scripted model, working directory, MCP tool). */
  options: ResolvedOptions;
  /** One line describing the setup. */
  banner: string;
  close(): Promise<void>;
}

export interface DemoHooks {
  /** Called from inside the in-process MCP tool, to show that it ran here. */
  note(text: string): void;
  /** The working directory asked for with --cwd; default a temporary directory. */
  cwd: string | undefined;
  /** `--agent`, for the ACP backend (default: claude-code-acp). */
  agent?: string | undefined;
}

/** The in-process MCP server of the demo: `mcp__demo__get_weather`. */
function weatherServer(hooks: DemoHooks) {
  return createSdkMcpServer({
    name: "demo",
    version: "1.0.0",
    tools: [
      tool("get_weather", "Current weather for a city", { city: z.string() }, async ({ city }) => {
        hooks.note(`  ↳ get_weather(${JSON.stringify(city)}) handled in-process by code-agent`);
        return { content: [{ type: "text", text: `${city}: 21°C, clear sky` }] };
      }),
    ],
  });
}

/** Starts the scripted model for `backend`. Throws {@link UsageError} for backends without one. */
export async function startDemo(backend: BackendKind, hooks: DemoHooks): Promise<Demo> {
  switch (backend) {
    case "claude":
      return startClaudeDemo(hooks);
    case "codex":
      return startCodexDemo(hooks);
    case "acp":
      return startAcpDemo(hooks);
    default:
      throw new UsageError(
        `--demo is not available for the ${backend} backend (it has no scripted model yet)`,
      );
  }
}

function demoBanner(cli: string, url: string, cwd: string): string {
  return (
    `Demo: the real ${cli} CLI, offline, against a scripted model at ${url} — its replies are ` +
    `canned (no AI, no API key, no cost) (working directory ${cwd})`
  );
}

function workdir(hooks: DemoHooks): { cwd: string; cleanup(): void } {
  if (hooks.cwd) return { cwd: hooks.cwd, cleanup: () => undefined };
  const cwd = mkdtempSync(join(tmpdir(), "code-agent-demo-"));
  return { cwd, cleanup: () => rmSync(cwd, { recursive: true, force: true }) };
}

async function startClaudeDemo(hooks: DemoHooks): Promise<Demo> {
  // The testing kit is loaded only for the demo.
  const { startFakeAnthropic } = await import("../testing/index.js");
  let bashFailed = false;
  const lastToolResultFailed = (body: unknown): boolean => {
    const messages =
      (body as { messages?: { role?: string; content?: unknown }[] } | undefined)?.messages ?? [];
    const last = messages.at(-1);
    return (
      Array.isArray(last?.content) &&
      last.content.some(
        (b) =>
          typeof b === "object" &&
          b !== null &&
          (b as { type?: unknown }).type === "tool_result" &&
          (b as { is_error?: unknown }).is_error === true,
      )
    );
  };
  const model = await startFakeAnthropic({
    turns: [
      {
        blocks: [
          {
            type: "thinking",
            thinking:
              "The user wants a file and the weather. Create the file with a shell command, then ask the weather tool.",
          },
          { type: "text", text: "I'll create the file first." },
          {
            type: "tool_use",
            name: "Bash",
            input: { command: "touch hello.txt", description: "Create hello.txt" },
          },
        ],
      },
      (request) => {
        bashFailed = lastToolResultFailed(request.body);
        return {
          blocks: [
            {
              type: "text",
              text: bashFailed
                ? "I was not allowed to create the file. Let me still check the weather."
                : "Now the weather.",
            },
            { type: "tool_use", name: "mcp__demo__get_weather", input: { city: "Paris" } },
          ],
        };
      },
      () => ({
        text: bashFailed
          ? "I could not create hello.txt (permission denied). In Paris it is 21°C with a clear sky."
          : "Created hello.txt. In Paris it is 21°C with a clear sky.",
      }),
    ],
  });
  const dir = workdir(hooks);
  return {
    options: {
      env: model.env(),
      cwd: dir.cwd,
      mcpServers: { demo: weatherServer(hooks) },
      allowedTools: ["mcp__demo__get_weather"],
    },
    banner: demoBanner("Claude Code", model.url, dir.cwd),
    async close() {
      await model.close();
      dir.cleanup();
    },
  };
}

async function startCodexDemo(hooks: DemoHooks): Promise<Demo> {
  const { startFakeOpenAI } = await import("../testing/index.js");
  // In-process MCP tools need sdkMcpRouting; without it the demo skips the weather tool.
  const { getBackend } = await import("../backends/registry.js");
  const withMcp = getBackend("codex").capabilities.sdkMcpRouting;
  const model = await startFakeOpenAI({
    turns: [
      { execCommand: { cmd: "touch hello.txt" }, text: "I'll create the file first." },
      ...(withMcp
        ? [
            {
              mcpCall: { server: "demo", tool: "get_weather", arguments: { city: "Paris" } },
              text: "Now the weather.",
            },
            { text: "Done. In Paris it is 21°C with a clear sky." },
          ]
        : [{ text: "Done." }]),
    ],
  });
  const home = model.codexHome();
  const dir = workdir(hooks);
  return {
    options: {
      env: home.env,
      cwd: dir.cwd,
      ...(withMcp ? { mcpServers: { demo: weatherServer(hooks) } } : {}),
      // Ask before running commands, so the permission decision shows. The sandbox lets the
      // approved command write the workspace: under the testing kit's default (read-only), codex
      // 0.169 runs an approved command in the sandbox first and retries it unsandboxed on the
      // denial, but on a loaded machine it sometimes reports the sandboxed failure instead
      // ("Read-only file system"; 4 of 20 runs with both cores busy). Nothing to retry here.
      codex: { approvalPolicy: "untrusted", sandboxMode: "workspace-write", skipGitRepoCheck: true },
    },
    banner: demoBanner("Codex", model.url, dir.cwd),
    async close() {
      await model.close();
      dir.cleanup();
    },
  };
}

/** ACP agents with a demo: the adapters whose model APIs the testing kit fakes. */
const ACP_DEMO_AGENTS = ["claude-code-acp", "codex-acp"] as const;

/**
 * The ACP demo: an ACP adapter (claude-code-acp by default, or codex-acp) against the scripted
 * model. ACP cannot route in-process MCP tools, so the demo runs a command and answers.
 */
async function startAcpDemo(hooks: DemoHooks): Promise<Demo> {
  const agent = hooks.agent ?? "claude-code-acp";
  if (agent === "codex-acp") return startCodexAcpDemo(hooks);
  if (agent !== "claude-code-acp") {
    throw new UsageError(
      `--demo with --backend acp is available for ${ACP_DEMO_AGENTS.join(" and ")} (got --agent ${agent})`,
    );
  }
  const { startFakeAnthropic } = await import("../testing/index.js");
  const model = await startFakeAnthropic({
    turns: [
      {
        blocks: [
          { type: "text", text: "I'll create the file." },
          {
            type: "tool_use",
            // claude-code-acp's Bash, which runs through the client's terminal.
            name: "mcp__acp__Bash",
            input: { command: "touch hello.txt", timeout: 10_000, description: "Create hello.txt" },
          },
        ],
      },
      { text: "Done: hello.txt is there. (The weather tool needs in-process MCP, which ACP cannot route.)" },
    ],
  });
  const dir = workdir(hooks);
  return {
    options: {
      acp: { agent: "claude-code-acp" },
      env: model.env(),
      // Only the demo's environment: an inherited IS_SANDBOX would make the adapter offer a bypass
      // mode that Claude Code refuses when run as root.
      inheritEnv: false,
      cwd: dir.cwd,
    },
    banner: `Demo: Claude Code through the claude-code-acp ACP adapter, offline, against a scripted model at ${model.url} (working directory ${dir.cwd})`,
    async close() {
      await model.close();
      dir.cleanup();
    },
  };
}

async function startCodexAcpDemo(hooks: DemoHooks): Promise<Demo> {
  const { startFakeOpenAI } = await import("../testing/index.js");
  const model = await startFakeOpenAI({
    turns: [{ execCommand: { cmd: "touch hello.txt" }, text: "I'll create the file." }, { text: "Done." }],
  });
  // Ask before each command; the sandbox needs bubblewrap, which a demo cannot count on.
  const home = model.codexHome({ approvalPolicy: "untrusted", sandboxMode: "danger-full-access" });
  const dir = workdir(hooks);
  return {
    options: { acp: { agent: "codex-acp" }, env: home.env, inheritEnv: false, cwd: dir.cwd },
    banner: `Demo: Codex through the codex-acp ACP adapter, offline, against a scripted model at ${model.url} (working directory ${dir.cwd})`,
    async close() {
      await model.close();
      dir.cleanup();
    },
  };
}
