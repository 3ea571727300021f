/**
 * Tool-permission callback types (`canUseTool`). Shapes follow the Claude Code control protocol;
 * other backends map their approval requests onto the same callback.
 */

/** A permission rule, e.g. `{ toolName: "Bash", ruleContent: "npm test" }`. */
export interface PermissionRuleValue {
  toolName: string;
  ruleContent?: string;
}

/** Where a permission update is stored. */
export type PermissionUpdateDestination =
  | "userSettings"
  | "projectSettings"
  | "localSettings"
  | "session"
  | "cliArg";

/** A change to the permission state, suggested by the CLI or returned by the callback. */
export type PermissionUpdate =
  | {
      type: "addRules" | "replaceRules" | "removeRules";
      rules: PermissionRuleValue[];
      behavior: "allow" | "deny" | "ask";
      destination: PermissionUpdateDestination;
    }
  | { type: "setMode"; mode: PermissionMode; destination: PermissionUpdateDestination }
  | {
      type: "addDirectories" | "removeDirectories";
      directories: string[];
      destination: PermissionUpdateDestination;
    };

/** Claude Code permission modes. */
export type PermissionMode = "default" | "acceptEdits" | "bypassPermissions" | "plan" | "dontAsk" | "auto";

/** Allow the tool call, optionally with rewritten input and permission updates. */
export interface PermissionResultAllow {
  behavior: "allow";
  /** Replaces the tool input. Omit to keep the input as the model sent it. */
  updatedInput?: Record<string, unknown>;
  /** Permission updates to apply (e.g. one of `context.suggestions`, to remember the decision). */
  updatedPermissions?: PermissionUpdate[];
}

/** Deny the tool call. With `interrupt: true` the whole turn stops. */
export interface PermissionResultDeny {
  behavior: "deny";
  /** Why; the model sees this. */
  message: string;
  interrupt?: boolean;
}

/** What a `canUseTool` callback returns. */
export type PermissionResult = PermissionResultAllow | PermissionResultDeny;

/** Context handed to `canUseTool`. */
export interface ToolPermissionContext {
  /** Aborted when the session closes or the request is cancelled. */
  signal: AbortSignal;
  /** Permission updates the CLI suggests (e.g. "always allow this command"). */
  suggestions: PermissionUpdate[];
  /** The id of the tool call being decided. */
  toolUseId?: string | undefined;
  /** The path that triggered the prompt, when one did. */
  blockedPath?: string | undefined;
  /** Human-readable description of the call, when the CLI gave one. */
  description?: string | undefined;
  /** For MCP tools: the server the tool belongs to. */
  mcpServer?: { name: string; source?: string } | undefined;
  /** The id of the backend's permission request (Claude: the control request id), when it has one. */
  requestId?: string | undefined;
  /** The full request as the backend sent it. */
  raw: Record<string, unknown>;
}

/** Decides whether the agent may run a tool. Throwing denies the call with the error's message. */
export type CanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  context: ToolPermissionContext,
) => Promise<PermissionResult> | PermissionResult;
