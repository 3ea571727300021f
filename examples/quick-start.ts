/**
 * Quick start: one prompt, the streamed answer, the final result.
 *   npx tsx examples/quick-start.ts
 */
import { query, textOf } from "../src/index.js";

for await (const message of query({ prompt: "What is 2 + 2?", options: { maxTurns: 1 } })) {
  if (message.type === "assistant") console.log("assistant:", textOf(message));
  if (message.type === "result") {
    console.log(`result: ${message.isError ? "failed" : message.result} (${message.durationMs} ms)`);
  }
}
