/**
 * The options of the official Claude SDK 0.3.330 that only the Claude backend takes, one value
 * each: the other backends' validators must refuse every one of them.
 */
import type { ResolvedOptions } from "../../../src/options/resolved.js";

export const NEWER_CLAUDE_ONLY_OPTIONS = {
  agent: "a",
  agentProgressSummaries: true,
  canUseToolScope: "asked-calls",
  backgroundTaskTimeoutMs: 1000,
  debug: true,
  debugFile: "/tmp/d.log",
  forwardSubagentText: true,
  includeHookEvents: true,
  managedSettings: {},
  mcpServersDelivery: "initialize",
  onElicitation: async () => null,
  onUserDialog: async () => null,
  perTaskStopAffordance: true,
  permissionPrompts: "host",
  persistSession: false,
  planModeInstructions: "plan",
  pluginDelivery: "initialize",
  projectConfigRoot: "/p",
  promptSuggestions: true,
  resumedCostBaseline: true,
  resumeDropsTurn: "uuid",
  sessionId: "00000000-0000-4000-8000-000000000000",
  skills: "all",
  strictMcpConfig: true,
  supportedDialogKinds: ["k"],
  taskBudget: { total: 1000 },
  title: "t",
  toolAliases: { Bash: "mcp__x__bash" },
  toolConfig: { askUserQuestion: { previewFormat: "html" } },
  verbatimPrompts: true,
  executable: "node" as never,
  executableArgs: [] as never,
  spawnClaudeCodeProcess: (() => undefined) as never,
  sessionStore: { append: async () => {}, load: async () => null },
  sessionStoreFlush: "eager",
  loadTimeoutMs: 1000,
} satisfies Partial<ResolvedOptions> & { executable?: unknown; executableArgs?: unknown };
