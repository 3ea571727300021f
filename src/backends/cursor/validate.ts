/**
 * Up-front validation for the Cursor backend. Cursor's print mode has no system prompt, no tool
 * filters, no permission callback, no hooks, no MCP flag and no structured output, so options that
 * ask for those would be silent no-ops: they are refused, all of them in one error, before
 * anything is spawned.
 */
import { UnsupportedOptionsError } from "../../errors.js";
import type { AgentOptions } from "../../options.js";
import { validateAgentOptions } from "../../options-schema.js";

/**
 * The options Cursor honours. Every other `AgentOptions` field is refused, so an option added to
 * the SDK later is refused here too until someone maps it (an allow-list cannot go stale silently).
 */
export const CURSOR_SUPPORTED_OPTIONS: ReadonlySet<keyof AgentOptions> = new Set<keyof AgentOptions>([
  "backend",
  "cursor",
  "cliPath",
  "cwd",
  "env",
  "extraArgs",
  "signal",
  "stderr",
  "maxBufferSize",
  "highWaterMark",
  "lowWaterMark",
  "maxReaderLagBytes",
  "closeGraceMs",
  "exitTimeoutMs",
  "inheritEnv",
  "model",
  "resume",
  "includePartialMessages",
]);

/**
 * The options set in `options` that Cursor cannot honour, in the object's key order. `undefined` and
 * `false` count as unset (a boolean switched off asks for nothing).
 */
export function cursorUnsupportedOptions(options: AgentOptions): string[] {
  return Object.entries(options)
    .filter(([, value]) => value !== undefined && value !== false)
    .map(([key]) => key)
    .filter((key) => !CURSOR_SUPPORTED_OPTIONS.has(key as keyof AgentOptions));
}

/**
 * Validates options for the Cursor backend without spawning anything.
 *
 * @throws InvalidOptionsError listing every schema problem (see `validateAgentOptions`).
 * @throws UnsupportedOptionsError listing every option Cursor cannot honour.
 */
export function validateCursorOptions(options: unknown): void {
  validateAgentOptions(options);
  const unsupported = cursorUnsupportedOptions((options ?? {}) as AgentOptions);
  if (unsupported.length > 0) throw new UnsupportedOptionsError("cursor", unsupported);
}
