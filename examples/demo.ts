/**
 * The main job: a real Claude Code session, offline, against the built-in scripted model.
 *
 *   npm run demo                 # offline: real `claude` binary, scripted model on 127.0.0.1
 *   npm run demo -- --live       # real API (needs ANTHROPIC_API_KEY)
 *
 * It streams the agent's messages, shows a tool-permission decision and an in-process MCP tool call.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import {
  type AgentOptions,
  type CanUseTool,
  createSdkMcpServer,
  type Message,
  query,
  tool,
} from "../src/index.js";
import { startFakeAnthropic } from "../src/testing/index.js";

const live = process.argv.includes("--live");
const color = process.stdout.isTTY
  ? (code: number, s: string) => `\x1b[${code}m${s}\x1b[0m`
  : (_: number, s: string) => s;
const dim = (s: string) => color(2, s);
const bold = (s: string) => color(1, s);

/** An in-process tool: runs inside this Node process, called by the agent over MCP. */
const weather = createSdkMcpServer({
  name: "demo",
  version: "1.0.0",
  tools: [
    tool("get_weather", "Current weather for a city", { city: z.string() }, async ({ city }) => {
      print("mcp", `get_weather(${JSON.stringify(city)}) handled in-process`);
      return { content: [{ type: "text", text: `${city}: 21°C, clear sky` }] };
    }),
  ],
});

/** The permission policy: shell commands that only create files are fine, everything else is refused. */
const canUseTool: CanUseTool = async (toolName, input) => {
  const command = String(input.command ?? "");
  const allowed = toolName === "Bash" && /^touch [\w.-]+$/.test(command);
  print(
    "permission",
    `${toolName} ${JSON.stringify(input.command ?? input)} → ${allowed ? "ALLOW" : "DENY"}`,
  );
  return allowed
    ? { behavior: "allow", updatedInput: input }
    : { behavior: "deny", message: "The demo policy only allows `touch <file>`." };
};

function print(tag: string, text: string): void {
  console.log(`${bold(tag.padEnd(10))} ${text}`);
}

function show(message: Message): void {
  switch (message.type) {
    case "system":
      if (message.subtype === "init") {
        print(
          "session",
          dim(`${message.sessionId} · model ${String(message.data.model)} · cwd ${String(message.data.cwd)}`),
        );
      }
      return;
    case "assistant":
      for (const block of message.content) {
        if (block.type === "text" && block.text) print("assistant", block.text);
        if (block.type === "thinking") print("thinking", dim(block.thinking));
        if (block.type === "tool_use") print("tool_use", `${block.name} ${JSON.stringify(block.input)}`);
      }
      return;
    case "user":
      if (Array.isArray(message.content)) {
        for (const block of message.content) {
          if (block.type === "tool_result") {
            const content = typeof block.content === "string" ? block.content : JSON.stringify(block.content);
            print("result", `${block.isError ? "error: " : ""}${content.slice(0, 120)}`);
          }
        }
      }
      return;
    case "result":
      print(
        "done",
        `${message.isError ? "FAILED" : "success"} · ${message.numTurns} model turns · ${message.durationMs} ms` +
          (message.totalCostUsd !== undefined ? ` · $${message.totalCostUsd.toFixed(4)}` : ""),
      );
      return;
    default:
      return;
  }
}

async function main(): Promise<number> {
  const workdir = mkdtempSync(join(tmpdir(), "code-agent-demo-"));
  const model = live ? undefined : await startFakeAnthropic({ turns: script() });
  if (live && !process.env.ANTHROPIC_API_KEY) {
    console.error("--live needs ANTHROPIC_API_KEY");
    return 2;
  }
  console.log(
    dim(
      live
        ? "Live run against the Anthropic API."
        : `Offline run: real Claude Code CLI ↔ scripted model at ${model?.url}`,
    ),
  );
  const options: AgentOptions = {
    cwd: workdir,
    mcpServers: { demo: weather },
    allowedTools: ["mcp__demo__get_weather"],
    canUseTool,
    ...(model ? { env: model.env() } : {}),
  };
  try {
    let failed = false;
    for await (const message of query({
      prompt: "Create a file called hello.txt, then tell me the weather in Paris.",
      options,
    })) {
      show(message);
      if (message.type === "result") failed = message.isError;
    }
    return failed ? 1 : 0;
  } finally {
    await model?.close();
    rmSync(workdir, { recursive: true, force: true });
  }
}

/** What the scripted model does: create a file (needs permission), call the MCP tool, answer. */
function script() {
  return [
    {
      blocks: [
        { type: "text" as const, text: "I'll create the file first." },
        {
          type: "tool_use" as const,
          name: "Bash",
          input: { command: "touch hello.txt", description: "Create hello.txt" },
        },
      ],
    },
    {
      blocks: [
        { type: "text" as const, text: "Now the weather." },
        { type: "tool_use" as const, name: "mcp__demo__get_weather", input: { city: "Paris" } },
      ],
    },
    { text: "Created hello.txt. In Paris it is 21°C with a clear sky." },
  ];
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
