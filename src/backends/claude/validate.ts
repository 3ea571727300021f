/**
 * Up-front validation for the Claude backend: everything that can be known before spawning, so a
 * bad option fails at the call site with every problem listed, not as a CLI exit status later.
 */
import { InvalidOptionsError, UnsupportedOptionsError } from "../../errors.js";
import { agentOptionsIssues, warnUnknownNestedFields } from "../../options/check.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import { refusedOptions, unsupportedOptionsIn } from "../../options/support.js";
import { claudeOptionConflicts, resolveClaudeSettings } from "./command.js";
import { resolveUser } from "./env.js";
import { CLAUDE_REJECTED_OPTIONS } from "./official-options.js";

/**
 * Options that configure other backends (Claude would silently ignore them): the options the
 * support table (`OPTION_SUPPORT`) refuses for Claude, less the official ones refused with a reason.
 */
export const CLAUDE_FOREIGN_OPTIONS: readonly string[] = Object.freeze(
  refusedOptions("claude").filter((name) => !Object.hasOwn(CLAUDE_REJECTED_OPTIONS, name)),
);

/**
 * Every reason `options` cannot run on Claude Code, as `path: message` strings: schema violations
 * (see `validateAgentOptions`), flag combinations the CLI refuses, an unreadable or malformed
 * `settings` file, and an unknown `user`. Empty when the options are fine. Never throws.
 */
export function claudeOptionIssues(options: unknown): string[] {
  const issues = agentOptionsIssues(options);
  if (typeof options !== "object" || options === null) return issues;
  const o = options as ResolvedOptions;
  issues.push(...claudeOptionConflicts(o));
  // Only checked when the schema accepted the field's shape; otherwise it is already reported.
  if (typeof o.settings === "string" || (typeof o.settings === "object" && o.settings !== null)) {
    issues.push(...issuesOf(() => resolveClaudeSettings({ settings: o.settings, cwd: o.cwd })));
  }
  if (
    typeof o.user === "string" ||
    typeof o.user === "number" ||
    (typeof o.user === "object" && o.user !== null)
  ) {
    issues.push(...issuesOf(() => resolveUser(o.user)));
  }
  return issues;
}

/**
 * Validates options for the Claude backend without spawning anything.
 *
 * @throws InvalidOptionsError listing every invalid option (see {@link claudeOptionIssues}).
 * @throws UnsupportedOptionsError for options Claude cannot honour: other backends' sections
 *   (`codex`, `cursor`), the official SDK's options that cannot apply here (each with its reason,
 *   see `CLAUDE_REJECTED_OPTIONS`) and, on Windows, `user`.
 *
 * Fields of CLI-owned nested objects this SDK does not know are passed through, with a one-time
 * warning (see `warnUnknownNestedFields`).
 */
export function validateClaudeOptions(options: unknown): void {
  const issues = claudeOptionIssues(options);
  if (issues.length > 0) throw new InvalidOptionsError(issues);
  const o = (options ?? {}) as ResolvedOptions;
  const unsupported: string[] = unsupportedOptionsIn("claude", o);
  const reasons: Record<string, string> = {};
  for (const key of unsupported) {
    if (Object.hasOwn(CLAUDE_REJECTED_OPTIONS, key)) {
      reasons[key] = CLAUDE_REJECTED_OPTIONS[key as keyof typeof CLAUDE_REJECTED_OPTIONS];
    }
  }
  // Switching uid at spawn is a POSIX facility.
  if (o.user !== undefined && process.platform === "win32") unsupported.push("user");
  if (unsupported.length > 0) throw new UnsupportedOptionsError("claude", unsupported, reasons);
  warnUnknownNestedFields(options);
}

function issuesOf(check: () => unknown): string[] {
  try {
    check();
    return [];
  } catch (error) {
    if (error instanceof InvalidOptionsError) return [...error.issues];
    throw error;
  }
}
