/**
 * The Claude backend's warm-up (see src/startup/precompile.ts): one turn of stream-json with the
 * control handshake, answered in memory, plus the argument and environment builders a spawn runs.
 */
import { runWarmUpTurn, type WarmUpScript } from "../../startup/precompile.js";
import { SDK_VERSION } from "../../version.js";
import type { Backend } from "../backend.js";
import { buildClaudeArgs } from "./command.js";
import { buildClaudeEnv } from "./env.js";

const SESSION_ID = "warm-up";

/** Answers `initialize`, then one user message with init, one assistant message and the result. */
const CLAUDE_SCRIPT: WarmUpScript = {
  onWrite(message) {
    if (message.type === "control_request") {
      return [
        {
          type: "control_response",
          response: {
            subtype: "success",
            request_id: message.request_id,
            response: { commands: [], models: [] },
          },
        },
      ];
    }
    if (message.type !== "user") return [];
    return [
      { type: "system", subtype: "init", cwd: "/", session_id: SESSION_ID, tools: [], model: "warm-up" },
      {
        type: "assistant",
        message: {
          id: "msg_warm_up",
          role: "assistant",
          model: "warm-up",
          content: [{ type: "text", text: "ok" }],
        },
        parent_tool_use_id: null,
        session_id: SESSION_ID,
      },
      {
        type: "result",
        subtype: "success",
        is_error: false,
        duration_ms: 0,
        duration_api_ms: 0,
        num_turns: 1,
        result: "ok",
        stop_reason: "end_turn",
        session_id: SESSION_ID,
        total_cost_usd: 0,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    ];
  },
};

/** Warms the Claude backend up: no process, no file, no output. */
export async function warmUpClaude(backend: Backend): Promise<void> {
  const options = { cliPath: "claude", model: "warm-up" };
  buildClaudeArgs(options, { sdkMcpServerNames: [], files: null });
  buildClaudeEnv({}, SDK_VERSION);
  await runWarmUpTurn(backend, CLAUDE_SCRIPT, options);
}
