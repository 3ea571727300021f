/**
 * One host-safety scenario, run as its own Node process (by host-safety.test.ts) with
 * `--unhandled-rejections=strict`: the process must print its report and then exit 0 on its own —
 * an unhandled rejection kills it, and a timer, socket or listener the SDK left behind keeps it alive.
 *
 * Usage: node --unhandled-rejections=strict --import tsx scenario.mts <scenario>
 * Prints one JSON line: `{ report }`. Nothing is cleaned up by force: what stays alive is the finding.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HookCallback } from "../../../src/backends/claude/index.js";
import { AgentSdkClient, type CanUseTool, type Message, query } from "../../../src/index.js";
import { startFakeAnthropic, startFakeOpenAI } from "../../../src/testing/index.js";

const warnings: string[] = [];
process.on("warning", (warning) => {
  if ((warning as { code?: string }).code?.startsWith("CODE_AGENT_SDK")) warnings.push(warning.message);
});

function deeplyNested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < levels; i++) value = { next: value };
  return value;
}

function circular(): Record<string, unknown> {
  const value: Record<string, unknown> = { command: "true" };
  value.self = value;
  return value;
}

/** The `canUseTool` answers that cannot go over the wire, one per tool call, in this order. */
const unsendable: { name: string; answer: () => Promise<never> | ReturnType<CanUseTool> }[] = [
  { name: "bigint", answer: async () => ({ behavior: "allow", updatedInput: { command: "true", n: 10n } }) },
  { name: "circular", answer: async () => ({ behavior: "allow", updatedInput: circular() }) },
  { name: "deep", answer: async () => ({ behavior: "allow", updatedInput: deeplyNested(100_000) }) },
  { name: "null-prototype rejection", answer: () => Promise.reject(Object.create(null)) },
];

function scratch(): { cwd: string; [Symbol.dispose](): void } {
  const cwd = mkdtempSync(join(tmpdir(), "cas-host-"));
  return { cwd, [Symbol.dispose]: () => rmSync(cwd, { recursive: true, force: true }) };
}

function resultsOf(messages: Message[]): unknown[] {
  return messages.flatMap((m) => (m.type === "result" ? [{ isError: m.isError, result: m.result }] : []));
}

/** Real claude: four tool calls whose answers cannot be serialised, and a hook answering with a BigInt. */
async function claudeCallbacks(): Promise<unknown> {
  await using api = await startFakeAnthropic({
    turns: [
      ...unsendable.map((_, i) => ({
        toolUse: { name: "Bash", input: { command: `touch made-${i}.txt`, description: `call ${i}` } },
      })),
      { text: "still here" },
    ],
  });
  using dir = scratch();
  let calls = 0;
  const hookCalls: string[] = [];
  const bigintHook: HookCallback = async (input) => {
    hookCalls.push(String(input.hook_event_name));
    return { systemMessage: "hook", continue: true, extra: 1n } as never;
  };
  const messages: Message[] = [];
  const q = query({
    prompt: "run the four commands",
    options: {
      cwd: dir.cwd,
      env: api.env(),
      canUseTool: () => unsendable[calls++ % unsendable.length]!.answer(),
      hooks: { UserPromptSubmit: [{ hooks: [bigintHook] }] },
    },
  });
  let pid: number | undefined;
  for await (const m of q) {
    pid ??= q.pid;
    messages.push(m);
  }
  const toolResults = api.turnRequests.slice(1).map((r) => lastToolResult(r.body));
  return { pids: [pid], calls, hookCalls, results: resultsOf(messages), toolResults, warnings };
}

function lastToolResult(body: unknown): string {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const last = messages.at(-1);
  return JSON.stringify(last?.content ?? null);
}

/** Real codex app-server: command approvals answered with unsendable values or an odd rejection. */
async function codexCallbacks(): Promise<unknown> {
  await using api = await startFakeOpenAI({
    turns: [
      ...unsendable.map((_, i) => ({ execCommand: { cmd: `echo approval-${i}` } })),
      { text: "still here" },
    ],
  });
  using dir = scratch();
  let calls = 0;
  const client = new AgentSdkClient({
    backend: "codex",
    cwd: dir.cwd,
    env: api.codexHome().env,
    codex: { approvalPolicy: "untrusted", sandboxMode: "workspace-write" },
    canUseTool: () => unsendable[calls++ % unsendable.length]!.answer(),
  });
  const messages: Message[] = [];
  let pid: number | undefined;
  try {
    await client.connect();
    pid = client.pid;
    await client.query("run the commands");
    for await (const m of client.receiveResponse()) messages.push(m);
  } finally {
    await client.disconnect();
  }
  const approvalErrors = messages.flatMap((m) =>
    m.type === "system" && m.subtype === "codex_approval_error" ? [String(m.data.error)] : [],
  );
  return { pids: [pid], calls, approvalErrors, results: resultsOf(messages), warnings };
}

/** A `canUseTool` that never settles, and the session closed while it waits (Claude). */
async function claudeNeverSettles(): Promise<unknown> {
  await using api = await startFakeAnthropic({
    turns: [
      { toolUse: { name: "Bash", input: { command: "touch x.txt", description: "x" } } },
      { text: "never" },
    ],
  });
  using dir = scratch();
  let asked!: () => void;
  const called = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const q = query({
    prompt: "run it",
    options: {
      cwd: dir.cwd,
      env: api.env(),
      canUseTool: () => {
        asked();
        return new Promise(() => {});
      },
    },
  });
  const draining = (async () => {
    for await (const _ of q) {
      // drain
    }
  })().catch((error: unknown) => String(error));
  await called;
  const pid = q.pid;
  await q.close();
  await draining;
  return { pids: [pid], closed: true };
}

/** The same on the Codex approval path, closed with `disconnect()`. */
async function codexNeverSettles(): Promise<unknown> {
  await using api = await startFakeOpenAI({ turns: [{ execCommand: { cmd: "true" } }, { text: "never" }] });
  using dir = scratch();
  let asked!: () => void;
  const called = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const client = new AgentSdkClient({
    backend: "codex",
    cwd: dir.cwd,
    env: api.codexHome().env,
    codex: { approvalPolicy: "untrusted", sandboxMode: "workspace-write" },
    canUseTool: () => {
      asked();
      return new Promise(() => {});
    },
  });
  await client.connect();
  const pid = client.pid;
  await client.query("run it");
  await called;
  await client.disconnect();
  return { pids: [pid], closed: true };
}

const scenarios: Record<string, () => Promise<unknown>> = {
  "claude-callbacks": claudeCallbacks,
  "codex-callbacks": codexCallbacks,
  "claude-never-settles": claudeNeverSettles,
  "codex-never-settles": codexNeverSettles,
};

const name = process.argv[2] ?? "";
const scenario = scenarios[name];
if (!scenario) throw new Error(`unknown scenario ${name}`);
const started = performance.now();
const report = await scenario();
process.stdout.write(`${JSON.stringify({ report, ms: Math.round(performance.now() - started) })}\n`);
