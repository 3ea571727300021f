/**
 * ACP `canUseTool` failures in a host of their own (acp-host.test.ts), run with
 * `--unhandled-rejections=strict`: one session on the stand-in agent
 * (test/fixtures/acp/fake-acp-agent.mjs, `callback` fault) whose callback fails with a different
 * odd value each turn, then a turn whose callback never settles, closed while it waits. The process
 * must print its report and exit 0 by itself: an unhandled rejection kills it, a timer or listener
 * left behind keeps it alive.
 *
 * Usage: node --unhandled-rejections=strict --import tsx acp-callbacks.mts <agent launcher>
 */
import { AgentSdkClient, type CanUseTool, type Message } from "../../../src/index.js";

const agent = process.argv[2] ?? "";
const circular: Record<string, unknown> = { a: 1 };
circular.self = circular;
const failures: CanUseTool[] = [
  () => Promise.reject(Object.create(null)),
  () => {
    throw Object.create(null);
  },
  () => Promise.reject(10n),
  () => Promise.reject(circular),
  () => Promise.reject(undefined),
  async () => Object.create(null),
  async () => ({ behavior: "allow", updatedInput: { n: 10n } }),
];
let turn = 0;
let asked!: () => void;
const neverAsked = new Promise<void>((resolve) => {
  asked = resolve;
});
const client = new AgentSdkClient({
  backend: "acp",
  acp: { command: agent },
  env: { FAKE_ACP_FAULT: "callback", FAKE_ACP_GRANDCHILD: "none" },
  canUseTool: (name, input, ctx) => {
    const failure = failures[turn];
    if (failure) return failure(name, input, ctx);
    asked();
    return new Promise(() => {});
  },
});
const answers: unknown[] = [];
const reports: string[] = [];
await client.connect();
const pid = client.pid;
for (turn = 0; turn < failures.length; turn++) {
  await client.query(JSON.stringify({ subject: `turn ${turn}`, input: {} }));
  for await (const m of client.receiveResponse() as AsyncIterable<Message>) {
    if (m.type === "result") answers.push(JSON.parse(m.result ?? "null"));
    if (m.type === "system" && m.subtype === "acp_permission_error") reports.push(String(m.data.error));
  }
}
// The last turn's callback never settles: the session is closed while it waits.
await client.query(JSON.stringify({ subject: "never", input: {} }));
await neverAsked;
await client.disconnect();
process.stdout.write(`${JSON.stringify({ pid, answers, reports })}\n`);
