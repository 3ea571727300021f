/**
 * In-process MCP tools: a calculator whose handlers run in this Node process. The CLI reaches them
 * over the control protocol — no subprocess, no port.
 *   npx tsx examples/mcp-calculator.ts
 */
import { z } from "zod";
import { createSdkMcpServer, query, tool } from "../src/index.js";

const calculator = createSdkMcpServer({
  name: "calculator",
  version: "1.0.0",
  tools: [
    tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
      content: [{ type: "text", text: String(a + b) }],
    })),
    tool("divide", "Divide a by b", { a: z.number(), b: z.number() }, async ({ a, b }) => {
      // A thrown error reaches the model as an isError tool result; the session goes on.
      if (b === 0) throw new Error("Division by zero");
      return { content: [{ type: "text", text: String(a / b) }] };
    }),
  ],
});

for await (const message of query({
  prompt: "What is (12 + 30) / 6? Use the calculator tools.",
  options: {
    mcpServers: { calculator },
    allowedTools: ["mcp__calculator__add", "mcp__calculator__divide"],
  },
})) {
  if (message.type === "assistant") {
    for (const block of message.content) {
      if (block.type === "tool_use") console.log(`tool call: ${block.name} ${JSON.stringify(block.input)}`);
      if (block.type === "text") console.log(block.text);
    }
  }
  if (message.type === "result") console.log(`done: ${message.isError ? "failed" : "ok"}`);
}
