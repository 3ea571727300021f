/**
 * Up-front validation for the ACP backend: the options ACP can carry, checked before anything is
 * spawned, every problem in one error.
 */
import { InvalidOptionsError, UnsupportedOptionsError } from "../../errors.js";
import type { AgentOptions } from "../../options.js";
import { agentOptionsIssues } from "../../options-schema.js";

/**
 * The options the ACP backend honours. Every other `AgentOptions` field is refused, so an option
 * added to the SDK later is refused here too until someone maps it. The model, permission mode,
 * tools and system prompt are each agent's own configuration: ACP has no common field for them.
 */
export const ACP_SUPPORTED_OPTIONS: ReadonlySet<keyof AgentOptions> = new Set<keyof AgentOptions>([
  "backend",
  "acp",
  "cliPath",
  "cwd",
  "env",
  "inheritEnv",
  "extraArgs",
  "signal",
  "stderr",
  "maxBufferSize",
  "highWaterMark",
  "lowWaterMark",
  "maxReaderLagBytes",
  "controlTimeoutMs",
  "closeGraceMs",
  "exitTimeoutMs",
  "callbackTimeoutMs",
  "canUseTool",
  "mcpServers",
  "resume",
  "includePartialMessages",
]);

/** The options set in `options` that ACP cannot honour (`undefined` and `false` count as unset). */
export function acpUnsupportedOptions(options: AgentOptions): string[] {
  return Object.entries(options)
    .filter(([, value]) => value !== undefined && value !== false)
    .map(([key]) => key)
    .filter((key) => !ACP_SUPPORTED_OPTIONS.has(key as keyof AgentOptions));
}

/** Problems beyond the schema: which agent to run, and MCP servers ACP can pass on. */
export function acpOptionIssues(options: AgentOptions): string[] {
  const issues: string[] = [];
  const acp = options.acp;
  if (acp?.agent === undefined && acp?.command === undefined && options.cliPath === undefined) {
    issues.push(
      'acp: name the agent: acp.agent (a preset: "gemini", "qwen", "opencode", "copilot", "kilo", "claude-code-acp", "codex-acp") or acp.command',
    );
  }
  if (typeof options.mcpServers === "string") {
    issues.push(
      "mcpServers: the acp backend passes MCP servers to the agent per session; give them as an object, not a file path",
    );
  } else if (options.mcpServers) {
    for (const [name, server] of Object.entries(options.mcpServers)) {
      if (server?.type === "sdk") {
        issues.push(`mcpServers.${name}: in-process (sdk) MCP servers cannot be routed through ACP`);
      }
    }
  }
  return issues;
}

/**
 * Validates options for the ACP backend without spawning anything.
 *
 * @throws InvalidOptionsError listing every schema problem and a missing agent.
 * @throws UnsupportedOptionsError listing every option ACP cannot honour.
 */
export function validateAcpOptions(options: unknown): void {
  const issues = agentOptionsIssues(options);
  if (issues.length === 0) issues.push(...acpOptionIssues((options ?? {}) as AgentOptions));
  if (issues.length > 0) throw new InvalidOptionsError(issues);
  const unsupported = acpUnsupportedOptions((options ?? {}) as AgentOptions);
  if (unsupported.length > 0) throw new UnsupportedOptionsError("acp", unsupported);
}
