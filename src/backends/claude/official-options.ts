/**
 * How every option of the official `@anthropic-ai/claude-agent-sdk` 0.3.330 maps onto
 * `AgentOptions`, and how each reaches Claude Code: the single source of the option table in docs/claude.md
 * and of the conformance test (which reads the official SDK's `.d.ts` and fails on any option this
 * table does not cover). Shared here so other backends can refuse the Claude-only ones.
 */
import { OPTION_NAMES, type OptionName, runtimeBackends } from "../../options/support.js";

/** An official option this SDK supports, under `ours`, sent to the CLI `via` the stated route. */
export interface SupportedOfficialOption {
  ours: OptionName;
  via: string;
}

/** An official option this SDK rejects, with the reason. */
export interface RejectedOfficialOption {
  rejected: string;
}

/** Why each official option that cannot apply here is refused. */
export const CLAUDE_REJECTED_OPTIONS = {
  executable:
    "the CLI is Claude Code's native binary, spawned directly; there is no JavaScript runtime to choose",
  executableArgs:
    "the CLI is Claude Code's native binary, spawned directly; there is no runtime to pass arguments to",
} as const satisfies Partial<Record<OptionName, string>>;

/** Every official option: ours and its route, or the reason it is rejected. */
export const OFFICIAL_CLAUDE_OPTIONS: Readonly<
  Record<string, SupportedOfficialOption | RejectedOfficialOption>
> = {
  abortController: { ours: "signal", via: "SDK side: aborting kills the process group" },
  additionalDirectories: { ours: "addDirs", via: "`--add-dir` per directory" },
  agent: { ours: "agent", via: "`--agent`" },
  agentProgressSummaries: { ours: "agentProgressSummaries", via: "initialize `agentProgressSummaries`" },
  agents: { ours: "agents", via: "initialize `agents`" },
  allowDangerouslySkipPermissions: {
    ours: "allowDangerouslySkipPermissions",
    via: "`--allow-dangerously-skip-permissions`",
  },
  allowedTools: { ours: "allowedTools", via: "`--allowedTools` (comma-joined)" },
  betas: { ours: "betas", via: "`--betas` per beta" },
  canUseTool: { ours: "canUseTool", via: "`--permission-prompt-tool stdio` + `can_use_tool` requests" },
  continue: { ours: "continueConversation", via: "`--continue`" },
  cwd: { ours: "cwd", via: "process working directory" },
  debug: { ours: "debug", via: "`--debug`" },
  debugFile: { ours: "debugFile", via: "`--debug-file`" },
  disallowedTools: { ours: "disallowedTools", via: "`--disallowedTools`" },
  effort: { ours: "effort", via: "`--effort`" },
  enableFileCheckpointing: {
    ours: "enableFileCheckpointing",
    via: "env `CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING`",
  },
  env: {
    ours: "env",
    via: "process environment (layered over `process.env`; `inheritEnv: false` replaces it)",
  },
  executable: { rejected: CLAUDE_REJECTED_OPTIONS.executable },
  executableArgs: { rejected: CLAUDE_REJECTED_OPTIONS.executableArgs },
  extraArgs: { ours: "extraArgs", via: "`--<flag> [value]`, last" },
  fallbackModel: { ours: "fallbackModel", via: "`--fallback-model`" },
  forkSession: { ours: "forkSession", via: "`--fork-session`" },
  forwardSubagentText: { ours: "forwardSubagentText", via: "initialize `forwardSubagentText`" },
  hooks: { ours: "hooks", via: "initialize `hooks` + `hook_callback` requests" },
  includeHookEvents: { ours: "includeHookEvents", via: "`--include-hook-events`" },
  includePartialMessages: { ours: "includePartialMessages", via: "`--include-partial-messages`" },
  loadTimeoutMs: {
    ours: "loadTimeoutMs",
    via: "SDK side: bounds each store call of a resume from `sessionStore`",
  },
  managedSettings: { ours: "managedSettings", via: "`--managed-settings <json>`" },
  maxBudgetUsd: { ours: "maxBudgetUsd", via: "`--max-budget-usd`" },
  maxThinkingTokens: { ours: "maxThinkingTokens", via: "`--max-thinking-tokens` (0: `--thinking=disabled`)" },
  maxTurns: { ours: "maxTurns", via: "`--max-turns`" },
  mcpServers: { ours: "mcpServers", via: "`--mcp-config <json>` (or initialize) + `mcp_message` requests" },
  mcpServersDelivery: { ours: "mcpServersDelivery", via: "initialize `mcpServers` + `--await-initialize`" },
  model: { ours: "model", via: "`--model`" },
  onElicitation: { ours: "onElicitation", via: "`elicitation` requests" },
  onUserDialog: { ours: "onUserDialog", via: "`request_user_dialog` requests" },
  outputFormat: { ours: "outputFormat", via: "`--json-schema` + initialize `jsonSchema`" },
  pathToClaudeCodeExecutable: { ours: "cliPath", via: "the executable spawned" },
  perTaskStopAffordance: { ours: "perTaskStopAffordance", via: "initialize `perTaskStopAffordance`" },
  permissionMode: { ours: "permissionMode", via: "`--permission-mode`" },
  permissionPromptToolName: { ours: "permissionPromptToolName", via: "`--permission-prompt-tool`" },
  permissionPrompts: { ours: "permissionPrompts", via: "`--permission-prompts`" },
  persistSession: { ours: "persistSession", via: "`--no-session-persistence` when false" },
  planModeInstructions: { ours: "planModeInstructions", via: "initialize `planModeInstructions`" },
  pluginDelivery: { ours: "pluginDelivery", via: "initialize `plugins` + `--await-initialize`" },
  plugins: { ours: "plugins", via: "`--plugin-dir` / `--plugin-dir-no-mcp`" },
  projectConfigRoot: { ours: "projectConfigRoot", via: "`--project-config-root`" },
  promptSuggestions: { ours: "promptSuggestions", via: "initialize `promptSuggestions`" },
  resume: { ours: "resume", via: "`--resume`" },
  resumeDropsTurn: { ours: "resumeDropsTurn", via: "`--resume-drops-turn`" },
  resumeSessionAt: { ours: "resumeSessionAt", via: "`--resume-session-at`" },
  sandbox: { ours: "sandbox", via: "merged into `--settings` under `sandbox`" },
  sessionId: { ours: "sessionId", via: "`--session-id`" },
  sessionStore: {
    ours: "sessionStore",
    via: "`--session-mirror`; its `transcript_mirror` frames → `append`; resume: `load` into a temporary `CLAUDE_CONFIG_DIR`",
  },
  sessionStoreFlush: { ours: "sessionStoreFlush", via: "SDK side: how `append` calls are batched" },
  settingSources: { ours: "settingSources", via: "`--setting-sources` (omitted: the CLI loads all)" },
  settings: { ours: "settings", via: "`--settings <json>`" },
  skills: { ours: "skills", via: "`Skill` rules in `--allowedTools` + initialize `skills`" },
  spawnClaudeCodeProcess: {
    ours: "spawnClaudeCodeProcess",
    via: "your function starts the CLI; JSON lines over its stdin/stdout",
  },
  stderr: { ours: "stderr", via: "SDK side: each stderr line" },
  strictMcpConfig: { ours: "strictMcpConfig", via: "`--strict-mcp-config`" },
  supportedDialogKinds: { ours: "supportedDialogKinds", via: "initialize `supportedDialogKinds`" },
  systemPrompt: { ours: "systemPrompt", via: "initialize `systemPrompt` / `appendSystemPrompt`" },
  taskBudget: { ours: "taskBudget", via: "`--task-budget`" },
  thinking: { ours: "thinking", via: "`--thinking=…` / `--max-thinking-tokens` / `--thinking-display`" },
  title: { ours: "title", via: "initialize `title`" },
  toolAliases: { ours: "toolAliases", via: "initialize `toolAliases`" },
  toolConfig: { ours: "toolConfig", via: "env `CLAUDE_CODE_QUESTION_*`" },
  tools: { ours: "tools", via: "`--tools`" },
  verbatimPrompts: { ours: "verbatimPrompts", via: "`client_composed: true` on each user message" },
};

/**
 * Options only Claude Code honours, from the support table (`OPTION_SUPPORT`): every option no
 * other backend accepts at run time, but the other backends' own sections (`codex`, `cursor`,
 * `acp`) and the official options refused everywhere (`CLAUDE_REJECTED_OPTIONS`).
 */
export const CLAUDE_ONLY_OPTIONS: readonly OptionName[] = Object.freeze(
  OPTION_NAMES.filter((name) => {
    const backends = runtimeBackends(name);
    return backends.length === 1 && backends[0] === "claude";
  }),
);

/** An official `Query` method and what this SDK calls it on `query()` and on `AgentSdkClient`. */
export interface OfficialQueryMethod {
  query: string;
  client: string;
}

/**
 * Every method of the official SDK's `Query`, with ours. The control methods share their official
 * names; `mcpServerStatus` is `getMcpStatus` on the client (as before), `close` is `disconnect`,
 * and the experimental usage call is `getUsage`.
 */
export const OFFICIAL_QUERY_METHODS: Readonly<Record<string, OfficialQueryMethod>> = {
  interrupt: { query: "interrupt", client: "interrupt" },
  setPermissionMode: { query: "setPermissionMode", client: "setPermissionMode" },
  setMcpPermissionModeOverride: {
    query: "setMcpPermissionModeOverride",
    client: "setMcpPermissionModeOverride",
  },
  setModel: { query: "setModel", client: "setModel" },
  setMaxThinkingTokens: { query: "setMaxThinkingTokens", client: "setMaxThinkingTokens" },
  applyFlagSettings: { query: "applyFlagSettings", client: "applyFlagSettings" },
  updateSettings: { query: "updateSettings", client: "updateSettings" },
  initializationResult: { query: "initializationResult", client: "initializationResult" },
  reinitialize: { query: "reinitialize", client: "reinitialize" },
  supportedCommands: { query: "supportedCommands", client: "supportedCommands" },
  supportedModels: { query: "supportedModels", client: "supportedModels" },
  supportedAgents: { query: "supportedAgents", client: "supportedAgents" },
  mcpServerStatus: { query: "mcpServerStatus", client: "getMcpStatus" },
  getContextUsage: { query: "getContextUsage", client: "getContextUsage" },
  usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET: { query: "getUsage", client: "getUsage" },
  readFile: { query: "readFile", client: "readFile" },
  reloadPlugins: { query: "reloadPlugins", client: "reloadPlugins" },
  reloadSkills: { query: "reloadSkills", client: "reloadSkills" },
  reloadOutputStyles: { query: "reloadOutputStyles", client: "reloadOutputStyles" },
  accountInfo: { query: "accountInfo", client: "accountInfo" },
  rewindFiles: { query: "rewindFiles", client: "rewindFiles" },
  seedReadState: { query: "seedReadState", client: "seedReadState" },
  reconnectMcpServer: { query: "reconnectMcpServer", client: "reconnectMcpServer" },
  toggleMcpServer: { query: "toggleMcpServer", client: "toggleMcpServer" },
  readMcpResource: { query: "readMcpResource", client: "readMcpResource" },
  setMcpServers: { query: "setMcpServers", client: "setMcpServers" },
  streamInput: { query: "streamInput", client: "streamInput" },
  stopTask: { query: "stopTask", client: "stopTask" },
  backgroundTasks: { query: "backgroundTasks", client: "backgroundTasks" },
  close: { query: "close", client: "disconnect" },
};
