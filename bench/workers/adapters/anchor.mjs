/**
 * The anchors: the official SDKs, pointed at the same fake CLI. Each is imported only when a
 * worker asks for it, so neither weighs on the other implementations' trials.
 *
 * - Claude: `pathToClaudeCodeExecutable` takes a native executable and spawns it directly (only
 *   paths ending in .js/.mjs/.ts/.tsx/.jsx are run through node or bun).
 * - Codex: `codexPathOverride` is spawned as `<path> exec --experimental-json …`; the prompt goes
 *   to stdin, which the SDK then closes.
 */
import { newCount, seeAssistant } from "./count.mjs";

/** Imports the official SDK for `backend` (outside any timed region) and returns its runner. */
export async function load(backend) {
  if (backend === "claude") {
    const { query } = await import("@anthropic-ai/claude-agent-sdk");
    return (params) => claude(query, params);
  }
  const { Codex } = await import("@openai/codex-sdk");
  return (params) => codex(Codex, params);
}

async function claude(query, { cli, prompt, canUseTool }) {
  const count = newCount();
  const options = { pathToClaudeCodeExecutable: cli, ...(canUseTool ? { canUseTool } : {}) };
  for await (const message of query({ prompt, options })) {
    if (message.type === "assistant") {
      const block = message.message.content[0];
      seeAssistant(count, block?.type === "text" ? block.text.length : 0);
    } else {
      count.other += 1;
    }
  }
  return count;
}

async function codex(Codex, { cli, prompt }) {
  const count = newCount();
  const thread = new Codex({ codexPathOverride: cli }).startThread({ skipGitRepoCheck: true });
  const { events } = await thread.runStreamed(prompt);
  for await (const event of events) {
    if (event.type === "item.completed" && event.item.type === "agent_message") {
      seeAssistant(count, event.item.text.length);
    } else {
      count.other += 1;
    }
  }
  return count;
}
