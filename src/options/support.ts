/**
 * Which backend honours which option: the one table from which the per-backend option types
 * (`ClaudeAgentOptions`, `CodexAgentOptions`, … in `options.ts`), each backend's run-time refusal
 * (`UnsupportedOptionsError`, before anything is spawned) and the capability table of
 * `docs/options.md` (`scripts/generate-option-table.ts`) are all derived. Adding an option means
 * one row here, its type in `options.ts` and its schema in `options-schema.ts`; the type tests
 * (`test/types/`) fail until all three agree.
 *
 * This module imports nothing, so every layer may read it.
 */

/** Which agent CLI drives the session. */
export type BackendKind = "claude" | "codex" | "cursor" | "acp";

/** Every backend, in the order the tables list them. */
export const BACKEND_KINDS = ["claude", "codex", "cursor", "acp"] as const satisfies readonly BackendKind[];

const ALL = BACKEND_KINDS;
const CLAUDE = ["claude"] as const;
const CLAUDE_CODEX = ["claude", "codex"] as const;

/**
 * A row for an option that belongs to the neutral core (every backend's type has it), whose
 * enforcement where a CLI has no equivalent is the SDK's job: until the SDK enforces it on a
 * backend, that backend still refuses it at run time, so nothing is silently ignored. `runtime`
 * lists the backends that accept it today.
 */
export interface PortableOption<R extends readonly BackendKind[] = readonly BackendKind[]> {
  readonly portable: true;
  readonly runtime: R;
}

/** A row of {@link OPTION_SUPPORT}: the backends that honour the option, or a portable option. */
export type OptionSupport = readonly BackendKind[] | PortableOption;

/** A portable option (see {@link PortableOption}) accepted at run time by `runtime` so far. */
function portable<const R extends readonly BackendKind[]>(runtime: R): PortableOption<R> {
  return { portable: true, runtime };
}

/**
 * Option name → the backends that honour it. An option listing every backend is part of the
 * neutral core (`CommonOptions`); the others are valid only in the listed backends' option types,
 * and refused at run time by the rest. `[]`: an official Claude SDK option this SDK refuses
 * everywhere, with a reason (see `CLAUDE_REJECTED_OPTIONS`).
 */
export const OPTION_SUPPORT = {
  // ── backend selection ──
  backend: ALL,
  codex: ["codex"],
  cursor: ["cursor"],
  acp: ["acp"],

  // ── execution environment ──
  cliPath: ALL,
  autoInstallCli: CLAUDE_CODEX,
  onCliInstallProgress: CLAUDE_CODEX,
  cwd: ALL,
  env: ALL,
  inheritEnv: ALL,
  telemetry: ALL,
  user: CLAUDE,
  extraArgs: ALL,
  signal: ALL,
  stderr: ALL,
  maxBufferSize: ALL,
  highWaterMark: ALL,
  lowWaterMark: ALL,
  maxReaderLagBytes: ALL,
  controlTimeoutMs: ["claude", "codex", "acp"],
  closeGraceMs: ALL,
  exitTimeoutMs: ALL,
  callbackTimeoutMs: ["claude", "codex", "acp"],
  backgroundTaskTimeoutMs: CLAUDE,
  transport: CLAUDE_CODEX,
  spawnClaudeCodeProcess: CLAUDE,
  debug: CLAUDE,
  debugFile: CLAUDE,
  projectConfigRoot: CLAUDE,
  record: CLAUDE_CODEX,

  // ── model control and limits ──
  model: ["claude", "codex", "cursor"],
  fallbackModel: CLAUDE,
  maxTurns: portable(ALL),
  maxBudgetUsd: portable(CLAUDE),
  maxBudgetTokens: portable(ALL),
  timeoutMs: portable(ALL),
  taskBudget: CLAUDE,
  effort: CLAUDE_CODEX,
  thinking: CLAUDE,
  maxThinkingTokens: CLAUDE,
  betas: CLAUDE,

  // ── tool control ──
  tools: CLAUDE,
  allowedTools: CLAUDE,
  disallowedTools: CLAUDE,
  toolAliases: CLAUDE,
  toolConfig: CLAUDE,
  permissionMode: CLAUDE,
  allowDangerouslySkipPermissions: CLAUDE,
  permissionPromptToolName: CLAUDE,
  permissionPrompts: CLAUDE,
  planModeInstructions: CLAUDE,
  canUseTool: ["claude", "codex", "acp"],
  canUseToolScope: CLAUDE,
  resumedCostBaseline: CLAUDE,
  onElicitation: CLAUDE,
  onUserDialog: CLAUDE,
  supportedDialogKinds: CLAUDE,
  perTaskStopAffordance: CLAUDE,

  // ── MCP / plugins / context ──
  mcpServers: ["claude", "codex", "acp"],
  mcpServersDelivery: CLAUDE,
  strictMcpConfig: CLAUDE,
  plugins: CLAUDE,
  pluginDelivery: CLAUDE,
  addDirs: CLAUDE_CODEX,
  agents: CLAUDE,
  agent: CLAUDE,
  skills: CLAUDE,

  // ── session management ──
  continueConversation: CLAUDE,
  resume: ALL,
  resumeSessionAt: CLAUDE,
  resumeDropsTurn: CLAUDE,
  forkSession: ["claude", "acp"],
  sessionId: CLAUDE,
  persistSession: CLAUDE,
  sessionStore: CLAUDE,
  sessionStoreFlush: CLAUDE,
  loadTimeoutMs: CLAUDE,
  title: CLAUDE,
  settingSources: CLAUDE,
  settings: CLAUDE,
  managedSettings: CLAUDE,
  sandbox: CLAUDE,
  enableFileCheckpointing: CLAUDE,

  // ── prompts, callbacks, output ──
  systemPrompt: CLAUDE,
  hooks: CLAUDE,
  includeHookEvents: CLAUDE,
  includePartialMessages: ALL,
  forwardSubagentText: CLAUDE,
  promptSuggestions: CLAUDE,
  agentProgressSummaries: CLAUDE,
  verbatimPrompts: CLAUDE,
  outputFormat: CLAUDE_CODEX,

  // ── official Claude SDK options that cannot apply here (refused with the reason) ──
  executable: [],
  executableArgs: [],
} as const satisfies Record<string, OptionSupport>;

/** The name of an option (a top-level field of `AgentOptions`). */
export type OptionName = keyof typeof OPTION_SUPPORT;

/** Every option name, in the table's order. */
export const OPTION_NAMES = Object.keys(OPTION_SUPPORT) as OptionName[];

/** The backends whose option type has `K` (a portable option: every backend). */
export type TypedBackendsOf<K extends OptionName> = (typeof OPTION_SUPPORT)[K] extends PortableOption
  ? BackendKind
  : (typeof OPTION_SUPPORT)[K] extends readonly (infer B extends BackendKind)[]
    ? B
    : never;

/** The options in `B`'s option type (with `backend`). */
export type OptionNamesOf<B extends BackendKind> = {
  [K in OptionName]: B extends TypedBackendsOf<K> ? K : never;
}[OptionName];

/** The options in every backend's type: the neutral core (with `backend`). */
export type CommonOptionName = {
  [K in OptionName]: BackendKind extends TypedBackendsOf<K> ? K : never;
}[OptionName];

/** The backends that accept `name` at run time today. */
export function runtimeBackends(name: OptionName): readonly BackendKind[] {
  const row: OptionSupport = OPTION_SUPPORT[name];
  return isPortable(row) ? row.runtime : row;
}

/** Whether `row` is a portable option's row. */
export function isPortable(row: OptionSupport): row is PortableOption {
  return !Array.isArray(row);
}

/** Whether `name` is an option of this SDK (own key of the table, not `toString` and the like). */
export function isOptionName(name: string): name is OptionName {
  return Object.hasOwn(OPTION_SUPPORT, name);
}

/** The options `backend` accepts at run time, as a set (built once per backend). */
export function supportedOptions(backend: BackendKind): ReadonlySet<OptionName> {
  let set = supportedSets.get(backend);
  if (set === undefined) {
    set = new Set(OPTION_NAMES.filter((name) => runtimeBackends(name).includes(backend)));
    supportedSets.set(backend, set);
  }
  return set;
}
const supportedSets = new Map<BackendKind, ReadonlySet<OptionName>>();

/** The options `backend` refuses at run time, in the table's order. */
export function refusedOptions(backend: BackendKind): OptionName[] {
  const supported = supportedOptions(backend);
  return OPTION_NAMES.filter((name) => !supported.has(name));
}

/**
 * The options set in `options` that `backend` refuses, in the object's key order: every key with
 * a value other than `undefined` (and, with `falseIsUnset`, other than `false`: a boolean switched
 * off asks for nothing) that the table does not list for `backend`. Keys the table does not know
 * are left to the schema (it reports them as unknown options).
 */
export function unsupportedOptionsIn(
  backend: BackendKind,
  options: object,
  { falseIsUnset = false }: { falseIsUnset?: boolean } = {},
): OptionName[] {
  const supported = supportedOptions(backend);
  const out: OptionName[] = [];
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || (falseIsUnset && value === false)) continue;
    if (isOptionName(key) && !supported.has(key)) out.push(key);
  }
  return out;
}
