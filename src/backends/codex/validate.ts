/**
 * Up-front validation for the Codex backend: every option Codex cannot honour is reported, all at
 * once, before anything is spawned.
 */
import { InvalidOptionsError, UnsupportedOptionsError } from "../../errors.js";
import { agentOptionsIssues } from "../../options/check.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import { type OptionName, refusedOptions, unsupportedOptionsIn } from "../../options/support.js";

/**
 * Options the Codex CLI (0.169.0) has no equivalent for, from the support table
 * (`OPTION_SUPPORT`). Any value other than `undefined` is rejected, so a setting is never
 * silently ignored.
 */
export const CODEX_UNSUPPORTED_OPTIONS: readonly OptionName[] = Object.freeze(refusedOptions("codex"));

/**
 * Every option Codex cannot honour, by name: the options the support table refuses for Codex that
 * are set, `mcpServers` given as a config file path, and MCP servers of a type Codex cannot run
 * (`mcpServers.<name>` for `sse` and in-process `sdk` servers; stdio and http are supported).
 */
export function codexUnsupportedOptions(options: ResolvedOptions): string[] {
  const out: string[] = unsupportedOptionsIn("codex", options);
  if (typeof options.mcpServers === "string") out.push("mcpServers");
  if (typeof options.mcpServers === "object" && options.mcpServers !== null) {
    for (const [name, server] of Object.entries(options.mcpServers)) {
      if (server.type === "sse" || server.type === "sdk") out.push(`mcpServers.${name}`);
    }
  }
  return out;
}

/** Invalid values for Codex, as `path: message` strings (schema issues first). Never throws. */
export function codexOptionIssues(options: unknown): string[] {
  const issues = agentOptionsIssues(options);
  if (typeof options !== "object" || options === null) return issues;
  const o = options as ResolvedOptions;
  if (o.effort === "max") {
    issues.push("effort: Codex has no 'max' reasoning effort; use 'xhigh' (or codex.reasoningEffort)");
  }
  const effort = o.codex?.reasoningEffort;
  if (o.effort !== undefined && effort !== undefined && o.effort !== effort) {
    issues.push(
      `effort: conflicts with codex.reasoningEffort ('${o.effort}' vs '${effort}'); set only one of them`,
    );
  }
  return issues;
}

/**
 * Validates options for the Codex backend without spawning anything.
 *
 * @throws InvalidOptionsError listing every invalid value (see {@link codexOptionIssues}).
 * @throws UnsupportedOptionsError listing every option Codex cannot honour.
 */
export function validateCodexOptions(options: unknown): void {
  const issues = codexOptionIssues(options);
  if (issues.length > 0) throw new InvalidOptionsError(issues);
  const unsupported = codexUnsupportedOptions((options ?? {}) as ResolvedOptions);
  if (unsupported.length > 0) throw new UnsupportedOptionsError("codex", unsupported);
}
