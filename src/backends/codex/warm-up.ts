/**
 * The Codex backend's warm-up (see src/startup/precompile.ts): one `codex exec --json` turn (the
 * path of a one-shot query) answered in memory, plus the argument builder a spawn runs.
 */
import { runWarmUpTurn, type WarmUpScript } from "../../startup/precompile.js";
import type { Backend } from "../backend.js";
import { buildExecArgs } from "./command.js";

/** Once the prompt is in (end of input): a thread, a turn, one agent message, the turn's end. */
const CODEX_EXEC_SCRIPT: WarmUpScript = {
  onEndInput: () => [
    { type: "thread.started", thread_id: "00000000-0000-7000-8000-000000000000" },
    { type: "turn.started" },
    { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "ok" } },
    { type: "turn.completed", usage: { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0 } },
  ],
};

/** Warms the Codex backend up: no process, no file, no output. */
export async function warmUpCodex(backend: Backend): Promise<void> {
  const options = { backend: "codex" as const, cliPath: "codex", model: "warm-up" };
  buildExecArgs(options);
  await runWarmUpTurn(backend, CODEX_EXEC_SCRIPT, options);
}
