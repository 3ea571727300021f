/**
 * Tool selection: which built-in tools exist (`tools`), which run without asking (`allowedTools`),
 * and which are forbidden (`disallowedTools`). The init message lists what the agent got.
 *   npx tsx examples/tools-option.ts
 */
import { query } from "../src/index.js";

for await (const message of query({
  prompt: "List the files here.",
  options: {
    tools: ["Read", "Glob", "Grep"],
    allowedTools: ["Read"],
    disallowedTools: ["Bash"],
    maxTurns: 2,
  },
})) {
  if (message.type === "system" && message.subtype === "init") {
    console.log(`tools available: ${JSON.stringify(message.data.tools)}`);
  }
  if (message.type === "result") console.log(`result: ${message.result}`);
}
