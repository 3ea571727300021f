/**
 * What each backend can do, known without loading the backend itself (see `getBackend`).
 */
import type { Capabilities } from "./backend.js";

/** Claude Code: the full control protocol. */
export const CLAUDE_CAPABILITIES: Capabilities = Object.freeze({
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
});

/** Codex: approvals and interrupts over the app-server; no hooks, no in-process MCP servers. */
export const CODEX_CAPABILITIES: Capabilities = Object.freeze({
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
});

/**
 * What Cursor's print mode offers: no control protocol, so no permission callback, hooks, SDK MCP
 * routing or runtime changes; one process per turn. Interrupting works, by ending the turn's process.
 */
export const CURSOR_CAPABILITIES: Capabilities = Object.freeze({
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
});

/**
 * An Agent Client Protocol agent: one long-lived process and session, permission requests answered
 * by `canUseTool`, `session/cancel` to interrupt. ACP has no hooks, no in-process MCP routing, and no
 * model or permission-mode switch every agent offers. What a particular agent can do beyond this
 * (`session/load`, image prompts, HTTP MCP servers) comes from its `initialize` answer; asking for
 * what it did not declare throws `UnsupportedFeatureError`.
 */
export const ACP_CAPABILITIES: Capabilities = Object.freeze({
  controlProtocol: false,
  toolApproval: true,
  hooks: false,
  sdkMcpRouting: false,
  persistentSession: true,
  warmStart: true,
  interrupt: true,
  runtimeConfigChanges: false,
  modelSwitching: false,
  mcpStatus: false,
});
