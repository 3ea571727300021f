/**
 * Helpers for putting user values on a CLI's command line without any of them becoming a flag.
 *
 * Every value we pass is first checked by the options schema (ids against their syntax, nothing
 * starting with `-`); these helpers are the second line: a value that still starts with `-` is
 * joined to its flag (`--flag=value`, which every CLI we drive parses as that flag's value).
 */

/** A UUID in its canonical 8-4-4-4-12 hex form (any version; Codex thread ids are UUIDv7). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Why a value that reaches a CLI's argv as an argument of its own cannot start with `-`. */
export const NOT_A_FLAG =
  "must not start with '-': the CLI would read it as an option (write a relative path as ./-name)";

/** Why a value that reaches a CLI's argv or environment cannot hold a NUL byte. */
export const NO_NUL = "must not contain a NUL byte: a command line or environment cannot carry one";

/** Whether `value` would be read as an option if it were an argument of its own. */
export function looksLikeFlag(value: string): boolean {
  return value.startsWith("-");
}

/**
 * `[flag, value]`, or `[flag=value]` when `value` starts with `-`, so the CLI can only read it as
 * the value of `flag` (commander and clap both accept the joined form, also for options whose
 * value is optional, such as Claude Code's `--resume [value]`).
 */
export function flagWithValue(flag: string, value: string): string[] {
  return looksLikeFlag(value) ? [`${flag}=${value}`] : [flag, value];
}
