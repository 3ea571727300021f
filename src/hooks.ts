/**
 * Hook callback types. Hooks run inside the SDK process when the CLI reaches a lifecycle event
 * (before/after a tool, on stop, …) and can block, rewrite or annotate what happens next.
 */

/** Every hook event Claude Code 2.1.330 lists in its hook catalog (`get_hooks_listing`). */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PostToolBatch",
  "PermissionDenied",
  "Notification",
  "UserPromptSubmit",
  "UserPromptExpansion",
  "SessionStart",
  "Stop",
  "StopFailure",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "PreModelSwitch",
  "PostModelSwitch",
  "SessionEnd",
  "PermissionRequest",
  "Setup",
  "TeammateIdle",
  "TaskCreated",
  "TaskCompleted",
  "Elicitation",
  "ElicitationResult",
  "ConfigChange",
  "InstructionsLoaded",
  "WorktreeCreate",
  "WorktreeRemove",
  "CwdChanged",
  "FileChanged",
  "DirectoryAdded",
  "MessageDisplay",
] as const;

/** A hook event name. Unknown future names are accepted as strings. */
export type HookEvent = (typeof HOOK_EVENTS)[number] | (string & {});

/** The input of every hook (snake_case, exactly as the CLI sends it). */
export interface HookInput {
  hook_event_name: string;
  session_id: string;
  transcript_path: string;
  cwd: string;
  permission_mode?: string;
  tool_name?: string;
  tool_input?: Record<string, unknown>;
  tool_use_id?: string;
  tool_response?: unknown;
  [key: string]: unknown;
}

/** Tell the CLI the hook's work continues in the background. */
export interface AsyncHookJSONOutput {
  async: true;
  /** Milliseconds the CLI should wait for the background work. */
  asyncTimeout?: number;
}

/** The hook's decision. Field names are those of the CLI (`continue`, `suppressOutput`, …). */
export interface SyncHookJSONOutput {
  /** `false` stops the agent after this hook. */
  continue?: boolean;
  suppressOutput?: boolean;
  stopReason?: string;
  decision?: "approve" | "block";
  systemMessage?: string;
  reason?: string;
  hookSpecificOutput?:
    | {
        hookEventName: "PreToolUse";
        permissionDecision?: "allow" | "deny" | "ask";
        permissionDecisionReason?: string;
        updatedInput?: Record<string, unknown>;
      }
    | { hookEventName: "PostToolUse"; additionalContext?: string }
    | { hookEventName: "UserPromptSubmit"; additionalContext?: string }
    | { hookEventName: "SessionStart"; additionalContext?: string }
    | { hookEventName: string; [key: string]: unknown };
}

/** What a hook callback returns. */
export type HookJSONOutput = AsyncHookJSONOutput | SyncHookJSONOutput;

/** Context handed to a hook callback. */
export interface HookContext {
  /** Aborted when the session closes. */
  signal: AbortSignal;
}

/** A hook callback. Throwing reports an error to the CLI; the session continues. */
export type HookCallback = (
  input: HookInput,
  toolUseId: string | undefined,
  context: HookContext,
) => Promise<HookJSONOutput> | HookJSONOutput;

/** Which calls of an event a group of hooks applies to. */
export interface HookCallbackMatcher {
  /** Tool-name pattern (e.g. `"Bash"`, `"Write|Edit"`). Omit to match everything. */
  matcher?: string;
  hooks: HookCallback[];
  /** Seconds the CLI waits for these hooks. */
  timeout?: number;
  /** When a hook of this matcher fails: go on (`continue`) or treat it as a block (`block`). */
  onFailure?: "continue" | "block";
}

/** Hooks by event. */
export type HookMap = Partial<Record<HookEvent, HookCallbackMatcher[]>>;
