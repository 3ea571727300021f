/**
 * Up-front validation for the ACP backend: the options ACP can carry, checked before anything is
 * spawned, every problem in one error.
 */
import { InvalidOptionsError, UnsupportedOptionsError } from "../../errors.js";
import { ACP_AGENT_PRESETS } from "../../options/acp-presets.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import { supportedOptions, unsupportedOptionsIn } from "../../options/support.js";
import { agentOptionsIssues } from "../../options-schema.js";

/**
 * The options the ACP backend honours, from the support table (`OPTION_SUPPORT`). Every other
 * option is refused, so an option added to the SDK later is refused here too until the table lists
 * ACP for it. The model, permission mode, tools and system prompt are each agent's own
 * configuration: ACP has no common field for them.
 */
export const ACP_SUPPORTED_OPTIONS: ReadonlySet<string> = supportedOptions("acp");

/** The options set in `options` that ACP cannot honour (`undefined` and `false` count as unset). */
export function acpUnsupportedOptions(options: ResolvedOptions): string[] {
  return unsupportedOptionsIn("acp", options, { falseIsUnset: true });
}

/** Problems beyond the schema: which agent to run, and MCP servers ACP can pass on. */
export function acpOptionIssues(options: ResolvedOptions): string[] {
  const issues: string[] = [];
  const acp = options.acp;
  if (acp?.agent === undefined && acp?.command === undefined && options.cliPath === undefined) {
    issues.push(
      `acp: name the agent: acp.agent (a preset: ${ACP_AGENT_PRESETS.map((p) => `"${p}"`).join(", ")}) or acp.command`,
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
  if (issues.length === 0) issues.push(...acpOptionIssues((options ?? {}) as ResolvedOptions));
  if (issues.length > 0) throw new InvalidOptionsError(issues);
  const unsupported = acpUnsupportedOptions((options ?? {}) as ResolvedOptions);
  if (unsupported.length > 0) throw new UnsupportedOptionsError("acp", unsupported);
}
