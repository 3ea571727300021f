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
export { HOOK_EVENTS } from "../../hooks.js";
export { createSdkMcpServer, tool } from "./mcp.js";
export { REJECTED_OPTIONS } from "./options.js";
export { prewarm, query, startup } from "./query.js";
export { getSessionMessages, getSubagentMessages } from "./sessions.js";
export type * from "./types.js";
