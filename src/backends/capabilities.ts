/**
 * What each backend can do, known without loading the backend itself (see `getBackend`).
 */
import type { Capabilities } from "./backend.js";

/** Claude Code: the full control protocol; `canUseTool` sees every tool call (a `PreToolUse` hook asks). */
export const CLAUDE_CAPABILITIES = Object.freeze({
  controlProtocol: true,
  toolApproval: true,
  hooks: true,
  sdkMcpRouting: true,
  persistentSession: true,
  warmStart: true,
  interrupt: true,
  runtimeConfigChanges: true,
  modelSwitching: true,
  mcpStatus: true,
  toolPolicy: "every-call",
} as const satisfies Capabilities);

/**
 * Codex: approvals and interrupts over the app-server; no hooks, no in-process MCP servers. With
 * `canUseTool` the approval policy is `untrusted` (the one that asks most): commands and patches are
 * asked (0.169 asks even `ls` and `cat`), but an MCP tool call runs without asking unless its
 * server's `default_tools_approval_mode` is `"prompt"` (`codex.config`): `toolPolicy` is `"asked-calls"`.
 */
export const CODEX_CAPABILITIES = Object.freeze({
  controlProtocol: false,
  toolApproval: true,
  hooks: false,
  sdkMcpRouting: false,
  persistentSession: true,
  warmStart: true,
  interrupt: true,
  runtimeConfigChanges: false,
  modelSwitching: true,
  mcpStatus: true,
  toolPolicy: "asked-calls",
} as const satisfies Capabilities);

/**
 * What Cursor's print mode offers: no control protocol, so no permission callback, hooks, SDK MCP
 * routing or runtime changes (`toolPolicy` `"none"`); one process per turn. Interrupting works, by
 * ending the turn's process.
 */
export const CURSOR_CAPABILITIES = Object.freeze({
  controlProtocol: false,
  toolApproval: false,
  hooks: false,
  sdkMcpRouting: false,
  persistentSession: false,
  warmStart: false,
  interrupt: true,
  runtimeConfigChanges: false,
  modelSwitching: false,
  mcpStatus: false,
  toolPolicy: "none",
} as const satisfies Capabilities);

/**
 * An Agent Client Protocol agent: one long-lived process and session, permission requests answered
 * by `canUseTool` (and the client side's `terminal/create` and fs writes), `session/cancel` to
 * interrupt. What the agent runs itself without a permission request escapes `canUseTool`
 * (`toolPolicy` `"asked-calls"`). ACP has no hooks and no in-process MCP routing. `setModel` and
 * `setPermissionMode` go through the agent's session config options (category `model` / `mode`), else
 * `session/set_model` / `session/set_mode`, so they work where the agent offers them (most do;
 * `serverInfo().controls` says for the session) and throw `UnsupportedFeatureError` naming the agent
 * where it does not; `setMaxThinkingTokens` is never supported. What else a particular agent can do
 * (`session/load` or `session/resume`, `session/close`, image prompts, HTTP MCP servers) comes from
 * its `initialize` answer; asking for what it did not declare throws `UnsupportedFeatureError`.
 */
export const ACP_CAPABILITIES = Object.freeze({
  controlProtocol: false,
  toolApproval: true,
  hooks: false,
  sdkMcpRouting: false,
  persistentSession: true,
  warmStart: true,
  interrupt: true,
  runtimeConfigChanges: true,
  modelSwitching: true,
  mcpStatus: false,
  toolPolicy: "asked-calls",
} as const satisfies Capabilities);
