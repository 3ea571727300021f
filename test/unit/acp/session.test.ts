/**
 * ACP session behaviour against the stand-in agent (test/fixtures/acp/fake-acp-agent.mjs): what the
 * lifecycle matrix does not cover for this backend.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type AcpAgentOptions,
  AgentSdkClient,
  ControlTimeoutError,
  type Message,
  ProcessError,
  query,
  UnsupportedFeatureError,
} from "../../../src/index.js";
import { liveGroupCount } from "../../../src/process/group-registry.js";

const FAKE = fileURLToPath(new URL("../../fixtures/acp/fake-acp-agent.mjs", import.meta.url));
let dir: string;
let agent: string;
let runs = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cas-acp-session-"));
  agent = join(dir, "fake-acp-agent");
  writeFileSync(agent, `#!${process.execPath}\nimport(${JSON.stringify(pathToFileURL(FAKE).href)});\n`);
  chmodSync(agent, 0o755);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  expect(liveGroupCount()).toBe(0);
});

function fake(
  fault: string,
  extra: Omit<AcpAgentOptions, "backend"> = {},
): { options: AcpAgentOptions; record: () => Record<string, unknown> } {
  const run = join(dir, `run-${++runs}`);
  mkdirSync(run);
  const recordFile = join(run, "record.json");
  return {
    options: {
      backend: "acp",
      ...extra,
      acp: { command: agent, ...extra.acp },
      env: { FAKE_ACP_FAULT: fault, FAKE_ACP_RECORD: recordFile, FAKE_ACP_GRANDCHILD: "none", ...extra.env },
    },
    record: () => JSON.parse(readFileSync(recordFile, "utf8")) as Record<string, unknown>,
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

describe("ACP session against the stand-in agent", () => {
  it("declares fs and terminal in initialize by default, and neither when turned off", async () => {
    const on = fake("ok");
    await drain(query({ prompt: "hi", options: on.options }));
    expect(on.record().initialize).toMatchObject({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      clientInfo: { name: "code-agent-sdk" },
    });
    const off = fake("ok", { acp: { clientFs: false, terminal: false } });
    await drain(query({ prompt: "hi", options: off.options }));
    expect(off.record().initialize).toMatchObject({
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
  });

  it("an extension request the client does not know gets -32601, is reported in-band, and the turn goes on", async () => {
    const { options } = fake("extension");
    const { messages, error } = await drain(query({ prompt: "hi", options }));
    expect(error).toBeUndefined();
    const report = messages.find((m) => m.type === "system" && m.subtype === "acp_unhandled_request");
    expect(report?.type === "system" && report.data.method).toBe("craft/drainMidTurnQueue");
    const result = messages.find((m) => m.type === "result");
    expect(result?.type === "result" && JSON.parse(result.result ?? "{}")).toMatchObject({
      error: { code: -32601 },
    });
    expect(result?.type === "result" && result.isError).toBe(false);
  });

  it("an agent that ignores session/cancel: interrupt() fails with ControlTimeoutError after controlTimeoutMs", async () => {
    const { options } = fake("stall", { controlTimeoutMs: 2_000, closeGraceMs: 300 });
    await using client = new AgentSdkClient(options);
    await client.connect();
    await client.query("hi");
    for await (const m of client.receiveResponse()) if (m.type === "assistant") break;
    const error = await client.interrupt().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlTimeoutError);
    expect((error as ControlTimeoutError).subtype).toBe("session/cancel");
  });

  it("an agent that closes its stdin after the handshake and exits 3: ProcessError with exit code and stderr", async () => {
    const { options } = fake("exit-after-handshake-stdin-closed");
    const { messages, error } = await drain(query({ prompt: "hi", options }));
    expect(error).toBeInstanceOf(ProcessError);
    expect((error as ProcessError).exitCode).toBe(3);
    expect((error as ProcessError).stderrTail).toContain("fatal: simulated startup failure");
    // The session existed: its init message came first.
    expect(messages.map((m) => m.type)).toEqual(["system"]);
  });

  it("resume with an agent that does not declare loadSession is refused before any session starts", async () => {
    const { options } = fake("ok", { env: { FAKE_ACP_NO_LOAD: "1" }, resume: "s-1" });
    const { error } = await drain(query({ prompt: "hi", options }));
    expect(error).toBeInstanceOf(UnsupportedFeatureError);
    expect(String(error)).toContain("loadSession");
  });

  it("an image prompt to an agent without promptCapabilities.image is refused, and the session goes on", async () => {
    const { options } = fake("ok");
    await using client = new AgentSdkClient(options);
    await client.connect();
    const image = {
      type: "image" as const,
      source: { type: "base64" as const, media_type: "image/png" as const, data: "AA==" },
    };
    await expect(client.query([image])).rejects.toBeInstanceOf(UnsupportedFeatureError);
    await client.query("still there?");
    const turn = await drain(client.receiveResponse());
    expect(turn.messages.at(-1)).toMatchObject({ type: "result", result: "ok" });
  });
});
