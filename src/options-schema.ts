/**
 * Runtime validation of `AgentOptions`. TypeScript catches most mistakes at compile time, but
 * options often come from JavaScript, JSON files or spread objects, where a misspelt key would
 * otherwise be ignored silently and a bad number would only fail deep inside the CLI.
 *
 * Written with `zod/mini`, zod's tree-shakable API: the build bundles only the parts used here
 * (~50 KB, ~5 ms to load) where the full `zod` package costs ~45 ms of start-up on every first
 * query. English messages come from zod's own locale, passed per parse so a locale the
 * application configured for its own zod schemas is left alone.
 */

import * as z from "zod/mini";
import type { $ZodIssue, $ZodRawIssue } from "zod/v4/core";
import english from "zod/v4/locales/en.js";
import { InvalidOptionsError } from "./errors.js";

const fn = (what: string) =>
  // biome-ignore lint/complexity/noBannedTypes: any callable is acceptable here; the exact signature is a compile-time concern.
  z.custom<Function>((v) => typeof v === "function", { error: `${what} must be a function` });

/** A whole number; `message` explains a fractional one (a non-number gets zod's "expected number"). */
const wholeNumber = (message: string) =>
  z.int({ error: (issue: $ZodRawIssue) => (typeof issue.input === "number" ? message : undefined) });

const nonEmpty = () => z.string().check(z.minLength(1));
const stringMap = z.record(z.string(), z.string());
const positiveInt = wholeNumber("must be a whole number").check(z.positive("must be greater than 0"));
const positiveNumber = z.number().check(z.positive("must be greater than 0"));
const port = z.int().check(z.minimum(1), z.maximum(65535));

/**
 * The longest delay a Node.js timer takes: 2^31−1 ms (about 24.8 days). A longer one is not an
 * error in Node, it fires after 1 ms, so every duration option is checked against it.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A duration in milliseconds: greater than 0 and at most {@link MAX_TIMER_MS}; with
 * `infinity: "no limit"`, `Infinity` too, meaning "never time out".
 */
const durationMs = (infinity: "no limit" | "rejected") =>
  z
    .custom<number>((v) => typeof v === "number" && !Number.isNaN(v), {
      error: "expected a number of milliseconds",
    })
    .check(
      z.superRefine((value, ctx) => {
        const message = durationProblem(value, infinity, "ms", MAX_TIMER_MS);
        if (message) ctx.addIssue({ code: "custom", message, input: value });
      }),
    );

/** Why `value` is not an acceptable duration, or `undefined` when it is. */
function durationProblem(
  value: number,
  infinity: "no limit" | "rejected",
  unit: string,
  max: number,
): string | undefined {
  if (value <= 0) return "must be greater than 0";
  if (value === Number.POSITIVE_INFINITY) {
    return infinity === "no limit" ? undefined : "must be finite (Infinity would let close() wait forever)";
  }
  if (value > max) {
    const instead = infinity === "no limit" ? "; use Infinity for no limit" : "";
    return `must be at most ${max} ${unit} (the longest delay a Node.js timer supports)${instead}`;
  }
  return undefined;
}

/**
 * The problem with a duration option outside the options object (e.g. `SubprocessTransport`'s),
 * as `"name: problem"`, or `undefined` when `value` is acceptable. Same rules as the schema's.
 */
export function durationIssue(
  name: string,
  value: unknown,
  infinity: "no limit" | "rejected",
): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || Number.isNaN(value)) return `${name}: expected a number of milliseconds`;
  const problem = durationProblem(value, infinity, "ms", MAX_TIMER_MS);
  return problem === undefined ? undefined : `${name}: ${problem}`;
}

/** A hook timeout, in seconds as the CLI takes it (it turns them into a timer of its own). */
const hookTimeoutSeconds = z.number().check(
  z.superRefine((value, ctx) => {
    const message = durationProblem(value, "rejected", "seconds", Math.floor(MAX_TIMER_MS / 1000));
    if (message) ctx.addIssue({ code: "custom", message, input: value });
  }),
);

const mcpStdioSchema = z.strictObject({
  type: z.optional(z.literal("stdio")),
  command: nonEmpty(),
  args: z.optional(z.array(z.string())),
  env: z.optional(stringMap),
});
const mcpSseSchema = z.strictObject({
  type: z.literal("sse"),
  url: nonEmpty(),
  headers: z.optional(stringMap),
});
const mcpHttpSchema = z.strictObject({
  type: z.literal("http"),
  url: nonEmpty(),
  headers: z.optional(stringMap),
});
const mcpSdkSchema = z.strictObject({
  type: z.literal("sdk"),
  name: nonEmpty(),
  // Only the shape matters here: the MCP SDK's McpServer is a class we must not import at runtime.
  instance: z.custom<object>((v) => typeof v === "object" && v !== null, {
    error: "instance must be an McpServer object (see createSdkMcpServer())",
  }),
  createInstance: z.optional(
    z.custom<() => unknown>((v) => typeof v === "function", { error: "createInstance must be a function" }),
  ),
});

/** One MCP server entry. Discriminated on `type` so errors point into the matching variant. */
const mcpServerSchema = z.discriminatedUnion(
  "type",
  [mcpStdioSchema, mcpSseSchema, mcpHttpSchema, mcpSdkSchema],
  { error: "expected an MCP server config with type 'stdio' (or no type), 'sse', 'http' or 'sdk'" },
);

const hookMatcherSchema = z.strictObject({
  matcher: z.optional(z.string()),
  hooks: z.array(fn("each hook")),
  timeout: z.optional(hookTimeoutSeconds),
});

const agentDefinitionSchema = z.strictObject({
  description: z.string(),
  prompt: z.string(),
  tools: z.optional(z.array(z.string())),
  model: z.optional(z.string()),
});

const sandboxSchema = z.strictObject({
  enabled: z.optional(z.boolean()),
  autoAllowBashIfSandboxed: z.optional(z.boolean()),
  excludedCommands: z.optional(z.array(z.string())),
  allowUnsandboxedCommands: z.optional(z.boolean()),
  network: z.optional(
    z.strictObject({
      allowLocalBinding: z.optional(z.boolean()),
      allowUnixSockets: z.optional(z.array(z.string())),
      allowAllUnixSockets: z.optional(z.boolean()),
      httpProxyPort: z.optional(port),
      socksProxyPort: z.optional(port),
    }),
  ),
  ignoreViolations: z.optional(
    z.strictObject({ file: z.optional(z.array(z.string())), network: z.optional(z.array(z.string())) }),
  ),
  enableWeakerNestedSandbox: z.optional(z.boolean()),
});

/** A TOML value (Codex `-c` overrides): no null, no non-finite numbers. */
function isTomlValue(value: unknown): boolean {
  if (typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isTomlValue);
  if (typeof value === "object" && value !== null) return Object.values(value).every(isTomlValue);
  return false;
}

const codexSchema = z.strictObject({
  approvalPolicy: z.optional(z.enum(["untrusted", "on-request", "never"])),
  sandboxMode: z.optional(z.enum(["read-only", "workspace-write", "danger-full-access"])),
  reasoningEffort: z.optional(z.enum(["minimal", "low", "medium", "high", "xhigh"])),
  networkAccess: z.optional(z.boolean()),
  config: z.optional(
    z.record(
      z.string().check(z.regex(/^[^=\s]+$/, "config keys are dotted paths without '=' or whitespace")),
      z.custom((v) => isTomlValue(v), {
        error: "expected a TOML value: string, finite number, boolean, or an array/table of them",
      }),
    ),
  ),
  skipGitRepoCheck: z.optional(z.boolean()),
});

const cursorSchema = z.strictObject({
  forceApprove: z.optional(z.boolean()),
  mode: z.optional(z.enum(["plan", "ask"])),
  trustWorkspace: z.optional(z.boolean()),
  sandbox: z.optional(z.enum(["enabled", "disabled"])),
  apiKey: z.optional(z.string()),
  partialOutput: z.optional(z.boolean()),
});

const transportSchema = z.custom<object>(
  (v) =>
    typeof v === "object" &&
    v !== null &&
    ["connect", "write", "readMessages", "endInput", "close", "isReady"].every(
      (k) => typeof (v as Record<string, unknown>)[k] === "function",
    ),
  { error: "transport must implement connect, write, readMessages, endInput, close and isReady" },
);

/**
 * The zod schema of {@link AgentOptions}. Strict: unknown keys are errors, so a typo such as
 * `maxTurn` fails loudly instead of being ignored. Cross-field rules (bypass permissions) are
 * included. Prefer {@link validateAgentOptions}, which turns failures into `InvalidOptionsError`.
 */
export const agentOptionsSchema = z
  .strictObject({
    backend: z.optional(z.enum(["claude", "codex", "cursor"])),
    codex: z.optional(codexSchema),
    cursor: z.optional(cursorSchema),

    cliPath: z.optional(nonEmpty()),
    autoInstallCli: z.optional(
      z.union([
        z.boolean(),
        z.strictObject({ version: z.optional(nonEmpty()), cacheDir: z.optional(nonEmpty()) }),
      ]),
    ),
    onCliInstallProgress: z.optional(fn("onCliInstallProgress")),
    cwd: z.optional(nonEmpty()),
    env: z.optional(z.record(z.string(), z.optional(z.string()))),
    user: z.optional(z.union([nonEmpty(), z.int().check(z.nonnegative())])),
    extraArgs: z.optional(
      z.record(
        z
          .string()
          .check(z.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "flag names are written without leading dashes")),
        z.nullable(z.string()),
      ),
    ),
    signal: z.optional(z.instanceof(AbortSignal, { error: "signal must be an AbortSignal" })),
    stderr: z.optional(fn("stderr")),
    maxBufferSize: z.optional(
      wholeNumber("must be a whole number of bytes").check(z.minimum(1024, "must be at least 1024 bytes")),
    ),
    controlTimeoutMs: z.optional(durationMs("no limit")),
    closeGraceMs: z.optional(durationMs("rejected")),
    exitTimeoutMs: z.optional(durationMs("no limit")),
    callbackTimeoutMs: z.optional(durationMs("no limit")),
    inheritEnv: z.optional(z.boolean()),
    transport: z.optional(transportSchema),

    model: z.optional(nonEmpty()),
    fallbackModel: z.optional(nonEmpty()),
    maxTurns: z.optional(positiveInt),
    maxBudgetUsd: z.optional(positiveNumber),
    effort: z.optional(z.enum(["low", "medium", "high", "xhigh", "max"])),
    thinking: z.optional(
      z.discriminatedUnion(
        "type",
        [
          z.strictObject({ type: z.literal("adaptive") }),
          z.strictObject({ type: z.literal("enabled"), budgetTokens: positiveInt }),
          z.strictObject({ type: z.literal("disabled") }),
        ],
        { error: "expected { type: 'adaptive' | 'enabled' | 'disabled' }" },
      ),
    ),
    maxThinkingTokens: z.optional(
      wholeNumber("must be a whole number").check(z.nonnegative("must be 0 or more")),
    ),
    betas: z.optional(z.array(nonEmpty())),

    tools: z.optional(
      z.union(
        [
          z.array(z.string()),
          z.strictObject({ type: z.literal("preset"), preset: z.literal("claude_code") }),
        ],
        { error: "expected a list of tool names or { type: 'preset', preset: 'claude_code' }" },
      ),
    ),
    allowedTools: z.optional(z.array(z.string())),
    disallowedTools: z.optional(z.array(z.string())),
    permissionMode: z.optional(
      z.enum(["default", "acceptEdits", "bypassPermissions", "plan", "dontAsk", "auto"]),
    ),
    allowDangerouslySkipPermissions: z.optional(z.boolean()),
    permissionPromptToolName: z.optional(nonEmpty()),
    canUseTool: z.optional(fn("canUseTool")),

    mcpServers: z.optional(
      z.union([nonEmpty(), z.record(nonEmpty(), mcpServerSchema)], {
        error: "expected a path to an MCP config file or an object of MCP servers by name",
      }),
    ),
    plugins: z.optional(z.array(z.strictObject({ type: z.literal("local"), path: nonEmpty() }))),
    addDirs: z.optional(z.array(nonEmpty())),
    agents: z.optional(z.record(nonEmpty(), agentDefinitionSchema)),

    continueConversation: z.optional(z.boolean()),
    resume: z.optional(nonEmpty()),
    resumeSessionAt: z.optional(nonEmpty()),
    forkSession: z.optional(z.boolean()),
    settingSources: z.optional(z.array(z.enum(["user", "project", "local"]))),
    settings: z.optional(
      z.union([nonEmpty(), z.record(z.string(), z.unknown())], {
        error: "expected a settings JSON string, a settings object, or a path to a settings file",
      }),
    ),
    sandbox: z.optional(sandboxSchema),
    enableFileCheckpointing: z.optional(z.boolean()),

    systemPrompt: z.optional(
      z.union(
        [
          z.string(),
          z.strictObject({
            type: z.literal("preset"),
            preset: z.literal("claude_code"),
            append: z.optional(z.string()),
          }),
        ],
        { error: "expected a string or { type: 'preset', preset: 'claude_code', append?: string }" },
      ),
    ),
    hooks: z.optional(z.record(z.string(), z.array(hookMatcherSchema))),
    includePartialMessages: z.optional(z.boolean()),
    outputFormat: z.optional(
      z.strictObject({ type: z.literal("json_schema"), schema: z.record(z.string(), z.unknown()) }),
    ),
  })
  .check(
    z.superRefine(
      (value, ctx) => {
        // Runs even when other fields failed (`when` below), so `value` may be any object: read defensively.
        const v = value as Record<string, unknown>;
        if (v.permissionMode === "bypassPermissions" && v.allowDangerouslySkipPermissions !== true) {
          ctx.addIssue({
            code: "custom",
            path: ["permissionMode"],
            message:
              "'bypassPermissions' runs every tool without asking; set allowDangerouslySkipPermissions: true " +
              "to confirm you want that (only do so in a sandbox without internet access)",
          });
        }
      },
      { when: (payload) => typeof payload.value === "object" && payload.value !== null },
    ),
  );

/** zod's English messages, used for every parse here (see the module comment). */
const localeError = english().localeError;

/**
 * Validates options against {@link agentOptionsSchema} and returns every problem as a
 * `path: message` string (empty when the options are valid). Never throws.
 */
export function agentOptionsIssues(options: unknown): string[] {
  if (options === undefined) return [];
  const result = agentOptionsSchema.safeParse(options, { error: localeError });
  if (result.success) return [];
  const known = Object.keys(agentOptionsSchema.shape);
  return result.error.issues.flatMap((issue) => formatIssue(issue, [], known));
}

/**
 * Throws `InvalidOptionsError` listing ALL problems with `options` (not just the first).
 * Unknown keys are reported as `unknown option 'xyz'`, with a suggestion when one is close.
 */
export function validateAgentOptions(options: unknown): void {
  const issues = agentOptionsIssues(options);
  if (issues.length > 0) throw new InvalidOptionsError(issues);
}

type Issue = $ZodIssue;

function formatIssue(issue: Issue, base: PropertyKey[], topLevelKeys: string[]): string[] {
  const path = [...base, ...issue.path];
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => {
      const hint = path.length === 0 ? closest(key, topLevelKeys) : undefined;
      return `${formatPath([...path, key])}: unknown option '${key}'${hint ? ` (did you mean '${hint}'?)` : ""}`;
    });
  }
  if (issue.code === "invalid_union") {
    // A union fails in every branch; report the branch the value was evidently meant for, i.e. the
    // one whose failures are deeper than "wrong kind of value". Without one, the union's own message.
    const plausible = issue.errors.filter(
      (branch) =>
        branch.length > 0 &&
        !branch.some((i) => i.path.length === 0 && (i.code === "invalid_type" || i.code === "invalid_value")),
    );
    const best = plausible.sort((a, b) => a.length - b.length)[0];
    if (best) return best.flatMap((i) => formatIssue(i, path, topLevelKeys));
  }
  if (issue.code === "invalid_key") {
    // The record-key issue's own message is generic; the nested issues say what is wrong with the key.
    return [`${formatPath(path)}: ${issue.issues.map((i) => i.message).join("; ")}`];
  }
  return [`${formatPath(path)}: ${issue.message}`];
}

function formatPath(path: PropertyKey[]): string {
  if (path.length === 0) return "(options)";
  return path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join("");
}

/** The known key nearest to `key` by edit distance, if it is close enough to be a typo. */
function closest(key: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const d = editDistance(key.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(key.length / 4)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur.push(Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}
