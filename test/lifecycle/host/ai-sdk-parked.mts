/**
 * An AI SDK call that ends on a tool approval, in a host of its own (ai-sdk-parked.test.ts), run with
 * `--unhandled-rejections=strict`: the claude CLI waits, parked, for an answer the program never
 * gives; the fake model server is closed. The host must print its report and exit 0 by itself well
 * before `callbackTimeoutMs` (10 minutes by default): a parked turn must not keep it alive, and the
 * CLI must be ended at exit.
 *
 * Usage: node --unhandled-rejections=strict --import tsx ai-sdk-parked.mts <workspace dir>
 */
import { createCodeAgent } from "../../../src/ai-sdk/index.js";
import { startFakeAnthropic } from "../../../src/testing/index.js";
import { ai } from "../../ai-sdk/ai-version.js";
import { liveChildren } from "../support/processes.js";

const cwd = process.argv[2] ?? "";
const model = await startFakeAnthropic({
  turns: [{ toolUse: { name: "Bash", input: { command: "touch never.txt", description: "make a file" } } }],
});
const agent = createCodeAgent();
const first = await ai.generateText({
  model: agent("claude", { cwd, env: model.env(), toolApproval: "ai-sdk" }),
  prompt: "make a file",
});
const request = first.content.find((p) => p.type === "tool-approval-request");
await model.close();
// The waiting CLI, for the test to check it is gone after the host's exit.
console.log(
  JSON.stringify({
    finishReason: first.finishReason,
    asked: request !== undefined,
    children: liveChildren(),
  }),
);
