/**
 * Runtime validation of `AgentOptions`. TypeScript catches most mistakes at compile time, but
 * options often come from JavaScript, JSON files or spread objects, where a misspelt key would
 * otherwise be ignored silently and a bad number would only fail deep inside the CLI.
 */
import { z } from "zod";
import { InvalidOptionsError } from "./errors.js";

const fn = (what: string) =>
  // biome-ignore lint/complexity/noBannedTypes: any callable is acceptable here; the exact signature is a compile-time concern.
  z.custom<Function>((v) => typeof v === "function", { message: `${what} must be a function` });

const stringMap = z.record(z.string(), z.string());
const positiveInt = z.number().int("must be a whole number").positive("must be greater than 0");
const positiveNumber = z.number().positive("must be greater than 0");

const mcpStdioSchema = z.strictObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: stringMap.optional(),
});
const mcpSseSchema = z.strictObject({
  type: z.literal("sse"),
  url: z.string().min(1),
  headers: stringMap.optional(),
});
const mcpHttpSchema = z.strictObject({
  type: z.literal("http"),
  url: z.string().min(1),
  headers: stringMap.optional(),
});
const mcpSdkSchema = z.strictObject({
  type: z.literal("sdk"),
  name: z.string().min(1),
  // Only the shape matters here: the MCP SDK's McpServer is a class we must not import at runtime.
  instance: z.custom<object>((v) => typeof v === "object" && v !== null, {
    message: "instance must be an McpServer object (see createSdkMcpServer())",
  }),
  createInstance: z
    .custom<() => unknown>((v) => typeof v === "function", { message: "createInstance must be a function" })
    .optional(),
});

/** One MCP server entry. Discriminated on `type` so errors point into the matching variant. */
const mcpServerSchema = z.discriminatedUnion(
  "type",
  [mcpStdioSchema, mcpSseSchema, mcpHttpSchema, mcpSdkSchema],
  { error: "expected an MCP server config with type 'stdio' (or no type), 'sse', 'http' or 'sdk'" },
);

const hookMatcherSchema = z.strictObject({
  matcher: z.string().optional(),
  hooks: z.array(fn("each hook")),
  timeout: positiveNumber.optional(),
});

const agentDefinitionSchema = z.strictObject({
  description: z.string(),
  prompt: z.string(),
  tools: z.array(z.string()).optional(),
  model: z.string().optional(),
});

const sandboxSchema = z.strictObject({
  enabled: z.boolean().optional(),
  autoAllowBashIfSandboxed: z.boolean().optional(),
  excludedCommands: z.array(z.string()).optional(),
  allowUnsandboxedCommands: z.boolean().optional(),
  network: z
    .strictObject({
      allowLocalBinding: z.boolean().optional(),
      allowUnixSockets: z.array(z.string()).optional(),
      allowAllUnixSockets: z.boolean().optional(),
      httpProxyPort: z.number().int().min(1).max(65535).optional(),
      socksProxyPort: z.number().int().min(1).max(65535).optional(),
    })
    .optional(),
  ignoreViolations: z
    .strictObject({ file: z.array(z.string()).optional(), network: z.array(z.string()).optional() })
    .optional(),
  enableWeakerNestedSandbox: z.boolean().optional(),
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
  approvalPolicy: z.enum(["untrusted", "on-request", "never"]).optional(),
  sandboxMode: z.enum(["read-only", "workspace-write", "danger-full-access"]).optional(),
  reasoningEffort: z.enum(["minimal", "low", "medium", "high", "xhigh"]).optional(),
  networkAccess: z.boolean().optional(),
  config: z
    .record(
      z.string().regex(/^[^=\s]+$/, "config keys are dotted paths without '=' or whitespace"),
      z.custom((v) => isTomlValue(v), {
        message: "expected a TOML value: string, finite number, boolean, or an array/table of them",
      }),
    )
    .optional(),
  skipGitRepoCheck: z.boolean().optional(),
});

const cursorSchema = z.strictObject({
  forceApprove: z.boolean().optional(),
  mode: z.enum(["plan", "ask"]).optional(),
  trustWorkspace: z.boolean().optional(),
  sandbox: z.enum(["enabled", "disabled"]).optional(),
  apiKey: z.string().optional(),
  partialOutput: z.boolean().optional(),
});

const transportSchema = z.custom<object>(
  (v) =>
    typeof v === "object" &&
    v !== null &&
    ["connect", "write", "readMessages", "endInput", "close", "isReady"].every(
      (k) => typeof (v as Record<string, unknown>)[k] === "function",
    ),
  { message: "transport must implement connect, write, readMessages, endInput, close and isReady" },
);

/**
 * The zod schema of {@link AgentOptions}. Strict: unknown keys are errors, so a typo such as
 * `maxTurn` fails loudly instead of being ignored. Cross-field rules (bypass permissions) are
 * included. Prefer {@link validateAgentOptions}, which turns failures into `InvalidOptionsError`.
 */
export const agentOptionsSchema = z
  .strictObject({
    backend: z.enum(["claude", "codex", "cursor"]).optional(),
    codex: codexSchema.optional(),
    cursor: cursorSchema.optional(),

    cliPath: z.string().min(1).optional(),
    autoInstallCli: z
      .union([
        z.boolean(),
        z.strictObject({ version: z.string().min(1).optional(), cacheDir: z.string().min(1).optional() }),
      ])
      .optional(),
    onCliInstallProgress: fn("onCliInstallProgress").optional(),
    cwd: z.string().min(1).optional(),
    env: z.record(z.string(), z.string().optional()).optional(),
    user: z.union([z.string().min(1), z.number().int().nonnegative()]).optional(),
    extraArgs: z
      .record(
        z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "flag names are written without leading dashes"),
        z.string().nullable(),
      )
      .optional(),
    signal: z.instanceof(AbortSignal, { message: "signal must be an AbortSignal" }).optional(),
    stderr: fn("stderr").optional(),
    maxBufferSize: z
      .number()
      .int("must be a whole number of bytes")
      .min(1024, "must be at least 1024 bytes")
      .optional(),
    controlTimeoutMs: positiveNumber.optional(),
    closeGraceMs: positiveNumber.optional(),
    exitTimeoutMs: positiveNumber.optional(),
    callbackTimeoutMs: positiveNumber.optional(),
    inheritEnv: z.boolean().optional(),
    transport: transportSchema.optional(),

    model: z.string().min(1).optional(),
    fallbackModel: z.string().min(1).optional(),
    maxTurns: positiveInt.optional(),
    maxBudgetUsd: positiveNumber.optional(),
    effort: z.enum(["low", "medium", "high", "xhigh", "max"]).optional(),
    thinking: z
      .discriminatedUnion(
        "type",
        [
          z.strictObject({ type: z.literal("adaptive") }),
          z.strictObject({ type: z.literal("enabled"), budgetTokens: positiveInt }),
          z.strictObject({ type: z.literal("disabled") }),
        ],
        { error: "expected { type: 'adaptive' | 'enabled' | 'disabled' }" },
      )
      .optional(),
    maxThinkingTokens: z.number().int("must be a whole number").nonnegative("must be 0 or more").optional(),
    betas: z.array(z.string().min(1)).optional(),

    tools: z
      .union(
        [
          z.array(z.string()),
          z.strictObject({ type: z.literal("preset"), preset: z.literal("claude_code") }),
        ],
        {
          error: "expected a list of tool names or { type: 'preset', preset: 'claude_code' }",
        },
      )
      .optional(),
    allowedTools: z.array(z.string()).optional(),
    disallowedTools: z.array(z.string()).optional(),
    permissionMode: z
      .enum(["default", "acceptEdits", "bypassPermissions", "plan", "dontAsk", "auto"])
      .optional(),
    allowDangerouslySkipPermissions: z.boolean().optional(),
    permissionPromptToolName: z.string().min(1).optional(),
    canUseTool: fn("canUseTool").optional(),

    mcpServers: z
      .union([z.string().min(1), z.record(z.string().min(1), mcpServerSchema)], {
        error: "expected a path to an MCP config file or an object of MCP servers by name",
      })
      .optional(),
    plugins: z.array(z.strictObject({ type: z.literal("local"), path: z.string().min(1) })).optional(),
    addDirs: z.array(z.string().min(1)).optional(),
    agents: z.record(z.string().min(1), agentDefinitionSchema).optional(),

    continueConversation: z.boolean().optional(),
    resume: z.string().min(1).optional(),
    resumeSessionAt: z.string().min(1).optional(),
    forkSession: z.boolean().optional(),
    settingSources: z.array(z.enum(["user", "project", "local"])).optional(),
    settings: z
      .union([z.string().min(1), z.record(z.string(), z.unknown())], {
        error: "expected a settings JSON string, a settings object, or a path to a settings file",
      })
      .optional(),
    sandbox: sandboxSchema.optional(),
    enableFileCheckpointing: z.boolean().optional(),

    systemPrompt: z
      .union(
        [
          z.string(),
          z.strictObject({
            type: z.literal("preset"),
            preset: z.literal("claude_code"),
            append: z.string().optional(),
          }),
        ],
        { error: "expected a string or { type: 'preset', preset: 'claude_code', append?: string }" },
      )
      .optional(),
    hooks: z.record(z.string(), z.array(hookMatcherSchema)).optional(),
    includePartialMessages: z.boolean().optional(),
    outputFormat: z
      .strictObject({ type: z.literal("json_schema"), schema: z.record(z.string(), z.unknown()) })
      .optional(),
  })
  .superRefine(
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
  );

/**
 * Validates options against {@link agentOptionsSchema} and returns every problem as a
 * `path: message` string (empty when the options are valid). Never throws.
 */
export function agentOptionsIssues(options: unknown): string[] {
  if (options === undefined) return [];
  const result = agentOptionsSchema.safeParse(options);
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

type Issue = z.core.$ZodIssue;

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
