/**
 * Data exports of `@anthropic-ai/claude-agent-sdk` 0.3.330, re-created value for value (tables of
 * names and message prefixes Claude Code 2.1.330 uses; no behaviour).
 */
import { HOOK_EVENTS as CORE_HOOK_EVENTS } from "../../backends/claude/hooks.js";

/** The names of Claude Code's built-in tools (as 0.3.330 lists them). */
export const BUILTIN_TOOL_NAMES = Object.freeze([
  "Agent",
  "Artifact",
  "AskUserQuestion",
  "Bash",
  "ClaudeDesign",
  "CronCreate",
  "CronDelete",
  "CronList",
  "Edit",
  "EndConversation",
  "EnterPlanMode",
  "EnterWorktree",
  "ExitPlanMode",
  "ExitWorktree",
  "Glob",
  "Grep",
  "ListAgents",
  "ListMcpResourcesTool",
  "LSP",
  "Monitor",
  "NotebookEdit",
  "OfferChromeSetup",
  "PowerShell",
  "Projects",
  "propose_skills",
  "PushNotification",
  "Read",
  "ReadMcpResourceDirTool",
  "ReadMcpResourceTool",
  "ReadNotifications",
  "RemoteTrigger",
  "ReportFindings",
  "ScheduleWakeup",
  "SendFeedback",
  "SendMessage",
  "SendUserFile",
  "SendUserMessage",
  "SetGoal",
  "ShareOnboardingGuide",
  "ShowOnboardingRolePicker",
  "Skill",
  "SubagentHandback",
  "TaskCreate",
  "TaskGet",
  "TaskList",
  "TaskStop",
  "TaskUpdate",
  "TodoWrite",
  "ToolSearch",
  "WaitForMcpServers",
  "WebFetch",
  "WebSearch",
  "Workflow",
  "Write",
] as const);

/** Why a session ended (`SessionEnd` hook `reason`). */
export const EXIT_REASONS = Object.freeze([
  "clear",
  "resume",
  "logout",
  "prompt_input_exit",
  "other",
] as const);

/**
 * Former tool names that permission rules, hook matchers, `tools` and `disallowedTools` still
 * accept, each mapped to the tool's current name.
 */
export const LEGACY_TOOL_NAME_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  Task: "Agent",
  KillShell: "TaskStop",
  KillBash: "TaskStop",
  ListPeers: "ListAgents",
  Brief: "SendUserMessage",
  ListMcpResources: "ListMcpResourcesTool",
  ReadMcpResource: "ReadMcpResourceTool",
  ReadMcpResourceDir: "ReadMcpResourceDirTool",
  ProposeGoal: "SetGoal",
});

/** Prefixes of the API error text that means the organisation's policy refuses the request. */
export const ORG_POLICY_LIMIT_PREFIXES = Object.freeze(["This service is disabled for your org"] as const);

/**
 * A standalone element of a `systemPrompt` array marking where the static (cacheable) part of the
 * prompt ends and the per-session part begins.
 */
export const SYSTEM_PROMPT_DYNAMIC_BOUNDARY = "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__";

/** Prefixes of the text of an assistant message that reports a usage limit. */
export const USAGE_LIMIT_ERROR_PREFIXES = Object.freeze([
  "You've hit your",
  "You've reached your",
  "You're out of usage credits",
  "Your org is out of usage · add funds to continue",
  "Your org is out of usage · contact your admin",
  "Your seat type doesn't include usage credits",
  "Your seat type doesn't include usage",
  "Your usage allocation has been disabled by your admin",
  "Your group's usage limit is set to $0",
  "Fable 5 requires usage credits",
  "You're out of extra usage",
  "Your seat type doesn't include extra usage",
] as const);

/** Prefixes of the text that reports a switch to usage credits or another allocation. */
export const USAGE_TRANSITION_PREFIXES = Object.freeze([
  "You're now using usage credits",
  "You're now using your usage allocation",
  "Now using your usage allocation",
  "Now using usage credits",
  "Now using credits",
  "You're now using extra usage",
  "Now using extra usage",
] as const);

/** Prefixes of the text that warns of an approaching usage limit. */
export const USAGE_WARNING_PREFIXES = Object.freeze(["You've used", "You're close to"] as const);

/** Every hook event, in the official SDK's order (the Claude backend's list). */
export const HOOK_EVENTS = Object.freeze([...CORE_HOOK_EVENTS] as const);
