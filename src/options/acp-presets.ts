/**
 * The names of the ACP agents the backend knows how to start (`acp.agent`): the one list the option
 * type, the option schema, the ACP backend's messages, the AI SDK's model ids and the `code-agent`
 * command's `--agent` all read.
 */
export const ACP_AGENT_PRESETS = [
  "gemini",
  "qwen",
  "opencode",
  "copilot",
  "kilo",
  "cline",
  "droid",
  "codebuddy",
  "kimi",
  "claude-code-acp",
  "codex-acp",
] as const;
