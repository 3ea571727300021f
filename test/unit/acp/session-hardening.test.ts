/**
 * ACP session hardening (issue 25, item 1's ACP part and the ACP debatable items), against the
 * stand-in agent (test/fixtures/acp/fake-acp-agent.mjs):
 * - `canUseTool` failing with any value: the agent gets the reject option, the failure is reported
 *   in-band (`acp_permission_error`, as Codex's `codex_approval_error`), never a JSON-RPC error;
 * - an agent answering `initialize` with a protocol version we do not speak is refused;
 * - `session/update`s (and permission requests) for another session id are dropped and reported.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type AcpAgentOptions,
  type CanUseTool,
  CliConnectionError,
  type Message,
  query,
} from "../../../src/index.js";
import { liveGroupCount } from "../../../src/process/group-registry.js";

const FAKE = fileURLToPath(new URL("../../fixtures/acp/fake-acp-agent.mjs", import.meta.url));
let dir: string;
let agent: string;
let runs = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cas-acp-hardening-"));
  agent = join(dir, "fake-acp-agent");
  writeFileSync(agent, `#!${process.execPath}\nimport(${JSON.stringify(pathToFileURL(FAKE).href)});\n`);
  chmodSync(agent, 0o755);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  expect(liveGroupCount()).toBe(0);
});

function fake(fault: string, extra: Omit<AcpAgentOptions, "backend"> = {}): AcpAgentOptions {
  const run = join(dir, `run-${++runs}`);
  mkdirSync(run);
  return {
    backend: "acp",
    cwd: run,
    ...extra,
    acp: { command: agent, ...extra.acp },
    env: { FAKE_ACP_FAULT: fault, FAKE_ACP_GRANDCHILD: "none", ...extra.env },
  };
}

async function drain(messages: AsyncIterable<Message>): Promise<{ messages: Message[]; error: unknown }> {
  const seen: Message[] = [];
  try {
    for await (const m of messages) seen.push(m);
    return { messages: seen, error: undefined };
  } catch (error) {
    return { messages: seen, error };
  }
}

function systems(messages: Message[], subtype: string): Record<string, unknown>[] {
  return messages.flatMap((m) => (m.type === "system" && m.subtype === subtype ? [m.data] : []));
}

function circular(): Record<string, unknown> {
  const value: Record<string, unknown> = { a: 1 };
  value.self = value;
  return value;
}

const unprintable = {
  toString() {
    throw new Error("toString throws");
  },
};

/** How `canUseTool` fails, and what the report must say. */
const failures: { name: string; canUseTool: CanUseTool; report: RegExp }[] = [
  {
    name: "rejects with a null-prototype object",
    canUseTool: () => Promise.reject(Object.create(null)),
    report: /non-Error value: an unprintable prototype-less object value/,
  },
  {
    name: "throws a null-prototype object",
    canUseTool: () => {
      throw Object.create(null);
    },
    report: /non-Error value: an unprintable prototype-less object value/,
  },
  {
    name: "rejects with an object whose toString throws",
    canUseTool: () => Promise.reject(unprintable),
    report: /non-Error value: an unprintable Object value/,
  },
  { name: "rejects with a BigInt", canUseTool: () => Promise.reject(10n), report: /non-Error value: 10$/ },
  {
    name: "rejects with a circular object",
    canUseTool: () => Promise.reject(circular()),
    report: /non-Error value: \[object Object\]/,
  },
  {
    name: "rejects with undefined",
    canUseTool: () => Promise.reject(undefined),
    report: /non-Error value: undefined/,
  },
  {
    name: "resolves with a null-prototype object",
    canUseTool: async () => Object.create(null),
    report: /neither allow nor deny: \{\}/,
  },
  {
    name: "resolves with an answer whose behavior getter throws",
    canUseTool: async () =>
      ({
        get behavior(): string {
          throw Object.create(null);
        },
      }) as never,
    report: /Reading the canUseTool answer failed: an unprintable prototype-less object value/,
  },
];

describe("canUseTool failing with an odd value (item 1, ACP)", () => {
  for (const failure of failures) {
    it(`${failure.name}: the agent gets the reject option; the failure is reported in-band`, async () => {
      const prompt = JSON.stringify({ subject: "touch x", input: {} });
      const { messages, error } = await drain(
        query({ prompt, options: fake("callback", { canUseTool: failure.canUseTool }) }),
      );
      expect(error).toBeUndefined();
      const result = messages.find((m) => m.type === "result");
      // The agent says back what it got: the reject option, not a JSON-RPC error.
      expect(result?.type === "result" && JSON.parse(result.result ?? "{}")).toEqual({
        result: { outcome: { outcome: "selected", optionId: "cancel" } },
      });
      const [report] = systems(messages, "acp_permission_error");
      expect(report).toMatchObject({ tool_use_id: expect.any(String), answer: "cancel" });
      expect(String(report?.error)).toMatch(failure.report);
    });
  }
});

describe("initialize answered with another protocol version (debatable item)", () => {
  for (const [version, shown] of [
    ["2", "2"],
    ['"1"', '"1"'],
    ["none", "undefined"],
  ] as const) {
    it(`protocolVersion ${shown}: refused with CliConnectionError before any session; the agent is stopped`, async () => {
      const { messages, error } = await drain(
        query({ prompt: "hi", options: fake("ok", { env: { FAKE_ACP_PROTOCOL_VERSION: version } }) }),
      );
      expect(error).toBeInstanceOf(CliConnectionError);
      expect((error as Error).message).toContain(
        `ACP protocol version ${shown}; code-agent-sdk speaks version 1 only`,
      );
      expect(messages).toEqual([]);
    });
  }
});

describe("session/update for another session id (debatable item)", () => {
  it("is dropped and reported (acp_foreign_update), before and after the session/new answer; a permission request for another session is refused unasked", async () => {
    const asked: string[] = [];
    const { messages, error } = await drain(
      query({
        prompt: "hi",
        options: fake("foreign-session", {
          canUseTool: async (name) => {
            asked.push(name);
            return { behavior: "allow" };
          },
        }),
      }),
    );
    expect(error).toBeUndefined();
    const init = messages[0];
    expect(init?.type === "system" && init.subtype).toBe("init");
    const sessionId = init?.sessionId;
    // Nothing of another session reached the caller as this session's.
    const texts = messages.flatMap((m) =>
      m.type === "assistant" ? m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])) : [],
    );
    expect(texts.join("")).not.toMatch(/not yours|nobody's/);
    // The early update for this session (sent before the session/new answer) is delivered.
    expect(systems(messages, "acp_current_mode_update")).toEqual([
      expect.objectContaining({ currentModeId: "early-mine", session_id: sessionId }),
    ]);
    expect(
      systems(messages, "acp_foreign_update").map((d) => [d.update_session_id, d.session_update, d.answer]),
    ).toEqual([
      ["elsewhere", "current_mode_update", "dropped"],
      ["elsewhere", "agent_message_chunk", "dropped"],
      [null, "agent_message_chunk", "dropped"],
    ]);
    // Nobody here may allow another session's tool call: the reject option, canUseTool never asked.
    expect(asked).toEqual([]);
    expect(JSON.parse(texts.at(-1) ?? "{}")).toEqual({
      outcome: { outcome: "selected", optionId: "cancel" },
    });
    const [refusal] = systems(messages, "acp_permission_error");
    expect(refusal).toMatchObject({ tool_use_id: "theirs", answer: "cancel" });
    expect(String(refusal?.error)).toContain('for session "elsewhere"');
  });
});

describe("output before the session is ready (nothing can read it yet)", () => {
  it("more than maxReaderLagBytes before the session/new answer: CliConnectionError, the agent is stopped, nothing is kept", async () => {
    const { messages, error } = await drain(
      query({
        prompt: "hi",
        options: fake("flood-before-session", {
          maxReaderLagBytes: 1024 * 1024,
          env: { FAKE_ACP_EARLY_BYTES: String(8 * 1024 * 1024) },
        }),
      }),
    );
    expect(error).toBeInstanceOf(CliConnectionError);
    expect((error as Error).message).toMatch(
      /more than maxReaderLagBytes \(1048576 bytes\) before its session was ready/,
    );
    expect(messages).toEqual([]);
  });

  it("within maxReaderLagBytes: delivered after init, in order", async () => {
    const { messages, error } = await drain(
      query({
        prompt: "hi",
        options: fake("flood-before-session", { env: { FAKE_ACP_EARLY_BYTES: String(64 * 1024) } }),
      }),
    );
    expect(error).toBeUndefined();
    expect(messages[0]?.type === "system" && messages[0].subtype).toBe("init");
    expect(messages.filter((m) => m.type === "assistant").length).toBeGreaterThan(60);
    expect(messages.at(-1)?.type).toBe("result");
  });
});

describe("an allow with updatedInput (ACP's answer is an option id: the agent runs what it asked about)", () => {
  const cases: { name: string; canUseTool: CanUseTool; option: string; report?: RegExp }[] = [
    {
      name: "the same input object",
      canUseTool: async (_name, input) => ({ behavior: "allow", updatedInput: input }),
      option: "proceed_once",
    },
    {
      name: "an equal copy, keys in another order",
      canUseTool: async (_name, input) => ({
        behavior: "allow",
        updatedInput: Object.fromEntries(Object.entries(input).reverse()),
      }),
      option: "proceed_once",
    },
    {
      name: "a changed input",
      canUseTool: async (_name, input) => ({
        behavior: "allow",
        updatedInput: { ...input, subject: "rm -rf ~" },
      }),
      option: "cancel",
      report: /ACP cannot run a tool with a changed input \(updatedInput\)/,
    },
    {
      name: "an input with a BigInt",
      canUseTool: async (_name, input) => ({ behavior: "allow", updatedInput: { ...input, n: 10n } }),
      option: "cancel",
      report: /updatedInput of canUseTool cannot be read: it contains a BigInt/,
    },
    {
      name: "a circular input",
      canUseTool: async () => ({ behavior: "allow", updatedInput: circular() }),
      option: "cancel",
      report: /updatedInput of canUseTool cannot be read: it contains a circular reference/,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.option === "cancel" ? "refused (reject option) and reported" : "allowed"}`, async () => {
      const prompt = JSON.stringify({ subject: "touch x", input: { flag: true } });
      const { messages, error } = await drain(
        query({ prompt, options: fake("callback", { canUseTool: c.canUseTool }) }),
      );
      expect(error).toBeUndefined();
      const result = messages.find((m) => m.type === "result");
      expect(result?.type === "result" && JSON.parse(result.result ?? "{}")).toEqual({
        result: { outcome: { outcome: "selected", optionId: c.option } },
      });
      const reports = systems(messages, "acp_permission_error");
      if (c.report === undefined) expect(reports).toEqual([]);
      else expect(String(reports[0]?.error)).toMatch(c.report);
    });
  }
});
