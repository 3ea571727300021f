/**
 * The ways real third-party code uses `@anthropic-ai/claude-agent-sdk`'s types, after the community
 * Vercel AI SDK provider (`ai-sdk-provider-claude-code`, which measured 87 more type errors against
 * our `.d.ts` than against the official one): hook inputs by their own names, the Messages API
 * stream events of `stream_event`, `ttft_ms` / `terminal_reason` on results, `supersedes` on
 * assistant messages, `tool()` given `z.object(...).shape`, session stores, sandbox and thinking
 * settings, the other system messages by subtype, and the 0.3.330 runtime exports beyond `query()`.
 * Written by us against the official `.d.ts`; compiled against both (../../types.test.ts), never run.
 */

import {
  type AgentDefinition,
  BUILTIN_TOOL_NAMES,
  type CanUseTool,
  createSdkMcpServer,
  type EffortLevel,
  EXIT_REASONS,
  filterEscalatingDefaultMode,
  HOOK_EVENTS,
  type HookCallback,
  type HookInput,
  InMemorySessionStore,
  LEGACY_TOOL_NAME_ALIASES,
  type McpSdkServerConfigWithInstance,
  matchDeniedModels,
  type NotificationHookInput,
  type Options,
  type PermissionDeniedHookInput,
  type PostCompactHookInput,
  type PostToolBatchHookInput,
  type PreCompactHookInput,
  type PreToolUseHookSpecificOutput,
  type Query,
  query,
  resolveSettings,
  type SandboxSettings,
  type SDKAssistantMessage,
  type SDKMessage,
  type SDKPartialAssistantMessage,
  type SDKResultMessage,
  type SDKUserMessage,
  type SdkBeta,
  type SdkMcpToolDefinition,
  type SessionEndHookInput,
  type SessionKey,
  type SessionStartHookInput,
  type SessionStore,
  type SessionStoreEntry,
  type SessionStoreFlush,
  type StopFailureHookInput,
  type StopHookInput,
  type SubagentStartHookInput,
  type SubagentStopHookInput,
  SYSTEM_PROMPT_DYNAMIC_BOUNDARY,
  type TerminalReason,
  type ThinkingConfig,
  tool,
  USAGE_LIMIT_ERROR_PREFIXES,
  type UserPromptExpansionHookInput,
  type UserPromptSubmitHookInput,
} from "@anthropic-ai/claude-agent-sdk";
import { type ZodObject, type ZodRawShape, z } from "zod";

// Hook inputs, narrowed by event name, each read through its own type.
export function describeHook(input: HookInput): string {
  switch (input.hook_event_name) {
    case "SessionStart":
      return `start:${(input satisfies SessionStartHookInput).source}`;
    case "SessionEnd":
      return `end:${(input satisfies SessionEndHookInput).reason}`;
    case "Stop":
      return `stop:${(input satisfies StopHookInput).stop_hook_active}:${input.last_assistant_message ?? ""}`;
    case "StopFailure":
      return `failure:${(input satisfies StopFailureHookInput).error}`;
    case "SubagentStart":
      return `sub:${(input satisfies SubagentStartHookInput).agent_type}`;
    case "SubagentStop":
      return `substop:${(input satisfies SubagentStopHookInput).agent_transcript_path}`;
    case "UserPromptSubmit":
      return `prompt:${(input satisfies UserPromptSubmitHookInput).prompt}`;
    case "UserPromptExpansion":
      return `expand:${(input satisfies UserPromptExpansionHookInput).command_name}`;
    case "Notification":
      return `note:${(input satisfies NotificationHookInput).notification_type}`;
    case "PermissionDenied":
      return `denied:${(input satisfies PermissionDeniedHookInput).reason}`;
    case "PreCompact":
      return `precompact:${(input satisfies PreCompactHookInput).custom_instructions ?? ""}`;
    case "PostCompact":
      return `compact:${(input satisfies PostCompactHookInput).compact_summary}`;
    case "PostToolBatch":
      return `batch:${(input satisfies PostToolBatchHookInput).tool_calls.map((c) => c.tool_name).join(",")}`;
    case "PreToolUse":
      return `pre:${input.tool_name}:${input.tool_use_id}`;
    default:
      return input.hook_event_name;
  }
}

const preToolUse: HookCallback = async (input) => {
  if (input.hook_event_name !== "PreToolUse") return {};
  const output: PreToolUseHookSpecificOutput = {
    hookEventName: "PreToolUse",
    permissionDecision: input.tool_name === "Bash" ? "ask" : "allow",
  };
  return { hookSpecificOutput: output };
};

// The Messages API stream events of `includePartialMessages`.
export function textDelta(message: SDKPartialAssistantMessage): string | undefined {
  const event = message.event;
  if (event.type === "content_block_delta" && event.delta.type === "text_delta" && "text" in event.delta) {
    return event.delta.text;
  }
  if (event.type === "content_block_start" && event.content_block.type === "tool_use") {
    return event.content_block.name;
  }
  if (event.type === "message_delta") return String(event.usage.output_tokens);
  return undefined;
}

// Results: timing and the terminal reason; assistant messages that replace earlier ones.
export function summarise(messages: SDKMessage[]): {
  ttft?: number;
  reason?: TerminalReason;
  evicted: string[];
} {
  const out: { ttft?: number; reason?: TerminalReason; evicted: string[] } = { evicted: [] };
  for (const message of messages) {
    if (message.type === "result") {
      const result: SDKResultMessage = message;
      if (result.subtype === "success" && result.ttft_ms !== undefined) out.ttft = result.ttft_ms;
      if (result.terminal_reason) out.reason = result.terminal_reason;
    } else if (message.type === "assistant") {
      const assistant: SDKAssistantMessage = message;
      const supersedes: string[] | undefined = assistant.supersedes;
      if (supersedes && supersedes.length > 0) out.evicted.push(...supersedes);
      if (assistant.error === "rate_limit") out.evicted.push("rate-limited");
    } else if (message.type === "system" && message.subtype === "status") {
      if (message.status === "compacting") out.evicted.push("compacting");
    } else if (message.type === "system" && message.subtype === "compact_boundary") {
      out.evicted.push(String(message.compact_metadata.pre_tokens));
    } else if (message.type === "system" && message.subtype === "task_notification") {
      out.evicted.push(message.summary);
    } else if (message.type === "rate_limit_event") {
      out.evicted.push(message.rate_limit_info.status);
    } else if (message.type === "stream_event") {
      const text = textDelta(message);
      if (text) out.evicted.push(text);
    }
  }
  return out;
}

// tool() given the shape of an AI SDK tool's z.object(), as the provider's MCP helper does.
export function bridgeTool(def: {
  name: string;
  description: string;
  inputSchema: ZodObject<ZodRawShape>;
}): SdkMcpToolDefinition<ZodRawShape> {
  return tool(def.name, def.description, def.inputSchema.shape as ZodRawShape, async (args) => ({
    content: [{ type: "text", text: JSON.stringify(args) }],
  }));
}

const weather = tool(
  "weather",
  "Weather",
  { city: z.string(), days: z.number().optional() },
  async (args) => ({
    content: [{ type: "text", text: `${args.city} ${args.days ?? 1}` }],
  }),
);
const server: McpSdkServerConfigWithInstance = createSdkMcpServer({ name: "tools", tools: [weather] });

// A session store of its own.
class MapStore implements SessionStore {
  private readonly entries = new Map<string, SessionStoreEntry[]>();
  async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    const id = `${key.projectKey}/${key.sessionId}/${key.subpath ?? ""}`;
    this.entries.set(id, [...(this.entries.get(id) ?? []), ...entries]);
  }
  async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
    return this.entries.get(`${key.projectKey}/${key.sessionId}/${key.subpath ?? ""}`) ?? null;
  }
}

export async function run(prompt: AsyncIterable<SDKUserMessage>): Promise<void> {
  const sandbox: SandboxSettings = {
    enabled: true,
    network: { allowedDomains: ["example.com"], allowLocalBinding: false },
    filesystem: { denyRead: ["/etc"] },
  };
  const thinking: ThinkingConfig = { type: "enabled", budgetTokens: 2048 };
  const betas: SdkBeta[] = ["context-1m-2025-08-07"];
  const effort: EffortLevel = "high";
  const flush: SessionStoreFlush = "eager";
  const agents: Record<string, AgentDefinition> = { helper: { description: "Helps", prompt: "Help." } };
  const canUseTool: CanUseTool = async (_name, input) => ({ behavior: "allow", updatedInput: input });
  const options: Options = {
    sandbox,
    thinking,
    betas,
    effort,
    agents,
    canUseTool,
    sessionStore: process.env.MEMORY ? new InMemorySessionStore() : new MapStore(),
    sessionStoreFlush: flush,
    mcpServers: { tools: server },
    hooks: { PreToolUse: [{ hooks: [preToolUse] }] },
    includePartialMessages: true,
    systemPrompt: ["You are terse.", SYSTEM_PROMPT_DYNAMIC_BOUNDARY, `Today is ${Date.now()}.`],
  };
  const q: Query = query({ prompt, options });
  const messages: SDKMessage[] = [];
  for await (const message of q) messages.push(message);
  summarise(messages);

  const settings = await resolveSettings({ cwd: process.cwd(), settingSources: ["user", "project"] });
  const trusted = filterEscalatingDefaultMode(settings);
  const denied = await matchDeniedModels(["claude-opus-4-1"], settings.effective.deniedModels);
  const limited = USAGE_LIMIT_ERROR_PREFIXES.some((p) => String(trusted.model ?? "").startsWith(p));
  const names: readonly string[] = [...BUILTIN_TOOL_NAMES, ...EXIT_REASONS, ...HOOK_EVENTS];
  void [denied.denied[0], limited, names, LEGACY_TOOL_NAME_ALIASES.Task, settings.provenance.model?.source];
}
