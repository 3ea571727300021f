/**
 * Up-front validation for the Cursor backend. Cursor's print mode has no system prompt, no tool
 * filters, no permission callback, no hooks, no MCP flag and no structured output, so options that
 * ask for those would be silent no-ops: they are refused, all of them in one error, before
 * anything is spawned.
 */
import { UnsupportedOptionsError } from "../../errors.js";
import { validateAgentOptions } from "../../options/check.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import { supportedOptions, unsupportedOptionsIn } from "../../options/support.js";

/**
 * The options Cursor honours, from the support table (`OPTION_SUPPORT`). Every other option is
 * refused, so an option added to the SDK later is refused here too until the table lists Cursor
 * for it (an allow-list cannot go stale silently).
 */
export const CURSOR_SUPPORTED_OPTIONS: ReadonlySet<string> = supportedOptions("cursor");

/**
 * The options set in `options` that Cursor cannot honour, in the object's key order. `undefined` and
 * `false` count as unset (a boolean switched off asks for nothing).
 */
export function cursorUnsupportedOptions(options: ResolvedOptions): string[] {
  return unsupportedOptionsIn("cursor", options, { falseIsUnset: true });
}

/**
 * Validates options for the Cursor backend without spawning anything.
 *
 * @throws InvalidOptionsError listing every schema problem (see `validateAgentOptions`).
 * @throws UnsupportedOptionsError listing every option Cursor cannot honour.
 */
export function validateCursorOptions(options: unknown): void {
  validateAgentOptions(options);
  const unsupported = cursorUnsupportedOptions((options ?? {}) as ResolvedOptions);
  if (unsupported.length > 0) throw new UnsupportedOptionsError("cursor", unsupported);
}
