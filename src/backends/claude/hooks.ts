/**
 * Hook callback types. Hooks run inside the SDK process when the CLI reaches a lifecycle event
 * (before/after a tool, on stop, …) and can block, rewrite or annotate what happens next.
 */

import type { AnyHookInput, HookEventName, HookInputByEvent, HookSpecificOutput } from "./hook-events.js";

export type * from "./hook-events.js";

/**
 * Every hook event Claude Code 2.1.330 lists in its hook catalog (`get_hooks_listing`), in the
 * official SDK 0.3.330's order (its `HOOK_EVENTS`, which the compat entry re-exports).
 */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PostToolBatch",
  "Notification",
  "UserPromptSubmit",
  "UserPromptExpansion",
  "SessionStart",
  "SessionEnd",
  "Stop",
  "StopFailure",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "PreModelSwitch",
  "PostModelSwitch",
  "PermissionRequest",
  "PermissionDenied",
  "Setup",
  "TeammateIdle",
  "TaskCreated",
  "TaskCompleted",
  "Elicitation",
  "ElicitationResult",
  "ConfigChange",
  "WorktreeCreate",
  "WorktreeRemove",
  "InstructionsLoaded",
  "CwdChanged",
  "FileChanged",
  "DirectoryAdded",
  "MessageDisplay",
] as const;

/** A hook event name. Unknown future names are accepted as strings. */
export type HookEvent = (typeof HOOK_EVENTS)[number] | (string & {});

/**
 * The input of a hook (snake_case, exactly as the CLI sends it): one of the typed inputs of
 * `./hook-events.ts`, discriminated by `hook_event_name`. Fields a later CLI adds are kept.
 */
export type HookInput = AnyHookInput;

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
  /** Written to the terminal when the hook runs in an interactive session. */
  terminalSequence?: string;
  /** The event-specific answer; `hookEventName` must name the event the hook runs for. */
  hookSpecificOutput?: HookSpecificOutput;
}

/** What a hook callback returns. */
export type HookJSONOutput = AsyncHookJSONOutput | SyncHookJSONOutput;

/** Context handed to a hook callback. */
export interface HookContext {
  /** Aborted when the session closes. */
  signal: AbortSignal;
}

/**
 * A hook callback. Throwing reports an error to the CLI; the session continues. Registered under
 * an event in {@link HookMap}, its `input` is that event's typed input.
 */
export type HookCallback<I extends HookInput = HookInput> = (
  input: I,
  toolUseId: string | undefined,
  context: HookContext,
) => Promise<HookJSONOutput> | HookJSONOutput;

/** Which calls of an event a group of hooks applies to. */
export interface HookCallbackMatcher<I extends HookInput = HookInput> {
  /** Tool-name pattern (e.g. `"Bash"`, `"Write|Edit"`). Omit to match everything. */
  matcher?: string;
  hooks: HookCallback<I>[];
  /** Seconds the CLI waits for these hooks. */
  timeout?: number;
  /** When a hook of this matcher fails: go on (`continue`) or treat it as a block (`block`). */
  onFailure?: "continue" | "block";
}

/**
 * Hooks by event. Each known event's callbacks get that event's typed input; an event name this
 * SDK does not know yet is accepted with untyped input.
 */
export type HookMap = { [E in HookEventName]?: HookCallbackMatcher<HookInputByEvent[E]>[] } & {
  [event: string]: HookCallbackMatcher<any>[] | undefined;
};
