/**
 * Turns `ResolvedOptions` into the argv of the Claude Code CLI (verified against 2.1.330).
 *
 * We always run the CLI in streaming-input mode with the control protocol on stdin/stdout, so the
 * prompt never appears in argv (no `-p <prompt>`): it is written to stdin as a user message.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { InvalidOptionsError } from "../../errors.js";
import type { McpSdkServerConfig, McpServerConfig } from "../../mcp/config.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import type { ThinkingConfig } from "../../options.js";
import { flagWithValue } from "../../process/argv.js";
import { asObject, isObject } from "../../wire/read.js";
import { trySerialise } from "../../wire/safe-json.js";

/** What the session knows that the options alone do not. */
export interface ClaudeCommandContext {
  /**
   * Names of in-process (SDK) MCP servers the session routes `mcp_message` requests for. Each is
   * declared to the CLI as `{ type: "sdk", name }`, including any not listed in `options.mcpServers`.
   */
  sdkMcpServerNames: string[];
  /**
   * Where the MCP server configs (their `env` and `headers`) and the settings go, so that they are
   * not on the command line, which any local user can read in `/proc/<pid>/cmdline`: a writer of
   * private files (see `PrivateFiles`) whose paths are passed instead. `null` keeps them inline,
   * for a process this SDK does not spawn (`spawnClaudeCodeProcess`, where a local path may not
   * exist) and for building arguments only to warm code up.
   */
  files: PrivateFileWriter | null;
}

/** Writes a private file for the CLI to read and returns its path. */
export interface PrivateFileWriter {
  write(name: string, content: string): string;
}

/** The flags every session starts with: JSON lines both ways, all message kinds on stdout. */
export const BASE_CLAUDE_ARGS: readonly string[] = [
  "--output-format",
  "stream-json",
  "--verbose",
  "--input-format",
  "stream-json",
];

/**
 * Builds the CLI arguments (without the executable) for `options`, flag for flag as the official
 * TypeScript SDK 0.3.330 builds them (what it sends in the `initialize` request instead is built
 * by `buildClaudeInitialize`, and its environment variables by `buildClaudeEnv`).
 *
 * Deterministic and side-effect free, except that a `settings` value naming a file is read
 * (synchronously) so that it can be merged with `sandbox` into the single `--settings` object the
 * CLI accepts, and that the MCP server configs (other than in-process ones) and the settings are
 * written to private files through `ctx.files`, whose paths go on the command line instead. Throws `InvalidOptionsError` for combinations the CLI cannot run (see
 * {@link claudeOptionConflicts}) and for an unreadable or malformed settings file.
 *
 * Where this differs from the official SDK, on purpose: `--betas` is one flag per beta (2.1.330
 * does not split a comma-joined list), a settings *file* can be combined with `sandbox` (it is read
 * and merged), and `extraArgs` come last so they can override anything.
 */
export function buildClaudeArgs(options: ResolvedOptions, ctx: ClaudeCommandContext): string[] {
  const conflicts = claudeOptionConflicts(options);
  if (conflicts.length > 0) throw new InvalidOptionsError(conflicts);

  const args = [...BASE_CLAUDE_ARGS];
  // A value never becomes an argument of its own that starts with `-` (see `flagWithValue`);
  // the options schema has refused such values already wherever none can be meant.
  const push = (flag: string, value?: string) => {
    if (value === undefined) args.push(flag);
    else args.push(...flagWithValue(flag, value));
  };

  args.push(...thinkingArgs(options));
  if (options.effort !== undefined) push("--effort", options.effort);
  if (options.maxTurns !== undefined) push("--max-turns", String(options.maxTurns));
  if (options.maxBudgetUsd !== undefined) push("--max-budget-usd", String(options.maxBudgetUsd));
  if (options.taskBudget !== undefined) push("--task-budget", String(options.taskBudget.total));
  if (options.model !== undefined) push("--model", options.model);
  if (options.agent !== undefined) push("--agent", options.agent);
  // `--betas` is variadic and does not split on commas (2.1.330 warns about "a,b" as one unknown
  // beta), so each beta gets its own flag.
  for (const beta of options.betas ?? []) push("--betas", beta);
  const schema = claudeJsonSchema(options);
  if (schema !== undefined) push("--json-schema", optionJson("outputFormat.schema", schema));
  if (options.debugFile !== undefined) push("--debug-file", options.debugFile);
  else if (options.debug) push("--debug");

  if (options.canUseTool) {
    // "stdio" routes every permission prompt to us as a `can_use_tool` control request; without
    // it the CLI silently denies whatever needs approval.
    push("--permission-prompt-tool", "stdio");
  } else if (options.permissionPromptToolName !== undefined) {
    push("--permission-prompt-tool", options.permissionPromptToolName);
  }
  if (options.permissionPrompts !== undefined) push("--permission-prompts", options.permissionPrompts);
  // With a store, `continueConversation` is resolved against the store (the newest session there
  // becomes `resume`), as the official SDK does; the CLI's own `--continue` would look on disk.
  if (options.continueConversation && options.sessionStore === undefined) push("--continue");
  if (options.resume !== undefined) push("--resume", options.resume);

  const allowed = allowedToolsWithSkills(options);
  if (allowed.length > 0) push("--allowedTools", allowed.join(","));
  if (options.disallowedTools?.length) push("--disallowedTools", options.disallowedTools.join(","));
  if (options.tools !== undefined) {
    // An empty string is the CLI's spelling of "no built-in tools".
    push("--tools", Array.isArray(options.tools) ? options.tools.join(",") : "default");
  }

  if (typeof options.mcpServers === "string") push("--mcp-config", options.mcpServers);
  const mcp = mcpConfig(
    typeof options.mcpServers === "object" ? options.mcpServers : {},
    ctx,
    options.mcpServersDelivery === "initialize",
  );
  if (mcp !== undefined) {
    // In-process servers alone are names and tool lists: nothing secret, and no file to write.
    const json = optionJson("mcpServers", mcp.config);
    push("--mcp-config", mcp.sdkOnly || ctx.files === null ? json : ctx.files.write("mcp-config.json", json));
  }

  // Omitted: the CLI's default, which loads user, project and local settings (as the official SDK).
  if (options.settingSources !== undefined) push("--setting-sources", options.settingSources.join(","));
  if (options.strictMcpConfig) push("--strict-mcp-config");
  if (options.permissionMode !== undefined) push("--permission-mode", options.permissionMode);
  if (options.allowDangerouslySkipPermissions) push("--allow-dangerously-skip-permissions");
  if (options.fallbackModel !== undefined) push("--fallback-model", options.fallbackModel);
  if (options.includeHookEvents) push("--include-hook-events");
  if (options.includePartialMessages) push("--include-partial-messages");
  if (options.projectConfigRoot !== undefined) push("--project-config-root", options.projectConfigRoot);
  for (const dir of options.addDirs ?? []) push("--add-dir", dir);
  if (awaitsInitialize(options)) push("--await-initialize");
  if (options.pluginDelivery !== "initialize") {
    for (const plugin of options.plugins ?? []) {
      push(plugin.skipMcpDiscovery ? "--plugin-dir-no-mcp" : "--plugin-dir", plugin.path);
    }
  }
  if (options.forkSession) push("--fork-session");
  if (options.resumeSessionAt !== undefined) push("--resume-session-at", options.resumeSessionAt);
  if (options.resumeDropsTurn !== undefined) push("--resume-drops-turn", options.resumeDropsTurn);
  if (options.sessionId !== undefined) push("--session-id", options.sessionId);
  if (options.persistSession === false) push("--no-session-persistence");
  if (options.sessionStore !== undefined) push("--session-mirror");
  // Managed settings travel in the initialize request: `--managed-settings` takes JSON only, and
  // argv is readable by any local user.
  if (options.managedSettings !== undefined) push("--managed-settings-in-initialize");

  const settings = resolveClaudeSettings(options);
  if (settings !== undefined) {
    const json = optionJson("settings", settings);
    push("--settings", ctx.files === null ? json : ctx.files.write("settings.json", json));
  }

  // Last, so a caller can reach flags this SDK does not model (and override earlier ones).
  for (const [flag, value] of Object.entries(options.extraArgs ?? {})) push(`--${flag}`, value ?? undefined);
  return args;
}

/** Whether the CLI must wait for the initialize request before it loads anything (`--await-initialize`). */
export function awaitsInitialize(options: ResolvedOptions): boolean {
  const plugins = options.pluginDelivery === "initialize" && (options.plugins?.length ?? 0) > 0;
  const mcp =
    options.mcpServersDelivery === "initialize" &&
    typeof options.mcpServers === "object" &&
    Object.values(options.mcpServers).some((config) => config.type !== "sdk");
  return plugins || mcp || options.managedSettings !== undefined;
}

/**
 * The thinking flags, as the official SDK maps them: `thinking` first (`adaptive` →
 * `--thinking=adaptive`, `enabled` → `--max-thinking-tokens N` or adaptive without a budget,
 * `disabled` → `--thinking=disabled`, `display` → `--thinking-display`); else `maxThinkingTokens`
 * (`0` → disabled).
 */
export function thinkingArgs(options: ResolvedOptions): string[] {
  const thinking: ThinkingConfig | undefined =
    options.thinking ??
    (options.maxThinkingTokens === undefined
      ? undefined
      : options.maxThinkingTokens === 0
        ? { type: "disabled" }
        : { type: "enabled", budgetTokens: options.maxThinkingTokens });
  if (thinking === undefined) return [];
  if (thinking.type === "disabled") return ["--thinking=disabled"];
  const args =
    thinking.type === "enabled" && thinking.budgetTokens !== undefined
      ? ["--max-thinking-tokens", String(thinking.budgetTokens)]
      : ["--thinking=adaptive"];
  if (thinking.display !== undefined) args.push("--thinking-display", thinking.display);
  return args;
}

/** `allowedTools` plus the `Skill` rules `skills` implies (as the official SDK adds them). */
export function allowedToolsWithSkills(options: ResolvedOptions): string[] {
  const allowed = [...(options.allowedTools ?? [])];
  const skills = options.skills;
  if (skills === undefined) return allowed;
  const rules = skills === "all" ? ["Skill"] : skills.map((name) => `Skill(${name})`);
  for (const rule of rules) if (!allowed.includes(rule)) allowed.push(rule);
  return allowed;
}

/**
 * The structured-output schema as the CLI can use it. Claude Code 2.1.330 checks it with a strict
 * draft-07 validator that knows no other meta-schema: a `$schema` naming another draft (zod's
 * `z.toJSONSchema()` writes 2020-12) or a 2020-12 keyword such as `prefixItems` (every `z.tuple`)
 * makes it exit 1 — also through the official SDK, which passes the schema unchanged. So the
 * schema is rewritten to draft-07 (see {@link toDraft07}); a draft-07 schema is left as it is.
 */
export function claudeJsonSchema(options: ResolvedOptions): Record<string, unknown> | undefined {
  if (options.outputFormat?.type !== "json_schema") return undefined;
  try {
    return toDraft07(options.outputFormat.schema);
  } catch (error) {
    // A schema that refers to itself (a cycle) or nests deeper than the stack: never a JSON Schema.
    if (error instanceof RangeError)
      throw new InvalidOptionsError([
        "outputFormat.schema: it is circular or nested too deeply to be a JSON Schema",
      ]);
    throw error;
  }
}

/**
 * `value` as the JSON a flag carries; a value JSON cannot carry (a BigInt, a cycle, nesting deeper
 * than the stack, a throwing `toJSON`) is an {@link InvalidOptionsError} naming the option.
 */
function optionJson(name: string, value: unknown): string {
  const serialised = trySerialise(value);
  if (serialised.ok) return serialised.line;
  throw new InvalidOptionsError([`${name}: ${serialised.problem}`]);
}

/**
 * Rewrites the 2019-09 / 2020-12 parts of a JSON Schema to their draft-07 equivalents: drops a
 * `$schema` that is not draft-07, turns `prefixItems` (+ `items`) into `items: [...]` (+
 * `additionalItems`), and `dependentRequired` / `dependentSchemas` into `dependencies`. `$defs`
 * and `$ref` need no change (the CLI resolves them). Returns a new object; the input is untouched.
 */
export function toDraft07(schema: Record<string, unknown>): Record<string, unknown> {
  const out = convertSchema(schema) as Record<string, unknown>;
  const draft = out.$schema;
  if (typeof draft === "string" && !draft.includes("draft-07")) delete out.$schema;
  return out;
}

/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose value is data, not a schema. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples", "required", "dependentRequired"]);

function convertSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(convertSchema);
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DATA_KEYWORDS.has(key)) out[key] = value;
    else if (SCHEMA_MAPS.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, convertSchema(sub)]));
    } else out[key] = convertSchema(value);
  }
  if (Array.isArray(out.prefixItems)) {
    const rest = out.items;
    out.items = out.prefixItems;
    delete out.prefixItems;
    if (rest === undefined) delete out.additionalItems;
    else out.additionalItems = rest;
  }
  const dependencies: Record<string, unknown> = isObject(out.dependencies) ? { ...out.dependencies } : {};
  for (const key of ["dependentRequired", "dependentSchemas"]) {
    if (!isObject(out[key])) continue;
    Object.assign(dependencies, out[key]);
    delete out[key];
  }
  if (Object.keys(dependencies).length > 0) out.dependencies = dependencies;
  return out;
}

/**
 * Option combinations the Claude Code CLI cannot run, as `path: message` strings (empty when
 * none). Shared by {@link buildClaudeArgs} and the backend's up-front validation.
 */
export function claudeOptionConflicts(options: ResolvedOptions): string[] {
  const issues: string[] = [];
  if (options.canUseTool && options.permissionPromptToolName !== undefined) {
    issues.push(
      "permissionPromptToolName: cannot be combined with canUseTool, which already answers permission " +
        "prompts in-process (via --permission-prompt-tool stdio); set only one of them",
    );
  }
  if (options.resumeSessionAt !== undefined && options.resume === undefined) {
    issues.push("resumeSessionAt: needs resume (the session id to resume); the CLI refuses it on its own");
  }
  if (options.spawnClaudeCodeProcess && options.transport) {
    issues.push(
      "spawnClaudeCodeProcess: cannot be combined with transport, which replaces the process altogether",
    );
  }
  if (options.fallbackModel !== undefined && options.fallbackModel === options.model) {
    issues.push("fallbackModel: must differ from model (the CLI refuses the same model as its own fallback)");
  }
  if ((options.supportedDialogKinds?.length ?? 0) > 0 && !options.onUserDialog) {
    issues.push(
      "supportedDialogKinds: needs onUserDialog; declaring dialog kinds without a handler would park dialogs nothing answers",
    );
  }
  if (options.sessionStore !== undefined) issues.push(...sessionStoreConflicts(options));
  if (options.sessionId !== undefined && (options.resume !== undefined || options.continueConversation)) {
    if (!options.forkSession) {
      issues.push(
        "sessionId: cannot be combined with resume or continueConversation unless forkSession is set",
      );
    }
  }
  return issues;
}

/** What cannot go with `sessionStore` (the official SDK's rules, plus `transport`). */
function sessionStoreConflicts(options: ResolvedOptions): string[] {
  const issues: string[] = [];
  if (options.persistSession === false) {
    issues.push(
      "sessionStore: cannot be combined with persistSession: false — the CLI mirrors what it writes " +
        "locally. To keep no local copy, point env.CLAUDE_CONFIG_DIR at a new private directory and delete it afterwards",
    );
  }
  if (options.enableFileCheckpointing) {
    issues.push(
      "sessionStore: cannot be combined with enableFileCheckpointing — file backups are not mirrored, " +
        "so rewindFiles() would fail after a resume from the store",
    );
  }
  if (options.continueConversation && options.resume === undefined && !options.sessionStore?.listSessions) {
    issues.push(
      "continueConversation: with sessionStore needs store.listSessions() to find the newest session",
    );
  }
  if (options.transport !== undefined) {
    issues.push(
      "sessionStore: cannot be combined with transport; the SDK must start the CLI with --session-mirror",
    );
  }
  return issues;
}

/**
 * The settings object to pass as `--settings`, or `undefined` when there is none: `settings`
 * (a JSON string, an object, or a file path resolved against `cwd`) with `sandbox` merged into its
 * `sandbox` block the way the official SDK merges them: nested objects key by key (`ripgrep` and
 * `network.tlsTerminate` replaced whole), the restriction lists (`filesystem.denyRead`,
 * `filesystem.denyWrite`, `network.deniedDomains`, `credentials.files`, `credentials.envVars`)
 * combined, and `failIfUnavailable` defaulting to `true` when `sandbox.enabled` is `true`.
 * Throws `InvalidOptionsError` when the file cannot be read or the JSON is not an object.
 */
export function resolveClaudeSettings(options: ResolvedOptions): Record<string, unknown> | undefined {
  const base = loadSettings(options.settings, options.cwd);
  const sandbox = options.sandbox;
  if (sandbox === undefined) return base;
  const merged = { ...(base ?? {}) };
  const result = mergeSandbox(asObject(merged.sandbox), sandbox, "");
  const network = sandbox.network;
  const restrictsDomains =
    network?.allowedDomains !== undefined ||
    (network?.deniedDomains?.length ?? 0) > 0 ||
    network?.strictAllowlist === true;
  // Traffic through the caller's own proxy would bypass the domain lists the option sets.
  if (restrictsDomains && isObject(result.network)) {
    const mergedNetwork = result.network as Record<string, unknown>;
    for (const port of ["httpProxyPort", "socksProxyPort"] as const) {
      if (network?.[port] === undefined) delete mergedNetwork[port];
    }
  }
  const credentialDeny = sandbox.credentials?.files?.some((file) => file.mode === "deny") ?? false;
  if ((sandbox.filesystem !== undefined || credentialDeny) && sandbox.filesystem?.disabled === undefined) {
    if (isObject(result.filesystem)) delete (result.filesystem as Record<string, unknown>).disabled;
  }
  if (sandbox.enabled === true && result.failIfUnavailable === undefined) result.failIfUnavailable = true;
  merged.sandbox = result;
  return merged;
}

const COMBINED_SANDBOX_LISTS = new Set([
  "filesystem.denyRead",
  "filesystem.denyWrite",
  "network.deniedDomains",
  "credentials.files",
  "credentials.envVars",
]);
const REPLACED_SANDBOX_OBJECTS = new Set(["ripgrep", "network.tlsTerminate"]);

function mergeSandbox(
  base: Record<string, unknown>,
  overlay: Record<string, unknown>,
  prefix: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overlay)) {
    if (value === undefined || key === "__proto__" || key === "constructor" || key === "prototype") continue;
    const path = prefix ? `${prefix}.${key}` : key;
    const existing = Object.hasOwn(out, key) ? out[key] : undefined;
    if (COMBINED_SANDBOX_LISTS.has(path) && Array.isArray(existing) && Array.isArray(value)) {
      out[key] = [...new Set([...existing, ...value])];
    } else if (isObject(existing) && isObject(value) && !REPLACED_SANDBOX_OBJECTS.has(path)) {
      out[key] = mergeSandbox(existing, value, path);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function loadSettings(
  settings: ResolvedOptions["settings"],
  cwd: string | undefined,
): Record<string, unknown> | undefined {
  if (settings === undefined) return undefined;
  if (typeof settings !== "string") return { ...settings };

  let text = settings;
  let source = "settings JSON";
  // Same rule as the CLI's own `--settings <file-or-json>`: JSON objects start with "{".
  if (!settings.trimStart().startsWith("{")) {
    const file = isAbsolute(settings) ? settings : resolve(cwd ?? process.cwd(), settings);
    source = `settings file '${file}'`;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new InvalidOptionsError([`settings: cannot read ${source}: ${(error as Error).message}`]);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InvalidOptionsError([`settings: ${source} is not valid JSON: ${(error as Error).message}`]);
  }
  if (!isObject(parsed)) throw new InvalidOptionsError([`settings: ${source} must hold a JSON object`]);
  return parsed;
}

/** The `--mcp-config` object, and whether it holds in-process servers only; `undefined` when empty. */
function mcpConfig(
  servers: Record<string, McpServerConfig>,
  ctx: ClaudeCommandContext,
  viaInitialize: boolean,
): { config: { mcpServers: Record<string, unknown> }; sdkOnly: boolean } | undefined {
  const wire: Record<string, unknown> = {};
  let sdkOnly = true;
  for (const [name, config] of Object.entries(servers)) {
    if (config.type === "sdk") wire[name] = sdkServerWire(name, config);
    // With `mcpServersDelivery: "initialize"` the other servers travel in the initialize request.
    else if (!viaInitialize) {
      wire[name] = config;
      sdkOnly = false;
    }
  }
  for (const name of ctx.sdkMcpServerNames) wire[name] ??= { type: "sdk", name };
  return Object.keys(wire).length > 0 ? { config: { mcpServers: wire }, sdkOnly } : undefined;
}

/**
 * How the CLI is told about an in-process server: the instance cannot cross a process boundary, so
 * only its name and settings. The CLI addresses `mcp_message` requests by the map key (checked on
 * 2.1.330), so `name` is the key, whatever the config's own `name` says.
 */
export function sdkServerWire(name: string, config: McpSdkServerConfig): Record<string, unknown> {
  return {
    type: "sdk",
    name,
    ...(config.timeout !== undefined ? { timeout: config.timeout } : {}),
    ...(config.tools !== undefined ? { tools: config.tools } : {}),
  };
}
