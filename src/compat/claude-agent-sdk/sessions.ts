/**
 * `getSessionMessages` / `getSubagentMessages` as the official SDK returns them: its field names
 * (`session_id`, `parent_tool_use_id`, `parent_agent_id`, `is_meta`, …) instead of this SDK's, and
 * without the parsed `content` and `raw` it does not have. The other session helpers return the
 * same shapes in both SDKs and are exported unchanged.
 */
import {
  type SessionMessage as CoreSessionMessage,
  getSessionMessages as coreGetSessionMessages,
  getSubagentMessages as coreGetSubagentMessages,
  type GetSessionMessagesOptions,
} from "../../backends/claude/sessions/index.js";
import type { SessionMessage } from "./types.js";

/** One stored message in the official SDK's shape; the optional flags only when the entry has them. */
export function toOfficialSessionMessage(m: CoreSessionMessage): SessionMessage {
  return {
    type: m.type,
    uuid: m.uuid,
    session_id: m.sessionId,
    message: m.message,
    parent_tool_use_id: m.parentToolUseId,
    parent_agent_id: m.parentAgentId,
    ...(m.timestamp !== undefined ? { timestamp: m.timestamp } : {}),
    ...(m.isCompactSummary ? { isCompactSummary: true } : {}),
    ...(m.isMeta ? { is_meta: true } : {}),
    ...(m.isCompletedLocalCommand ? { isCompletedLocalCommand: true } : {}),
  };
}

/** The official `getSessionMessages`: a session's conversation, in the official message shape. */
export async function getSessionMessages(
  sessionId: string,
  options?: GetSessionMessagesOptions,
): Promise<SessionMessage[]> {
  return (await coreGetSessionMessages(sessionId, options)).map(toOfficialSessionMessage);
}

/** The official `getSubagentMessages`: a subagent's transcript, in the official message shape. */
export async function getSubagentMessages(
  sessionId: string,
  agentId: string,
  options?: GetSessionMessagesOptions,
): Promise<SessionMessage[]> {
  return (await coreGetSubagentMessages(sessionId, agentId, options)).map(toOfficialSessionMessage);
}
