/**
 * Turns `AgentOptions` into the argv of the Claude Code CLI (verified against 2.1.330).
 *
 * We always run the CLI in streaming-input mode with the control protocol on stdin/stdout, so the
 * prompt never appears in argv (no `-p <prompt>`): it is written to stdin as a user message.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { InvalidOptionsError } from "../../errors.js";
import { asObject, isObject } from "../../internal/wire.js";
import type { McpServerConfig } from "../../mcp/config.js";
import type { AgentOptions } from "../../options.js";

/** What the session knows that the options alone do not. */
export interface ClaudeCommandContext {
  /**
   * Names of in-process (SDK) MCP servers the session routes `mcp_message` requests for. Each is
   * declared to the CLI as `{ type: "sdk", name }`, including any not listed in `options.mcpServers`.
   */
  sdkMcpServerNames: string[];
}

/** The flags every session starts with: JSON lines both ways, all message kinds on stdout. */
export const BASE_CLAUDE_ARGS: readonly string[] = [
  "--output-format",
  "stream-json",
  "--verbose",
  "--input-format",
  "stream-json",
];

/**
 * Builds the CLI arguments (without the executable) for `options`.
 *
 * Deterministic and side-effect free, except that a `settings` value naming a file is read
 * (synchronously) so that it can be merged with `sandbox` into the single `--settings` JSON the
 * CLI accepts. Throws `InvalidOptionsError` for combinations the CLI cannot run (see
 * {@link claudeOptionConflicts}) and for an unreadable or malformed settings file.
 *
 * Defaults that differ from running `claude` by hand, on purpose:
 * - no `systemPrompt` → `--system-prompt ""`: like the official SDKs, a bare agent prompt rather
 *   than Claude Code's full prompt; ask for that with `{ type: "preset", preset: "claude_code" }`.
 * - no `settingSources` → `--setting-sources ""`: no user/project/local settings files are loaded,
 *   so a session behaves the same on every machine.
 */
export function buildClaudeArgs(options: AgentOptions, ctx: ClaudeCommandContext): string[] {
  const conflicts = claudeOptionConflicts(options);
  if (conflicts.length > 0) throw new InvalidOptionsError(conflicts);

  const args = [...BASE_CLAUDE_ARGS];
  const push = (flag: string, value?: string) => {
    args.push(flag);
    if (value !== undefined) args.push(value);
  };

  const sp = options.systemPrompt;
  if (sp === undefined) push("--system-prompt", "");
  else if (typeof sp === "string") push("--system-prompt", sp);
  else if (sp.append !== undefined) push("--append-system-prompt", sp.append);

  if (options.tools !== undefined) {
    // An empty string is the CLI's spelling of "no built-in tools".
    push("--tools", Array.isArray(options.tools) ? options.tools.join(",") : "default");
  }
  if (options.allowedTools?.length) push("--allowedTools", options.allowedTools.join(","));
  if (options.disallowedTools?.length) push("--disallowedTools", options.disallowedTools.join(","));
  if (options.maxTurns !== undefined) push("--max-turns", String(options.maxTurns));
  if (options.maxBudgetUsd !== undefined) push("--max-budget-usd", String(options.maxBudgetUsd));
  if (options.model !== undefined) push("--model", options.model);
  if (options.fallbackModel !== undefined) push("--fallback-model", options.fallbackModel);
  if (options.permissionMode !== undefined) push("--permission-mode", options.permissionMode);
  if (options.allowDangerouslySkipPermissions) push("--allow-dangerously-skip-permissions");
  if (options.continueConversation) push("--continue");
  if (options.resume !== undefined) push("--resume", options.resume);
  if (options.resumeSessionAt !== undefined) push("--resume-session-at", options.resumeSessionAt);
  if (options.forkSession) push("--fork-session");

  const settings = resolveClaudeSettings(options);
  if (settings !== undefined) push("--settings", JSON.stringify(settings));

  // `--betas` is variadic and does not split on commas (2.1.330 warns about "a,b" as one unknown
  // beta), so each beta gets its own flag.
  for (const beta of options.betas ?? []) push("--betas", beta);
  for (const dir of options.addDirs ?? []) push("--add-dir", dir);

  if (typeof options.mcpServers === "string") push("--mcp-config", options.mcpServers);
  const mcpJson = mcpConfigJson(typeof options.mcpServers === "object" ? options.mcpServers : {}, ctx);
  if (mcpJson !== undefined) push("--mcp-config", mcpJson);

  if (options.includePartialMessages) push("--include-partial-messages");
  push("--setting-sources", (options.settingSources ?? []).join(","));
  for (const plugin of options.plugins ?? []) push("--plugin-dir", plugin.path);

  const thinkingTokens = maxThinkingTokens(options);
  if (thinkingTokens !== undefined) push("--max-thinking-tokens", String(thinkingTokens));
  if (options.effort !== undefined) push("--effort", options.effort);
  if (options.outputFormat?.type === "json_schema")
    push("--json-schema", JSON.stringify(options.outputFormat.schema));

  if (options.canUseTool) {
    // "stdio" routes every permission prompt to us as a `can_use_tool` control request; without
    // it the CLI silently denies whatever needs approval.
    push("--permission-prompt-tool", "stdio");
  } else if (options.permissionPromptToolName !== undefined) {
    push("--permission-prompt-tool", options.permissionPromptToolName);
  }

  if (options.agents && Object.keys(options.agents).length > 0)
    push("--agents", JSON.stringify(options.agents));

  // Last, so a caller can reach flags this SDK does not model (and override earlier ones).
  for (const [flag, value] of Object.entries(options.extraArgs ?? {})) push(`--${flag}`, value ?? undefined);
  return args;
}

/**
 * Option combinations the Claude Code CLI cannot run, as `path: message` strings (empty when
 * none). Shared by {@link buildClaudeArgs} and the backend's up-front validation.
 */
export function claudeOptionConflicts(options: AgentOptions): string[] {
  const issues: string[] = [];
  if (options.canUseTool && options.permissionPromptToolName !== undefined) {
    issues.push(
      "permissionPromptToolName: cannot be combined with canUseTool, which already answers permission " +
        "prompts in-process (via --permission-prompt-tool stdio); set only one of them",
    );
  }
  if (options.resumeSessionAt !== undefined && options.resume === undefined) {
    issues.push("resumeSessionAt: needs resume (the session id to resume); the CLI refuses it on its own");
  }
  return issues;
}

/**
 * The effective thinking budget per the design (seed §5.5): `enabled` uses its budget, `disabled`
 * forces 0, `adaptive` or no `thinking` pass `maxThinkingTokens` through (nothing when unset, so
 * the CLI decides). Models with adaptive thinking ignore the budget in 2.1.330.
 */
export function maxThinkingTokens(options: AgentOptions): number | undefined {
  switch (options.thinking?.type) {
    case "enabled":
      return options.thinking.budgetTokens;
    case "disabled":
      return 0;
    default:
      return options.maxThinkingTokens;
  }
}

/**
 * The settings object to pass as `--settings`, or `undefined` when there is none: `settings`
 * (a JSON string, an object, or a file path resolved against `cwd`) with `sandbox` merged in under
 * `sandbox`. Keys of `options.sandbox` override those of a `sandbox` already in the settings.
 * Throws `InvalidOptionsError` when the file cannot be read or the JSON is not an object.
 */
export function resolveClaudeSettings(options: AgentOptions): Record<string, unknown> | undefined {
  const base = loadSettings(options.settings, options.cwd);
  if (options.sandbox === undefined) return base;
  const merged = { ...(base ?? {}) };
  const existing = merged.sandbox;
  merged.sandbox = { ...asObject(existing), ...options.sandbox };
  return merged;
}

function loadSettings(
  settings: AgentOptions["settings"],
  cwd: string | undefined,
): Record<string, unknown> | undefined {
  if (settings === undefined) return undefined;
  if (typeof settings !== "string") return { ...settings };

  let text = settings;
  let source = "settings JSON";
  // Same rule as the CLI's own `--settings <file-or-json>`: JSON objects start with "{".
  if (!settings.trimStart().startsWith("{")) {
    const file = isAbsolute(settings) ? settings : resolve(cwd ?? process.cwd(), settings);
    source = `settings file '${file}'`;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new InvalidOptionsError([`settings: cannot read ${source}: ${(error as Error).message}`]);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InvalidOptionsError([`settings: ${source} is not valid JSON: ${(error as Error).message}`]);
  }
  if (!isObject(parsed)) throw new InvalidOptionsError([`settings: ${source} must hold a JSON object`]);
  return parsed;
}

function mcpConfigJson(
  servers: Record<string, McpServerConfig>,
  ctx: ClaudeCommandContext,
): string | undefined {
  const wire: Record<string, unknown> = {};
  for (const [name, config] of Object.entries(servers)) {
    // The in-process instance cannot cross a process boundary; the CLI only needs to know the
    // server exists. It addresses `mcp_message` requests by the map key (checked on 2.1.330), so
    // `name` is the key too, whatever the config's own `name` says.
    wire[name] = config.type === "sdk" ? { type: "sdk", name } : config;
  }
  for (const name of ctx.sdkMcpServerNames) wire[name] ??= { type: "sdk", name };
  return Object.keys(wire).length > 0 ? JSON.stringify({ mcpServers: wire }) : undefined;
}
