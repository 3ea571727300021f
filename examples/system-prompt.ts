/**
 * System prompts: replace the prompt entirely, or keep Claude Code's preset and append to it.
 *   npx tsx examples/system-prompt.ts
 */
import { query } from "../src/index.js";

const pirate = query({
  prompt: "Say hello.",
  options: { systemPrompt: "You are a pirate. Answer in one short sentence.", maxTurns: 1 },
});
for await (const message of pirate) if (message.type === "result") console.log(`custom: ${message.result}`);

const preset = query({
  prompt: "Say hello.",
  options: {
    systemPrompt: { type: "preset", preset: "claude_code", append: "Always end with a haiku." },
    maxTurns: 1,
  },
});
for await (const message of preset)
  if (message.type === "result") console.log(`preset+append: ${message.result}`);
