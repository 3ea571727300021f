/**
 * Hooks: run code at lifecycle events. This one blocks `rm -rf` and logs every tool call.
 *   npx tsx examples/hooks.ts
 */
import type { HookCallback, PreToolUseHookInput } from "../src/backends/claude/index.js";
import { query } from "../src/index.js";

const guardShell: HookCallback<PreToolUseHookInput> = async (input) => {
  const command = String(input.tool_input.command ?? "");
  if (/\brm\s+-rf\b/.test(command)) {
    return {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "rm -rf is not allowed in this project",
      },
    };
  }
  return {};
};

const logTool: HookCallback = async (input) => {
  console.log(`[hook] ${input.hook_event_name}: ${String(input.tool_name)}`);
  return {};
};

for await (const message of query({
  prompt: "Clean up the build directory.",
  options: {
    hooks: {
      PreToolUse: [{ matcher: "Bash", hooks: [guardShell] }],
      PostToolUse: [{ hooks: [logTool] }],
    },
  },
})) {
  if (message.type === "result") console.log(`result: ${message.result}`);
}
