/**
 * `code-agent-sdk/compat/codex-sdk`: the official `@openai/codex-sdk` API on code-agent-sdk's
 * engine. Change the import, keep the code:
 *
 * ```ts
 * import { Codex } from "code-agent-sdk/compat/codex-sdk"; // was "@openai/codex-sdk"
 * ```
 *
 * Deliberate differences are listed in docs/compat.md ("Switching from the official SDKs").
 * @packageDocumentation
 */
export { Codex } from "./codex.js";
export type {
  AgentMessageItem,
  CommandExecutionItem,
  CommandExecutionStatus,
  ErrorItem,
  FileChangeItem,
  FileUpdateChange,
  ItemCompletedEvent,
  ItemStartedEvent,
  ItemUpdatedEvent,
  McpToolCallItem,
  McpToolCallStatus,
  PatchApplyStatus,
  PatchChangeKind,
  ReasoningItem,
  ThreadError,
  ThreadErrorEvent,
  ThreadEvent,
  ThreadItem,
  ThreadStartedEvent,
  TodoItem,
  TodoListItem,
  TurnCompletedEvent,
  TurnFailedEvent,
  TurnStartedEvent,
  Usage,
  WebSearchItem,
} from "./events.js";
export type {
  ApprovalMode,
  CodexConfigObject,
  CodexConfigValue,
  CodexOptions,
  CyberAccessProgram,
  Input,
  ModelReasoningEffort,
  SandboxMode,
  ThreadOptions,
  TurnOptions,
  UserInput,
  WebSearchMode,
} from "./options.js";
export {
  type RunResult,
  type RunStreamedResult,
  type StreamedTurn,
  Thread,
  type Turn,
  TurnFailedError,
} from "./thread.js";
