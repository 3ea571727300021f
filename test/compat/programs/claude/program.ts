/**
 * A program written against `@anthropic-ai/claude-agent-sdk` 0.3.330's `.d.ts`, using every option,
 * `Query` method and message type that `code-agent-sdk/compat/claude-agent-sdk` supports. It must
 * compile unchanged against both (see ../../types.test.ts); it is type-checked, never run.
 */

import { spawn } from "node:child_process";
import {
  AbortError,
  type CanUseTool,
  createSdkMcpServer,
  deleteSession,
  forkSession,
  getSessionInfo,
  getSessionMessages,
  type HookCallback,
  type HookJSONOutput,
  listSessions,
  type McpServerConfig,
  type OnElicitation,
  type OnUserDialog,
  type Options,
  type PermissionMode,
  type PermissionResult,
  type Query,
  query,
  renameSession,
  type SDKAssistantMessage,
  type SDKMessage,
  type SDKResultMessage,
  type SDKSessionInfo,
  type SDKSystemMessage,
  type SDKUserMessage,
  type SpawnedProcess,
  tagSession,
  tool,
} from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";

const add = tool(
  "add",
  "Add two numbers",
  { a: z.number(), b: z.number().describe("second") },
  async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  { annotations: { readOnlyHint: true, title: "Add" } },
);
const calc = createSdkMcpServer({ name: "calc", version: "1.0.0", tools: [add] });

const canUseTool: CanUseTool = async (toolName, input, { signal, suggestions, toolUseID, blockedPath }) => {
  if (signal.aborted || toolName === "Bash") {
    const deny: PermissionResult = {
      behavior: "deny",
      message: `no ${toolUseID} ${blockedPath ?? ""}`,
      interrupt: false,
    };
    return deny;
  }
  return { behavior: "allow", updatedInput: input, updatedPermissions: suggestions ?? [] };
};

const preToolUse: HookCallback = async (input, toolUseID, { signal }) => {
  if (input.hook_event_name === "PreToolUse" && !signal.aborted) {
    const out: HookJSONOutput = {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "allow",
        permissionDecisionReason: `${input.tool_name} ${toolUseID ?? ""}`,
      },
    };
    return out;
  }
  return { continue: true };
};

const servers: Record<string, McpServerConfig> = {
  calc,
  stdio: { type: "stdio", command: "node", args: ["server.js"], env: { A: "1" } },
  remote: { type: "http", url: "http://127.0.0.1:1/mcp", headers: { x: "y" } },
  sse: { type: "sse", url: "http://127.0.0.1:1/sse" },
};

const onElicitation: OnElicitation = async (request, { signal }) =>
  signal.aborted || request.mode === "url"
    ? { action: "decline" }
    : { action: "accept", content: { name: "x" } };

const onUserDialog: OnUserDialog = async ({ dialogKind, payload, toolUseID }) =>
  dialogKind === "confirm" ? { behavior: "completed", result: { payload, toolUseID } } : null;

const mode: PermissionMode = "acceptEdits";
const controller = new AbortController();
const options: Options = {
  abortController: controller,
  additionalDirectories: ["/tmp"],
  agent: "reviewer",
  agents: {
    reviewer: { description: "Reviews", prompt: "Review the code", tools: ["Read"], model: "sonnet" },
  },
  allowedTools: ["Read", "mcp__calc__add"],
  disallowedTools: ["WebFetch"],
  tools: ["Read", "Bash"],
  canUseTool,
  continue: false,
  cwd: "/tmp",
  env: { ...process.env, ANTHROPIC_API_KEY: "sk" },
  extraArgs: { "debug-to-stderr": null },
  fallbackModel: "claude-haiku-4-5",
  enableFileCheckpointing: true,
  forkSession: false,
  betas: ["context-1m-2025-08-07"],
  hooks: { PreToolUse: [{ matcher: "Bash", hooks: [preToolUse], timeout: 30, onFailure: "block" }] },
  persistSession: true,
  includeHookEvents: false,
  includePartialMessages: true,
  thinking: { type: "enabled", budgetTokens: 2048 },
  effort: "high",
  maxThinkingTokens: 1024,
  maxTurns: 3,
  maxBudgetUsd: 1,
  mcpServers: servers,
  model: "claude-sonnet-4-5",
  outputFormat: { type: "json_schema", schema: { type: "object", properties: { a: { type: "number" } } } },
  pathToClaudeCodeExecutable: "/usr/local/bin/claude",
  permissionMode: mode,
  allowDangerouslySkipPermissions: false,
  plugins: [{ type: "local", path: "./plugin", skipMcpDiscovery: true }],
  resume: "00000000-0000-0000-0000-000000000000",
  sessionId: "00000000-0000-0000-0000-000000000001",
  resumeSessionAt: "00000000-0000-0000-0000-000000000002",
  sandbox: { enabled: true },
  settings: { includeCoAuthoredBy: false },
  settingSources: ["project"],
  debug: false,
  stderr: (data: string) => process.stderr.write(data),
  strictMcpConfig: true,
  systemPrompt: { type: "preset", preset: "claude_code", append: "Be brief.", excludeDynamicSections: true },
  onElicitation,
  onUserDialog,
  supportedDialogKinds: ["confirm"],
  toolConfig: { askUserQuestion: { previewFormat: "markdown" } },
  toolAliases: { Bash: "mcp__calc__add" },
  planModeInstructions: "Plan first.",
  promptSuggestions: true,
  agentProgressSummaries: true,
  forwardSubagentText: true,
  perTaskStopAffordance: true,
  title: "A title",
  skills: ["pdf"],
  managedSettings: { permissions: { deny: ["WebFetch"] } },
  mcpServersDelivery: "initialize",
  pluginDelivery: "argv",
  verbatimPrompts: true,
  taskBudget: { total: 100_000 },
  resumeDropsTurn: "00000000-0000-0000-0000-000000000004",
  permissionPrompts: "host",
  projectConfigRoot: "/repo",
  spawnClaudeCodeProcess: ({ command, args, cwd, env, signal }): SpawnedProcess =>
    spawn(command, args, { cwd, env, signal, stdio: ["pipe", "pipe", "inherit"] }),
};

const customPrompt: Options = { systemPrompt: { type: "custom", prompt: ["a", "b"] } };
const listPrompt: Options = {
  systemPrompt: ["a", "b"],
  skills: "all",
  thinking: { type: "adaptive", display: "summarized" },
};

function describeMessage(message: SDKMessage): string {
  switch (message.type) {
    case "assistant": {
      const assistant: SDKAssistantMessage = message;
      return assistant.message.content
        .map((block) =>
          block.type === "text" ? block.text : block.type === "tool_use" ? block.name : block.type,
        )
        .join(" ");
    }
    case "user":
      return `${message.parent_tool_use_id ?? "top"} ${JSON.stringify(message.message.content)}`;
    case "result": {
      const result: SDKResultMessage = message;
      const usage = `${result.usage.input_tokens}/${result.usage.output_tokens} $${result.total_cost_usd}`;
      if (result.subtype === "success")
        return `${result.result} ${JSON.stringify(result.structured_output)} ${usage}`;
      return `${result.subtype}: ${result.errors.join("; ")} ${result.num_turns} ${result.is_error}`;
    }
    case "system":
      if (message.subtype === "init") {
        const init: SDKSystemMessage = message;
        return `${init.model} ${init.cwd} ${init.tools.join(",")} ${init.permissionMode} ${init.session_id}`;
      }
      return message.subtype;
    case "stream_event":
      return message.event.type;
    default:
      return message.type;
  }
}

async function control(q: Query): Promise<void> {
  const init = await q.initializationResult();
  const commands = await q.supportedCommands();
  const models = await q.supportedModels();
  const agents = await q.supportedAgents();
  const account = await q.accountInfo();
  const mcp = await q.mcpServerStatus();
  console.log(
    init.models.length,
    commands[0]?.name,
    models[0]?.value,
    agents[0]?.name,
    account.email,
    mcp[0]?.status,
  );
  await q.setModel("claude-opus-4-5");
  await q.setModel();
  await q.setPermissionMode("plan");
  await q.setMaxThinkingTokens(4096);
  await q.setMaxThinkingTokens(null);
  const rewound = await q.rewindFiles("00000000-0000-0000-0000-000000000003", { dryRun: true });
  console.log(rewound.canRewind, rewound.filesChanged);
  await q.reconnectMcpServer("calc");
  await q.toggleMcpServer("calc", false);
  await q.stopTask("task-1");
  const usage = await q.getContextUsage({ detail: "summary" });
  const backgrounded: boolean = await q.backgroundTasks();
  const resource = await q.readMcpResource("calc", "file:///x");
  await q.applyFlagSettings({ model: "claude-sonnet-4-5" });
  await q.updateSettings("localSettings", { theme: "dark" });
  const reloaded = await q.reloadPlugins({ refuseIfBusy: true });
  await q.reloadSkills();
  await q.reloadOutputStyles();
  const override = await q.setMcpPermissionModeOverride("calc", "auto");
  await q.seedReadState("/tmp/x", 0);
  const reinit = await q.reinitialize();
  const file = await q.readFile("/tmp/x", { maxBytes: 100, encoding: "utf-8" });
  const spend = await q.usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET({ skipBehaviors: true });
  const changed = await q.setMcpServers({ calc, other: { type: "http", url: "http://127.0.0.1:1/mcp" } });
  console.log(reinit.commands.length, file, spend, changed.added, changed.removed, changed.errors);
  async function* more(): AsyncGenerator<SDKUserMessage> {
    yield {
      type: "user",
      message: { role: "user", content: "more" },
      parent_tool_use_id: null,
      session_id: "",
    };
  }
  await q.streamInput(more());
  console.log(usage, backgrounded, resource, reloaded, override.warning);
  const interrupted = await q.interrupt();
  console.log(interrupted?.still_queued);
}

export async function main(): Promise<void> {
  const q = query({ prompt: "What is 2 + 2?", options });
  try {
    for await (const message of q) {
      console.log(describeMessage(message));
      if (message.type === "system" && message.subtype === "init") await control(q);
    }
  } catch (error) {
    if (error instanceof AbortError) console.log("aborted");
    else throw error;
  } finally {
    q.close();
  }

  async function* prompts(): AsyncGenerator<SDKUserMessage> {
    yield {
      type: "user",
      message: { role: "user", content: "first" },
      parent_tool_use_id: null,
      session_id: "",
    };
  }
  for await (const message of query({ prompt: prompts(), options: { systemPrompt: "You are terse." } })) {
    if (message.type === "result" && message.subtype === "success") console.log(message.result);
  }
  console.log(customPrompt, listPrompt);
}

/** The session helpers, under the official names. */
export async function sessions(dir: string): Promise<void> {
  const all: SDKSessionInfo[] = await listSessions({ dir, limit: 10 });
  const first = all[0];
  if (!first) return;
  const info = await getSessionInfo(first.sessionId, { dir });
  const messages = await getSessionMessages(first.sessionId, { dir, limit: 5, offset: 0 });
  console.log(
    info?.summary,
    messages.map((m) => `${m.type} ${m.uuid}`),
  );
  await renameSession(first.sessionId, "renamed", { dir });
  await tagSession(first.sessionId, null, { dir });
  const fork = await forkSession(first.sessionId, { dir, title: "fork" });
  await deleteSession(fork.sessionId, { dir });
}
