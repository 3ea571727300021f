/**
 * The options most queries pass, checked without zod: a query whose options are all of these (and
 * pass the cross-field rules) is valid without loading the options schema (`options-schema.ts`:
 * zod/mini, the Claude settings schema, ~15 ms of CPU to load in a fresh process). Each check
 * accepts exactly what the schema's field accepts (test: `plain-options.test.ts` compares them on
 * a corpus of values); anything else, and every other option, is "not sure" and goes to the schema,
 * which also words the issues.
 */
import type { Effort } from "../options.js";
import type { PermissionMode } from "../permissions.js";
import { MAX_TIMER_MS } from "../signals/duration.js";
import { BACKEND_KINDS } from "./support.js";

/** Every `permissionMode` value: the one list the schema, this check and the CLI's flag read. */
export const PERMISSION_MODES = [
  "default",
  "acceptEdits",
  "bypassPermissions",
  "plan",
  "dontAsk",
  "auto",
] as const satisfies readonly PermissionMode[];
/** Every named `effort` level: the one list the schema and this check read. */
export const EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const satisfies readonly Effort[];

type Check = (value: unknown) => boolean;

const oneOf =
  (values: readonly string[]): Check =>
  (v) =>
    typeof v === "string" && values.includes(v);
const isBoolean: Check = (v) => typeof v === "boolean";
const isString: Check = (v) => typeof v === "string";
const isFunction: Check = (v) => typeof v === "function";
const nonEmpty: Check = (v) => typeof v === "string" && v.length > 0;
/** A string that may become an argument of its own: never one starting with `-`, no NUL byte. */
const argvString: Check = (v) => typeof v === "string" && !v.startsWith("-") && !v.includes("\0");
const argvValue: Check = (v) => argvString(v) && (v as string).length > 0;
const argvStrings: Check = (v) => Array.isArray(v) && v.every(argvString);
const positiveInt: Check = (v) => Number.isSafeInteger(v) && (v as number) > 0;
/** A duration in ms: > 0 and at most {@link MAX_TIMER_MS}, or `Infinity` for "no limit". */
const durationNoLimit: Check = (v) =>
  typeof v === "number" && v > 0 && (v === Number.POSITIVE_INFINITY || v <= MAX_TIMER_MS);
const durationFinite: Check = (v) => typeof v === "number" && v > 0 && v <= MAX_TIMER_MS;

/**
 * The options checked here, by name (`undefined` is accepted for every one, as the schema's
 * `optional` does). The schema is the reference: a check may be stricter, never looser.
 */
export const PLAIN_OPTION_CHECKS: Readonly<Record<string, Check>> = Object.freeze({
  backend: oneOf(BACKEND_KINDS),
  cliPath: nonEmpty,
  cwd: argvValue,
  model: argvValue,
  fallbackModel: argvValue,
  agent: argvValue,
  resume: argvValue,
  permissionMode: oneOf(PERMISSION_MODES),
  effort: oneOf(EFFORTS),
  permissionPrompts: oneOf(["host", "none"]),
  canUseToolScope: oneOf(["every-call", "asked-calls"]),
  maxTurns: positiveInt,
  allowedTools: argvStrings,
  disallowedTools: argvStrings,
  timeoutMs: durationNoLimit,
  controlTimeoutMs: durationNoLimit,
  exitTimeoutMs: durationNoLimit,
  callbackTimeoutMs: durationNoLimit,
  closeGraceMs: durationFinite,
  maxBufferSize: (v) => Number.isSafeInteger(v) && (v as number) >= 1024,
  signal: (v) => v instanceof AbortSignal,
  transport: (v) =>
    typeof v === "object" &&
    v !== null &&
    ["connect", "write", "readMessages", "endInput", "close", "isReady"].every(
      (k) => typeof (v as Record<string, unknown>)[k] === "function",
    ),
  stderr: isFunction,
  canUseTool: isFunction,
  onElicitation: isFunction,
  onUserDialog: isFunction,
  planModeInstructions: isString,
  title: isString,
  inheritEnv: isBoolean,
  debug: isBoolean,
  allowDangerouslySkipPermissions: isBoolean,
  includePartialMessages: isBoolean,
  includeHookEvents: isBoolean,
  forwardSubagentText: isBoolean,
  continueConversation: isBoolean,
  forkSession: isBoolean,
  persistSession: isBoolean,
  strictMcpConfig: isBoolean,
  verbatimPrompts: isBoolean,
});

/**
 * True when `options` is a plain object whose every option is one of {@link PLAIN_OPTION_CHECKS}
 * and passes it, and the cross-field rules find nothing: then it is valid, without the schema.
 * False means "not sure" (the schema decides).
 */
export function plainOptionsValid(options: unknown): boolean {
  if (typeof options !== "object" || options === null || Array.isArray(options)) return false;
  const prototype = Object.getPrototypeOf(options);
  if (prototype !== Object.prototype && prototype !== null) return false;
  const record = options as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(PLAIN_OPTION_CHECKS, key)) return false;
    const value = record[key];
    if (value !== undefined && !PLAIN_OPTION_CHECKS[key]!(value)) return false;
  }
  return crossFieldIssues(record).length === 0;
}

/** An issue of a rule that relates two options, as the schema reports it. */
export type CrossFieldIssue = { code: "custom"; path: string[]; message: string };

/**
 * The rules that relate two options. Runs even when other fields failed (zod's `when`), so `v`
 * may be any object: read defensively.
 */
export function crossFieldIssues(v: Record<string, unknown>): CrossFieldIssue[] {
  const issues: CrossFieldIssue[] = [];
  const high = typeof v.highWaterMark === "number" ? v.highWaterMark : 16 * 1024 * 1024;
  if (typeof v.lowWaterMark === "number" && v.lowWaterMark >= high) {
    issues.push({
      code: "custom",
      path: ["lowWaterMark"],
      message: `must be below highWaterMark (${high} bytes)`,
    });
  }
  issues.push(...sessionIdIssues(v));
  if (v.permissionMode === "bypassPermissions" && v.allowDangerouslySkipPermissions !== true) {
    issues.push({
      code: "custom",
      path: ["permissionMode"],
      message:
        "'bypassPermissions' runs every tool without asking; set allowDangerouslySkipPermissions: true " +
        "to confirm you want that (only do so in a sandbox without internet access)",
    });
  }
  return issues;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The syntax of the ids each backend resumes by, as each CLI documents them: Claude Code session
 * and message ids and Codex thread ids are UUIDs (`codex exec resume` also takes a thread name,
 * which this SDK does not pass); a Cursor chat id is a token of letters, digits, `.`, `_`, `:`
 * and `-`; an ACP session id is opaque, so only what could not be one (control characters) is
 * refused. Every backend also refuses a leading `-` (see `NOT_A_FLAG`).
 */
const SESSION_ID_SYNTAX: Readonly<Record<string, { pattern: RegExp; what: string }>> = {
  claude: {
    pattern: UUID,
    what: "a Claude Code session id: a UUID such as 8755d035-1a79-4e28-8225-2d0348cf8fea",
  },
  codex: { pattern: UUID, what: "a Codex thread id: a UUID such as 01a2006c-d3d2-7562-819c-e668dc7cb903" },
  cursor: {
    pattern: /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/,
    what: "a Cursor chat id (letters, digits, '.', '_', ':' and '-')",
  },
  acp: {
    pattern: /^[^\p{Cc}-]\P{Cc}*$/u,
    what: "an ACP session id (no control characters)",
  },
};

/** `resume` (and Claude's message ids) against the syntax of the backend that receives them. */
function sessionIdIssues(v: Record<string, unknown>): CrossFieldIssue[] {
  const backend = v.backend === undefined ? "claude" : v.backend;
  const syntax =
    typeof backend === "string" && Object.hasOwn(SESSION_ID_SYNTAX, backend)
      ? SESSION_ID_SYNTAX[backend]
      : undefined;
  if (syntax === undefined) return [];
  const keys: [string, string][] = [["resume", syntax.what]];
  if (backend === "claude") {
    keys.push(
      ["resumeSessionAt", "a message's uuid (a UUID)"],
      ["resumeDropsTurn", "a prompt's uuid (a UUID)"],
    );
  }
  return keys.flatMap(([key, what]) => {
    const value = v[key];
    if (typeof value !== "string" || syntax.pattern.test(value)) return [];
    return [{ code: "custom" as const, path: [key], message: `must be ${what}` }];
  });
}

/** Options whose values follow a schema the CLI owns: loose, walked by `unknownNestedFields`. */
export const CLI_OWNED_OPTIONS = [
  "mcpServers",
  "agents",
  "sandbox",
  "hooks",
  "plugins",
  "systemPrompt",
  "thinking",
  "toolConfig",
  "settings",
  "managedSettings",
] as const;
