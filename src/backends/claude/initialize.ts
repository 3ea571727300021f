/**
 * The option fields the official TypeScript SDK 0.3.330 sends in the `initialize` control request
 * rather than on the command line: the system prompt, subagents, tool aliases, the session title,
 * skills, dialogs, and (when asked for) MCP servers and plugins.
 */
import type { RawObject } from "../../messages.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import { claudeJsonSchema } from "./command.js";

/**
 * The `initialize` fields for `options` (besides `hooks` and `sdkMcpServers`, which the session
 * adds). Fields left `undefined` are dropped by JSON serialization, as in the official SDK.
 */
export function buildClaudeInitialize(options: ResolvedOptions): RawObject {
  return {
    jsonSchema: claudeJsonSchema(options),
    ...systemPromptFields(options.systemPrompt),
    planModeInstructions: options.planModeInstructions,
    toolAliases: options.toolAliases,
    agents: options.agents,
    title: options.title,
    skills: Array.isArray(options.skills) ? options.skills : undefined,
    promptSuggestions: options.promptSuggestions,
    agentProgressSummaries: options.agentProgressSummaries,
    forwardSubagentText: options.forwardSubagentText,
    supportedDialogKinds: options.supportedDialogKinds,
    perTaskStopAffordance: options.perTaskStopAffordance,
    plugins: options.pluginDelivery === "initialize" && options.plugins?.length ? options.plugins : undefined,
    mcpServers: options.mcpServersDelivery === "initialize" ? externalMcpServers(options) : undefined,
    // Never on argv (see `buildClaudeArgs`: `--managed-settings-in-initialize`).
    managedSettings: options.managedSettings,
  };
}

/**
 * The system prompt fields. No `systemPrompt` is an empty prompt (a bare agent, not Claude Code's
 * own prompt), as in the official SDK; a string is sent as a one-element list.
 */
function systemPromptFields(prompt: ResolvedOptions["systemPrompt"]): RawObject {
  if (prompt === undefined) return { systemPrompt: [""] };
  if (typeof prompt === "string") return { systemPrompt: [prompt] };
  if (Array.isArray(prompt)) return { systemPrompt: prompt };
  if (prompt.type === "custom") {
    return {
      systemPrompt: typeof prompt.prompt === "string" ? [prompt.prompt] : prompt.prompt,
      systemPromptSnapshot: prompt.snapshot,
    };
  }
  return {
    appendSystemPrompt: prompt.append,
    excludeDynamicSections: prompt.excludeDynamicSections,
    systemPromptSnapshot: prompt.snapshot,
  };
}

function externalMcpServers(options: ResolvedOptions): RawObject | undefined {
  if (typeof options.mcpServers !== "object") return undefined;
  const servers = Object.entries(options.mcpServers).filter(([, config]) => config.type !== "sdk");
  return servers.length > 0 ? Object.fromEntries(servers) : undefined;
}
