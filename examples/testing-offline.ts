/**
 * Testing your agent code offline: the real CLI against a scripted model, no key, no tokens.
 *   npx tsx examples/testing-offline.ts
 */
import { query } from "../src/index.js";
import { startFakeAnthropic } from "../src/testing/index.js";

await using model = await startFakeAnthropic({
  turns: [
    { toolUse: { name: "Bash", input: { command: "echo from-the-tool", description: "echo" } } },
    (request) => ({
      text: JSON.stringify(request.body.messages).includes("from-the-tool") ? "saw it" : "missed it",
    }),
  ],
});

for await (const message of query({ prompt: "run echo", options: { env: model.env() } })) {
  if (message.type === "result") console.log(`agent said: ${message.result}`);
}
console.log(`the CLI made ${model.turnRequests.length} model calls`);
if (model.turnRequests.length !== 2) process.exit(1);
