/**
 * `code-agent-sdk/compat/claude-agent-sdk`: the official `@anthropic-ai/claude-agent-sdk` API on
 * code-agent-sdk's engine. Change the import, keep the code:
 *
 * ```ts
 * import { query, tool, createSdkMcpServer } from "code-agent-sdk/compat/claude-agent-sdk"; // was "@anthropic-ai/claude-agent-sdk"
 * ```
 *
 * Deliberate differences and refused options are listed in the README ("Switching from the
 * official SDKs").
 * @packageDocumentation
 */

export {
  archiveSession,
  deleteSession,
  foldSessionSummary,
  forkSession,
  getSessionInfo,
  InMemorySessionStore,
  importSessionToStore,
  listSessions,
  listSubagents,
  renameSession,
  tagSession,
  unarchiveSession,
} from "../../backends/claude/sessions/index.js";
export { AbortError, UnsupportedOptionsError } from "../../errors.js";
export {
  BUILTIN_TOOL_NAMES,
  EXIT_REASONS,
  HOOK_EVENTS,
  LEGACY_TOOL_NAME_ALIASES,
  ORG_POLICY_LIMIT_PREFIXES,
  SYSTEM_PROMPT_DYNAMIC_BOUNDARY,
  USAGE_LIMIT_ERROR_PREFIXES,
  USAGE_TRANSITION_PREFIXES,
  USAGE_WARNING_PREFIXES,
} from "./constants.js";
export { matchDeniedModels } from "./denied-models.js";
export {
  DirectConnectError,
  type DirectConnectTarget,
  DirectConnectTransport,
  parseDirectConnectUrl,
} from "./direct-connect.js";
export { createSdkMcpServer, tool } from "./mcp.js";
export { REJECTED_OPTIONS } from "./options.js";
export { prewarm, query, startup } from "./query.js";
export {
  CommandMatcher,
  type CommandMatcherItem,
  type CommandMatcherSearchOptions,
  FileIndex,
  type FileIndexResult,
} from "./search.js";
export { getSessionMessages, getSubagentMessages } from "./sessions.js";
export { filterEscalatingDefaultMode, resolveSettings } from "./settings.js";
export type * from "./types.js";
