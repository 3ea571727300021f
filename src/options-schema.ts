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
import type { SessionStore } from "./backends/claude/sessions/store-types.js";
import { claudeSettingsSchema } from "./backends/claude/settings.generated.js";
import { InvalidOptionsError } from "./errors.js";
import { ACP_AGENT_PRESETS } from "./options/acp-presets.js";
import { CLI_OWNED_OPTIONS, crossFieldIssues, EFFORTS, PERMISSION_MODES } from "./options/plain.js";
import { registerOptionSchema } from "./options/schema-slot.js";
import { NO_NUL, NOT_A_FLAG } from "./process/argv.js";
import { durationProblem, MAX_TIMER_MS } from "./signals/duration.js";

/** A value built on first use, then reused: schemas cost nothing until an option needs them. */
function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= build();
    return value;
  };
}

const fn = (what: string) =>
  // biome-ignore lint/complexity/noBannedTypes: any callable is acceptable here; the exact signature is a compile-time concern.
  z.custom<Function>((v) => typeof v === "function", { error: `${what} must be a function` });

/** A whole number; `message` explains a fractional one (a non-number gets zod's "expected number"). */
const wholeNumber = (message: string) =>
  z.int({ error: (issue: $ZodRawIssue) => (typeof issue.input === "number" ? message : undefined) });

const nonEmpty = () => z.string().check(z.minLength(1));

/** A string a command line or an environment can carry: no NUL byte. */
const cString = () => z.string().check(z.refine((v: string) => !v.includes("\0"), NO_NUL));
/** A string that may become an argument of its own: never one starting with `-`, no NUL byte. */
const argvString = () => cString().check(z.refine((v: string) => !v.startsWith("-"), NOT_A_FLAG));
/** A non-empty {@link argvString}. */
const argvValue = () => argvString().check(z.minLength(1));
const stringMap = lazy(() => z.record(z.string(), z.string()));
const positiveInt = lazy(() =>
  wholeNumber("must be a whole number").check(z.positive("must be greater than 0")),
);
const positiveNumber = lazy(() => z.number().check(z.positive("must be greater than 0")));

/** A memory bound in bytes: whole, and at least one pipe chunk (smaller would pause on every read). */
const bufferBytes = lazy(() =>
  wholeNumber("must be a whole number of bytes").check(
    z.minimum(65536, "must be at least 65536 bytes (64 KiB)"),
  ),
);
const port = lazy(() => z.int().check(z.minimum(1), z.maximum(65535)));

export { durationIssue, MAX_TIMER_MS } from "./signals/duration.js";

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

/** A hook timeout, in seconds as the CLI takes it (it turns them into a timer of its own). */
const hookTimeoutSeconds = lazy(() =>
  z.number().check(
    z.superRefine((value, ctx) => {
      const message = durationProblem(value, "rejected", "seconds", Math.floor(MAX_TIMER_MS / 1000));
      if (message) ctx.addIssue({ code: "custom", message, input: value });
    }),
  ),
);

/*
 * Nested objects whose schema belongs to the Claude Code CLI (MCP server configs, subagents,
 * sandbox settings, hook matchers, plugins, system prompt forms, thinking) are *loose*: every field
 * this SDK knows is typed and checked, and a field it does not know is passed to the CLI unchanged,
 * reported once per process by {@link warnUnknownNestedFields} — a newer CLI may accept it, and a
 * strict check here would refuse configuration the CLI runs.
 */

const mcpToolPolicy = lazy(() =>
  z.looseObject({
    name: nonEmpty(),
    permission_policy: z.optional(z.enum(["always_allow", "always_ask", "always_deny"])),
    org_max_permission: z.optional(z.enum(["allow", "ask", "blocked"])),
  }),
);
const mcpCommon = lazy(() => ({
  timeout: z.optional(positiveNumber()),
  alwaysLoad: z.optional(z.boolean()),
}));
const mcpStdioShape = lazy(() => ({
  type: z.optional(z.literal("stdio")),
  command: nonEmpty(),
  args: z.optional(z.array(z.string())),
  env: z.optional(stringMap()),
  ...mcpCommon(),
}));
const mcpRemoteShape = lazy(() => ({
  url: nonEmpty(),
  headers: z.optional(stringMap()),
  tools: z.optional(z.array(mcpToolPolicy())),
  ...mcpCommon(),
}));
const mcpSseShape = lazy(() => ({ type: z.literal("sse"), ...mcpRemoteShape() }));
const mcpHttpShape = lazy(() => ({ type: z.literal("http"), ...mcpRemoteShape() }));
const mcpSdkShape = lazy(() => ({
  type: z.literal("sdk"),
  name: nonEmpty(),
  // Only the shape matters here: the MCP SDK's McpServer is a class we must not import at runtime.
  instance: z.custom<object>((v) => typeof v === "object" && v !== null, {
    error: "instance must be an McpServer object (see createSdkMcpServer())",
  }),
  createInstance: z.optional(
    z.custom<() => unknown>((v) => typeof v === "function", { error: "createInstance must be a function" }),
  ),
  timeout: z.optional(positiveNumber()),
  tools: z.optional(z.array(mcpToolPolicy())),
}));

/** One MCP server entry. Discriminated on `type` so errors point into the matching variant. */
const mcpServerSchema = lazy(() =>
  z.discriminatedUnion(
    "type",
    [
      z.looseObject(mcpStdioShape()),
      z.looseObject(mcpSseShape()),
      z.looseObject(mcpHttpShape()),
      z.looseObject(mcpSdkShape()),
    ],
    { error: "expected an MCP server config with type 'stdio' (or no type), 'sse', 'http' or 'sdk'" },
  ),
);

const hookMatcherShape = lazy(() => ({
  matcher: z.optional(z.string()),
  hooks: z.array(fn("each hook")),
  timeout: z.optional(hookTimeoutSeconds()),
  onFailure: z.optional(z.enum(["continue", "block"])),
}));

const agentDefinitionShape = lazy(() => ({
  description: z.string(),
  prompt: z.string(),
  tools: z.optional(z.array(z.string())),
  disallowedTools: z.optional(z.array(z.string())),
  model: z.optional(z.string()),
  mcpServers: z.optional(z.array(z.union([nonEmpty(), z.record(z.string(), z.unknown())]))),
  criticalSystemReminder_EXPERIMENTAL: z.optional(z.string()),
  skills: z.optional(z.array(z.string())),
  initialPrompt: z.optional(z.string()),
  maxTurns: z.optional(positiveInt()),
  autoCompactWindow: z.optional(positiveInt()),
  background: z.optional(z.boolean()),
  omitClaudeMd: z.optional(z.boolean()),
  memory: z.optional(z.enum(["user", "project", "local"])),
  effort: z.optional(z.union([z.enum(EFFORTS), z.number()])),
  permissionMode: z.optional(z.enum(PERMISSION_MODES)),
  observer: z.optional(z.string()),
  observerMessage: z.optional(z.string()),
}));

const strings = lazy(() => z.array(z.string()));
const sandboxNetworkShape = lazy(() => ({
  allowedDomains: z.optional(strings()),
  deniedDomains: z.optional(strings()),
  strictAllowlist: z.optional(z.boolean()),
  allowManagedDomainsOnly: z.optional(z.boolean()),
  allowUnixSockets: z.optional(strings()),
  allowAllUnixSockets: z.optional(z.boolean()),
  allowLocalBinding: z.optional(z.boolean()),
  allowMachLookup: z.optional(strings()),
  httpProxyPort: z.optional(port()),
  socksProxyPort: z.optional(port()),
  tlsTerminate: z.optional(
    z.looseObject({ caCertPath: z.optional(z.string()), caKeyPath: z.optional(z.string()) }),
  ),
}));
const sandboxFilesystemShape = lazy(() => ({
  allowWrite: z.optional(strings()),
  denyWrite: z.optional(strings()),
  denyRead: z.optional(strings()),
  allowRead: z.optional(strings()),
  allowManagedReadPathsOnly: z.optional(z.boolean()),
  disabled: z.optional(z.boolean()),
}));
const credentialRule = lazy(() => ({
  mode: z.enum(["deny", "mask"]),
  extract: z.optional(z.string()),
  onExtractNoMatch: z.optional(z.enum(["deny", "error", "warn"])),
  decode: z.optional(z.literal("jwt")),
  maskClaims: z.optional(strings()),
  injectHosts: z.optional(strings()),
}));
const passthrough = lazy(() => z.enum(["deny", "passthrough"]));
const sandboxCredentialsShape = lazy(() => ({
  files: z.optional(
    z.array(
      z.looseObject({ path: z.string(), maskDuplicates: z.optional(z.boolean()), ...credentialRule() }),
    ),
  ),
  envVars: z.optional(z.array(z.looseObject({ name: z.string(), ...credentialRule() }))),
  allowPlaintextInject: z.optional(z.boolean()),
  awsPairs: z.optional(
    z.array(
      z.looseObject({
        accessKeyIdVar: z.string(),
        secretAccessKeyVar: z.string(),
        sessionTokenVar: z.optional(z.string()),
      }),
    ),
  ),
  sigv4: z.optional(
    z.looseObject({
      streaming: z.optional(passthrough()),
      presigned: z.optional(passthrough()),
      sigv4a: z.optional(passthrough()),
    }),
  ),
}));
const sandboxShape = lazy(() => ({
  enabled: z.optional(z.boolean()),
  failIfUnavailable: z.optional(z.boolean()),
  autoAllowBashIfSandboxed: z.optional(z.boolean()),
  allowUnsandboxedCommands: z.optional(z.boolean()),
  network: z.optional(z.looseObject(sandboxNetworkShape())),
  filesystem: z.optional(z.looseObject(sandboxFilesystemShape())),
  credentials: z.optional(z.looseObject(sandboxCredentialsShape())),
  ignoreViolations: z.optional(z.record(z.string(), strings())),
  enableWeakerNestedSandbox: z.optional(z.boolean()),
  allowNestedUserNamespaces: z.optional(z.boolean()),
  enableWeakerNetworkIsolation: z.optional(z.boolean()),
  allowAppleEvents: z.optional(z.boolean()),
  excludedCommands: z.optional(strings()),
  ripgrep: z.optional(z.looseObject({ command: nonEmpty(), args: z.optional(strings()) })),
  bwrapPath: z.optional(z.string()),
  socatPath: z.optional(z.string()),
}));
const sandboxSchema = lazy(() => z.looseObject(sandboxShape()));

const pluginShape = lazy(() => ({
  type: z.literal("local"),
  path: argvValue(),
  skipMcpDiscovery: z.optional(z.boolean()),
}));

const systemPromptCustomShape = lazy(() => ({
  type: z.literal("custom"),
  prompt: z.union([z.string(), strings()]),
  snapshot: z.optional(z.boolean()),
}));
const systemPromptPresetShape = lazy(() => ({
  type: z.literal("preset"),
  preset: z.literal("claude_code"),
  append: z.optional(z.string()),
  excludeDynamicSections: z.optional(z.boolean()),
  snapshot: z.optional(z.boolean()),
}));

const thinkingDisplay = lazy(() => z.optional(z.enum(["summarized", "omitted"])));
const thinkingShapes = lazy(() => ({
  adaptive: { type: z.literal("adaptive"), display: thinkingDisplay() },
  enabled: {
    type: z.literal("enabled"),
    budgetTokens: z.optional(positiveInt()),
    display: thinkingDisplay(),
  },
  disabled: { type: z.literal("disabled") },
}));

const toolConfigShape = lazy(() => ({
  askUserQuestion: z.optional(
    z.looseObject({
      previewFormat: z.optional(z.enum(["markdown", "html"])),
      extendedQuestions: z.optional(z.boolean()),
      optionalDescriptions: z.optional(z.boolean()),
    }),
  ),
}));

/** A TOML value (Codex `-c` overrides): no null, no non-finite numbers. */
function isTomlValue(value: unknown): boolean {
  if (typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isTomlValue);
  if (typeof value === "object" && value !== null) return Object.values(value).every(isTomlValue);
  return false;
}

const codexSchema = lazy(() =>
  z.strictObject({
    approvalPolicy: z.optional(z.enum(["untrusted", "on-request", "never"])),
    sandboxMode: z.optional(z.enum(["read-only", "workspace-write", "danger-full-access"])),
    reasoningEffort: z.optional(z.enum(["minimal", "low", "medium", "high", "xhigh"])),
    networkAccess: z.optional(z.boolean()),
    config: z.optional(
      z.record(
        z
          .string()
          .check(
            z.regex(
              /^[^=\s-][^=\s]*$/,
              "config keys are dotted paths without '=' or whitespace, not starting with '-'",
            ),
          ),
        z.custom((v) => isTomlValue(v), {
          error: "expected a TOML value: string, finite number, boolean, or an array/table of them",
        }),
      ),
    ),
    skipGitRepoCheck: z.optional(z.boolean()),
  }),
);

const cursorSchema = lazy(() =>
  z.strictObject({
    forceApprove: z.optional(z.boolean()),
    mode: z.optional(z.enum(["plan", "ask"])),
    trustWorkspace: z.optional(z.boolean()),
    sandbox: z.optional(z.enum(["enabled", "disabled"])),
    apiKey: z.optional(z.string()),
    partialOutput: z.optional(z.boolean()),
  }),
);

const acpSchema = lazy(() =>
  z.strictObject({
    agent: z.optional(z.enum(ACP_AGENT_PRESETS)),
    command: z.optional(nonEmpty()),
    args: z.optional(z.array(z.string())),
    clientFs: z.optional(z.boolean()),
    terminal: z.optional(z.boolean()),
    maxTerminals: z.optional(positiveInt()),
    mode: z.optional(nonEmpty()),
    authMethod: z.optional(nonEmpty()),
  }),
);

const transportSchema = lazy(() =>
  z.custom<object>(
    (v) =>
      typeof v === "object" &&
      v !== null &&
      ["connect", "write", "readMessages", "endInput", "close", "isReady"].every(
        (k) => typeof (v as Record<string, unknown>)[k] === "function",
      ),
    { error: "transport must implement connect, write, readMessages, endInput, close and isReady" },
  ),
);

/**
 * The fields of {@link agentOptionsSchema}, each built on first use: validating the options a
 * query passes builds the schemas of those options only (see `passesKeyByKey`).
 */
const FIELDS = {
  backend: () => z.optional(z.enum(["claude", "codex", "cursor", "acp"])),
  codex: () => z.optional(codexSchema()),
  cursor: () => z.optional(cursorSchema()),
  acp: () => z.optional(acpSchema()),

  cliPath: () => z.optional(nonEmpty()),
  autoInstallCli: () =>
    z.optional(
      z.union([
        z.boolean(),
        z.strictObject({ version: z.optional(nonEmpty()), cacheDir: z.optional(nonEmpty()) }),
      ]),
    ),
  onCliInstallProgress: () => z.optional(fn("onCliInstallProgress")),
  cwd: () => z.optional(argvValue()),
  env: () => z.optional(z.record(cString(), z.optional(cString()))),
  user: () =>
    z.optional(
      z.union([
        nonEmpty(),
        z.int().check(z.nonnegative()),
        z.strictObject({ uid: z.int().check(z.nonnegative()), gid: z.int().check(z.nonnegative()) }),
      ]),
    ),
  extraArgs: () =>
    z.optional(
      z.record(
        z
          .string()
          .check(z.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "flag names are written without leading dashes")),
        z.nullable(z.string()),
      ),
    ),
  signal: () => z.optional(z.instanceof(AbortSignal, { error: "signal must be an AbortSignal" })),
  stderr: () => z.optional(fn("stderr")),
  highWaterMark: () => z.optional(bufferBytes()),
  lowWaterMark: () =>
    z.optional(wholeNumber("must be a whole number of bytes").check(z.nonnegative("must be 0 or more"))),
  maxReaderLagBytes: () => z.optional(bufferBytes()),
  maxBufferSize: () =>
    z.optional(
      wholeNumber("must be a whole number of bytes").check(z.minimum(1024, "must be at least 1024 bytes")),
    ),
  controlTimeoutMs: () => z.optional(durationMs("no limit")),
  closeGraceMs: () => z.optional(durationMs("rejected")),
  exitTimeoutMs: () => z.optional(durationMs("no limit")),
  callbackTimeoutMs: () => z.optional(durationMs("no limit")),
  inheritEnv: () => z.optional(z.boolean()),
  // Taken off before a backend validates (see `telemetry/start.ts`); checked here for direct callers.
  telemetry: () =>
    z.optional(
      z.custom<object>((v) => typeof v === "object" && v !== null && !Array.isArray(v), {
        error: "telemetry must be an object (see TelemetryOptions)",
      }),
    ),
  backgroundTaskTimeoutMs: () => z.optional(durationMs("no limit")),
  transport: () => z.optional(transportSchema()),
  spawnClaudeCodeProcess: () => z.optional(fn("spawnClaudeCodeProcess")),
  debug: () => z.optional(z.boolean()),
  debugFile: () => z.optional(argvValue()),
  projectConfigRoot: () => z.optional(argvValue()),
  record: () =>
    z.optional(
      z.union([
        nonEmpty(),
        z.strictObject({
          path: nonEmpty(),
          overwrite: z.optional(z.boolean()),
          redact: z.optional(z.array(z.string())),
          keepEnv: z.optional(z.array(nonEmpty())),
          onError: z.optional(fn("record.onError")),
        }),
      ]),
    ),

  model: () => z.optional(argvValue()),
  fallbackModel: () => z.optional(argvValue()),
  maxTurns: () => z.optional(positiveInt()),
  maxBudgetUsd: () => z.optional(positiveNumber()),
  maxBudgetTokens: () => z.optional(positiveInt()),
  timeoutMs: () => z.optional(durationMs("no limit")),
  taskBudget: () => z.optional(z.strictObject({ total: positiveInt() })),
  effort: () => z.optional(z.enum(EFFORTS)),
  thinking: () =>
    z.optional(
      z.discriminatedUnion(
        "type",
        [
          z.looseObject(thinkingShapes().adaptive),
          z.looseObject(thinkingShapes().enabled),
          z.looseObject(thinkingShapes().disabled),
        ],
        { error: "expected { type: 'adaptive' | 'enabled' | 'disabled' }" },
      ),
    ),
  maxThinkingTokens: () =>
    z.optional(wholeNumber("must be a whole number").check(z.nonnegative("must be 0 or more"))),
  betas: () => z.optional(z.array(argvValue())),

  tools: () =>
    z.optional(
      z.union(
        [
          z.array(argvString()),
          z.strictObject({ type: z.literal("preset"), preset: z.literal("claude_code") }),
        ],
        { error: "expected a list of tool names or { type: 'preset', preset: 'claude_code' }" },
      ),
    ),
  allowedTools: () => z.optional(z.array(argvString())),
  disallowedTools: () => z.optional(z.array(argvString())),
  toolAliases: () => z.optional(z.record(nonEmpty(), nonEmpty())),
  toolConfig: () => z.optional(z.looseObject(toolConfigShape())),
  permissionMode: () => z.optional(z.enum(PERMISSION_MODES)),
  allowDangerouslySkipPermissions: () => z.optional(z.boolean()),
  permissionPromptToolName: () => z.optional(argvValue()),
  permissionPrompts: () => z.optional(z.enum(["host", "none"])),
  planModeInstructions: () => z.optional(z.string()),
  canUseTool: () => z.optional(fn("canUseTool")),
  canUseToolScope: () => z.optional(z.enum(["every-call", "asked-calls"])),
  resumedCostBaseline: () => z.optional(z.boolean()),
  onElicitation: () => z.optional(fn("onElicitation")),
  onUserDialog: () => z.optional(fn("onUserDialog")),
  supportedDialogKinds: () => z.optional(z.array(nonEmpty())),
  perTaskStopAffordance: () => z.optional(z.boolean()),

  mcpServers: () =>
    z.optional(
      z.union([argvValue(), z.record(nonEmpty(), mcpServerSchema())], {
        error: "expected a path to an MCP config file or an object of MCP servers by name",
      }),
    ),
  mcpServersDelivery: () => z.optional(z.enum(["argv", "initialize"])),
  strictMcpConfig: () => z.optional(z.boolean()),
  plugins: () => z.optional(z.array(z.looseObject(pluginShape()))),
  pluginDelivery: () => z.optional(z.enum(["argv", "initialize"])),
  addDirs: () => z.optional(z.array(argvValue())),
  agents: () => z.optional(z.record(nonEmpty(), z.looseObject(agentDefinitionShape()))),
  agent: () => z.optional(argvValue()),
  skills: () =>
    z.optional(
      z.union(
        [
          z.literal("all"),
          z.array(
            z
              .string()
              .check(z.regex(/^\S(.*\S)?$/, "skill names are not empty and not padded with whitespace")),
          ),
        ],
        {
          error: "expected 'all' or a list of skill names",
        },
      ),
    ),

  continueConversation: () => z.optional(z.boolean()),
  // Each backend's id syntax is checked in `sessionIdIssues` (it depends on `backend`).
  resume: () => z.optional(argvValue()),
  resumeSessionAt: () => z.optional(argvValue()),
  resumeDropsTurn: () => z.optional(argvValue()),
  forkSession: () => z.optional(z.boolean()),
  sessionId: () =>
    z.optional(
      z
        .string()
        .check(z.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, "must be a UUID")),
    ),
  persistSession: () => z.optional(z.boolean()),
  sessionStore: () =>
    z.optional(
      z.custom<SessionStore>(
        (value) =>
          typeof value === "object" &&
          value !== null &&
          typeof (value as SessionStore).append === "function" &&
          typeof (value as SessionStore).load === "function",
        { error: "must be a SessionStore: an object with append() and load() methods" },
      ),
    ),
  sessionStoreFlush: () => z.optional(z.enum(["batched", "eager"])),
  loadTimeoutMs: () => z.optional(positiveNumber()),
  title: () => z.optional(z.string()),
  settingSources: () => z.optional(z.array(z.enum(["user", "project", "local"]))),
  settings: () =>
    z.optional(
      z.union([argvValue(), z.lazy(claudeSettingsSchema)], {
        error: "expected a settings JSON string, a settings object, or a path to a settings file",
      }),
    ),
  managedSettings: () => z.optional(z.lazy(claudeSettingsSchema)),
  sandbox: () => z.optional(sandboxSchema()),
  enableFileCheckpointing: () => z.optional(z.boolean()),

  systemPrompt: () =>
    z.optional(
      z.union(
        [
          z.string(),
          strings(),
          z.discriminatedUnion("type", [
            z.looseObject(systemPromptCustomShape()),
            z.looseObject(systemPromptPresetShape()),
          ]),
        ],
        {
          error:
            "expected a string, a list of strings, { type: 'custom', prompt } or { type: 'preset', preset: 'claude_code' }",
        },
      ),
    ),
  hooks: () => z.optional(z.record(z.string(), z.array(z.looseObject(hookMatcherShape())))),
  includeHookEvents: () => z.optional(z.boolean()),
  includePartialMessages: () => z.optional(z.boolean()),
  forwardSubagentText: () => z.optional(z.boolean()),
  promptSuggestions: () => z.optional(z.boolean()),
  agentProgressSummaries: () => z.optional(z.boolean()),
  verbatimPrompts: () => z.optional(z.boolean()),
  outputFormat: () =>
    z.optional(z.strictObject({ type: z.literal("json_schema"), schema: z.record(z.string(), z.unknown()) })),

  // Official SDK options that cannot apply: accepted by the schema so that each backend rejects
  // them with its reason (`UnsupportedOptionsError`), instead of "unknown option".
  executable: () => z.optional(z.unknown()),
  executableArgs: () => z.optional(z.unknown()),
} satisfies Record<string, () => z.ZodMiniType>;

type FieldName = keyof typeof FIELDS;
const builtFields = new Map<string, z.ZodMiniType>();

/** The schema of one top-level option, built once. */
function fieldSchema(name: FieldName): z.ZodMiniType {
  let schema = builtFields.get(name);
  if (schema === undefined) {
    schema = FIELDS[name]();
    builtFields.set(name, schema);
  }
  return schema;
}

/** The top-level options whose schemas have been built so far in this process. @internal */
export function builtOptionSchemas(): string[] {
  return [...builtFields.keys()];
}

/**
 * The zod schema of {@link AgentOptions}, built on first call (with every field: see
 * {@link agentOptionsIssues} for the check that builds only the fields present). Strict: unknown
 * keys are errors, so a typo such as `maxTurn` fails loudly instead of being ignored. Cross-field
 * rules (bypass permissions) are included. Prefer {@link validateAgentOptions}, which turns
 * failures into `InvalidOptionsError`.
 */
export const agentOptionsSchema = lazy(() => {
  const shape = Object.fromEntries(
    Object.keys(FIELDS).map((name) => [name, fieldSchema(name as FieldName)]),
  ) as { [K in FieldName]: ReturnType<(typeof FIELDS)[K]> };
  return z.strictObject(shape).check(
    z.superRefine(
      (value, ctx) => {
        for (const issue of crossFieldIssues(value as Record<string, unknown>)) ctx.addIssue(issue);
      },
      { when: (payload) => typeof payload.value === "object" && payload.value !== null },
    ),
  );
});

/** zod's English messages, used for every parse here (see the module comment). */
const localeError = english().localeError;

/**
 * Validates options against {@link agentOptionsSchema} and returns every problem as a
 * `path: message` string (empty when the options are valid). Never throws.
 */
export function agentOptionsIssues(options: unknown): string[] {
  if (options === undefined) return [];
  if (passesKeyByKey(options)) return [];
  const result = agentOptionsSchema().safeParse(options, { error: localeError });
  if (result.success) return [];
  const known = Object.keys(FIELDS);
  return result.error.issues.flatMap((issue) => formatIssue(issue, [], known));
}

/**
 * The fast path of {@link agentOptionsIssues}: true when `options` is valid, checked key by key
 * against the schema's fields plus the cross-field rules, which is what the strict object's parse
 * amounts to. It touches only the schemas of the options present, so a query's first validation
 * does not pay for zod preparing (and compiling) the parser of a ~100-field object. False means
 * "not sure": the full parse then runs and words the issues.
 */
function passesKeyByKey(options: unknown): boolean {
  if (typeof options !== "object" || options === null || Array.isArray(options)) return false;
  const prototype = Object.getPrototypeOf(options);
  if (prototype !== Object.prototype && prototype !== null) return false;
  const record = options as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(FIELDS, key)) return false;
    if (!fieldSchema(key as FieldName).safeParse(record[key], { error: localeError }).success) return false;
  }
  return crossFieldIssues(record).length === 0;
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

/**
 * Official SDK option names this SDK spells differently (see docs/claude.md's option table). Naming one
 * of them is answered with ours rather than a guess.
 */
export const OFFICIAL_OPTION_NAMES: Readonly<Record<string, string>> = Object.freeze({
  abortController: "signal",
  additionalDirectories: "addDirs",
  continue: "continueConversation",
  pathToClaudeCodeExecutable: "cliPath",
});

function formatIssue(issue: Issue, base: PropertyKey[], topLevelKeys: string[]): string[] {
  const path = [...base, ...issue.path];
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => {
      const ours = path.length === 0 ? OFFICIAL_OPTION_NAMES[key] : undefined;
      if (ours !== undefined) {
        return `${formatPath([...path, key])}: unknown option '${key}' (the official SDK's name; here it is '${ours}')`;
      }
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

type Shape = Record<string, unknown>;

/** Fields of `value` that `known` does not name, as `path.field` strings. */
function extraFields(value: unknown, known: Shape, path: string): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
  return Object.keys(value)
    .filter((key) => !Object.hasOwn(known, key))
    .map((key) => `${path}.${key}`);
}

function entries(value: unknown): [string, unknown][] {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? Object.entries(value) : [];
}

function items(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * Every field of a CLI-owned nested object (MCP servers, subagents, sandbox, hook matchers,
 * plugins, system prompt and thinking forms, `toolConfig`, `settings`, `managedSettings`) that this
 * SDK does not know, at any depth, as option paths. Such fields are passed to the CLI unchanged. A
 * settings JSON string or file is not read here: its fields go to the CLI as written. Never throws.
 */
export function unknownNestedFields(options: unknown): string[] {
  const o = (typeof options === "object" && options !== null ? options : {}) as Record<string, unknown>;
  // Only the options present: building a field's schema is what a query without it must not pay.
  return CLI_OWNED_OPTIONS.flatMap((key) =>
    o[key] === undefined || o[key] === null ? [] : unknownBySchema(o[key], fieldSchema(key), key),
  );
}

/** The parts of a zod schema's definition that {@link unknownBySchema} walks. */
interface WalkedDef {
  type: string;
  getter?: () => z.core.$ZodType;
  shape?: Record<string, z.core.$ZodType>;
  innerType?: z.core.$ZodType;
  element?: z.core.$ZodType;
  valueType?: z.core.$ZodType;
  options?: z.core.$ZodType[];
  items?: z.core.$ZodType[];
  rest?: z.core.$ZodType | null;
}

/**
 * Fields of `value` that a (generated, loose) schema does not name, at any depth: objects by their
 * shape, arrays, records and tuples by their element schemas, unions by the first member `value`
 * satisfies (an unsatisfied union is a validation error, reported elsewhere).
 */
function unknownBySchema(value: unknown, schema: z.core.$ZodType, path: string): string[] {
  if (value === undefined || value === null) return [];
  const def = schema._zod.def as WalkedDef;
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
      return def.innerType ? unknownBySchema(value, def.innerType, path) : [];
    case "lazy":
      return def.getter ? unknownBySchema(value, def.getter(), path) : [];
    case "object": {
      const shape = def.shape ?? {};
      const known = entries(value).flatMap(([key, v]) =>
        Object.hasOwn(shape, key) ? unknownBySchema(v, shape[key]!, `${path}.${key}`) : [],
      );
      return [...extraFields(value, shape, path), ...known];
    }
    case "record":
      return entries(value).flatMap(([key, v]) =>
        def.valueType ? unknownBySchema(v, def.valueType, `${path}.${key}`) : [],
      );
    case "array":
      return items(value).flatMap((v, i) =>
        def.element ? unknownBySchema(v, def.element, `${path}[${i}]`) : [],
      );
    case "tuple":
      return items(value).flatMap((v, i) => {
        const item = def.items?.[i] ?? def.rest ?? undefined;
        return item ? unknownBySchema(v, item, `${path}[${i}]`) : [];
      });
    case "union": {
      const match = def.options?.find((option) => z.safeParse(option, value).success);
      return match ? unknownBySchema(value, match, path) : [];
    }
    default:
      return [];
  }
}

const warnedNestedFields = new Set<string>();

/**
 * Reports each field of {@link unknownNestedFields} once per process (`process.emitWarning`, type
 * `CodeAgentSdkWarning`), naming where it goes: to the CLI, unchanged.
 */
export function warnUnknownNestedFields(options: unknown): void {
  const fresh = unknownNestedFields(options).filter((path) => !warnedNestedFields.has(path));
  if (fresh.length === 0) return;
  for (const path of fresh) warnedNestedFields.add(path);
  process.emitWarning(
    `passing ${fresh.length === 1 ? "a field" : "fields"} this SDK does not know to the Claude Code CLI unchanged: ` +
      `${fresh.join(", ")} (a typo there is only caught by the CLI)`,
    { type: "CodeAgentSdkWarning", code: "CODE_AGENT_SDK_UNKNOWN_NESTED_FIELD" },
  );
}

// Whoever loaded this module, the backends' validators (`options/check.ts`) now use it.
registerOptionSchema({ agentOptionsIssues, warnUnknownNestedFields });
