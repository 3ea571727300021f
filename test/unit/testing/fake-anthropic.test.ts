import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import {
  createClaudeTestEnv,
  type FakeAnthropicServer,
  parseSseEvents,
  type RecordedRequest,
  type SseEvent,
  startFakeAnthropic,
} from "../../../src/testing/index.js";

const CLAUDE_BIN = resolve(
  import.meta.dirname,
  "../../../node_modules/@anthropic-ai/claude-code-linux-x64/claude",
);

function messagesBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: "claude-test-1",
    max_tokens: 1024,
    messages: [{ role: "user", content: "hello" }],
    stream: true,
    ...extra,
  };
}

async function post(server: FakeAnthropicServer, path: string, body: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "k" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function streamTurn(
  server: FakeAnthropicServer,
  extra: Record<string, unknown> = {},
): Promise<SseEvent[]> {
  const res = await post(server, "/v1/messages?beta=true", messagesBody(extra));
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/event-stream");
  return parseSseEvents(await res.text());
}

/** Reassembles a streamed message the way a client does. */
function reassemble(events: SseEvent[]): { blocks: any[]; stopReason: unknown; message: any } {
  const blocks: any[] = [];
  const json: string[] = [];
  let stopReason: unknown;
  let message: any;
  for (const { data } of events) {
    const d = data as any;
    if (d.type === "message_start") message = d.message;
    if (d.type === "content_block_start") {
      blocks[d.index] = { ...d.content_block };
      json[d.index] = "";
    }
    if (d.type === "content_block_delta") {
      const b = blocks[d.index];
      if (d.delta.type === "text_delta") b.text += d.delta.text;
      if (d.delta.type === "thinking_delta") b.thinking += d.delta.thinking;
      if (d.delta.type === "signature_delta") b.signature = d.delta.signature;
      if (d.delta.type === "input_json_delta") json[d.index] += d.delta.partial_json;
    }
    if (d.type === "content_block_stop" && blocks[d.index].type === "tool_use") {
      blocks[d.index].input = JSON.parse(json[d.index]!);
    }
    if (d.type === "message_delta") stopReason = d.delta.stop_reason;
  }
  return { blocks, stopReason, message };
}

describe("fake Anthropic server (HTTP)", () => {
  it("streams a text turn with the exact Anthropic event sequence", async () => {
    await using server = await startFakeAnthropic({ turns: [{ text: "Hello from the fake model!" }] });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const events = await streamTurn(server);
    const types = events.map((e) => e.event);
    expect(types[0]).toBe("message_start");
    expect(types[1]).toBe("ping");
    expect(types[2]).toBe("content_block_start");
    expect(types.filter((t) => t === "content_block_delta").length).toBeGreaterThan(1);
    expect(types.slice(-4)).toEqual([
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    for (const e of events) expect(e.data.type).toBe(e.event);

    const { blocks, stopReason, message } = reassemble(events);
    expect(blocks).toEqual([{ type: "text", text: "Hello from the fake model!" }]);
    expect(stopReason).toBe("end_turn");
    expect(message).toMatchObject({
      type: "message",
      role: "assistant",
      model: "claude-test-1",
      content: [],
    });
    expect(message.id).toMatch(/^msg_[0-9a-f]+$/);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    const delta = events.find((e) => e.event === "message_delta")!.data as any;
    expect(delta.delta).toEqual({ stop_reason: "end_turn", stop_sequence: null });
    expect(delta.usage.output_tokens).toBeGreaterThan(0);
  });

  it("streams tool_use input as partial JSON that reassembles", async () => {
    const input = { command: "echo 'hi' && ls -la /tmp", nested: { list: [1, 2, 3], emoji: "😀✅" } };
    await using server = await startFakeAnthropic({
      turns: [
        { toolUse: { name: "Bash", input }, text: "Let me run that." },
        { toolUse: { name: "Read", input: {}, id: "toolu_given" } },
      ],
    });
    const events = await streamTurn(server);
    const jsonDeltas = events.filter((e) => (e.data as any).delta?.type === "input_json_delta");
    expect(jsonDeltas.length).toBeGreaterThan(2);
    const { blocks, stopReason } = reassemble(events);
    expect(blocks[0]).toEqual({ type: "text", text: "Let me run that." });
    expect(blocks[1]).toMatchObject({ type: "tool_use", name: "Bash", input });
    expect(blocks[1].id).toMatch(/^toolu_[0-9a-f]+$/);
    expect(stopReason).toBe("tool_use");

    const second = reassemble(await streamTurn(server));
    expect(second.blocks).toEqual([{ type: "tool_use", id: "toolu_given", name: "Read", input: {} }]);
  });

  it("streams thinking with thinking_delta and signature_delta", async () => {
    await using server = await startFakeAnthropic({
      turns: [
        { thinking: "Let me think about this.", text: "Answer." },
        { blocks: [{ type: "thinking", thinking: "t", signature: "sig123" }], stopReason: "max_tokens" },
      ],
    });
    const events = await streamTurn(server);
    expect(events.some((e) => (e.data as any).delta?.type === "thinking_delta")).toBe(true);
    const { blocks, stopReason } = reassemble(events);
    expect(blocks[0]).toMatchObject({ type: "thinking", thinking: "Let me think about this." });
    expect(blocks[0].signature).toBeTruthy();
    expect(blocks[1]).toEqual({ type: "text", text: "Answer." });
    expect(stopReason).toBe("end_turn");

    const second = reassemble(await streamTurn(server));
    expect(second.blocks).toEqual([{ type: "thinking", thinking: "t", signature: "sig123" }]);
    expect(second.stopReason).toBe("max_tokens");
  });

  it("answers non-streaming requests with the full message JSON", async () => {
    await using server = await startFakeAnthropic({
      turns: [
        {
          blocks: [
            { type: "text", text: "a" },
            { type: "tool_use", name: "T", input: { x: 1 } },
          ],
        },
      ],
      model: "fallback-model",
    });
    const res = await post(server, "/v1/messages", { max_tokens: 100, messages: [] });
    expect(res.status).toBe(200);
    expect(res.headers.get("request-id")).toMatch(/^req_/);
    const msg = (await res.json()) as any;
    expect(msg).toMatchObject({
      type: "message",
      role: "assistant",
      model: "fallback-model",
      stop_reason: "tool_use",
      stop_sequence: null,
      content: [
        { type: "text", text: "a" },
        { type: "tool_use", name: "T", input: { x: 1 } },
      ],
    });
    expect(msg.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    expect(server.turnRequests).toHaveLength(1);
  });

  it("answers the model check (non-streaming, max_tokens 1) without consuming a turn", async () => {
    await using server = await startFakeAnthropic({ turns: [{ text: "scripted" }] });
    const res = await post(server, "/v1/messages?beta=true", {
      model: "claude-sonnet-x",
      max_tokens: 1,
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      type: "message",
      model: "claude-sonnet-x",
      stop_reason: "max_tokens",
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.scripted).toBe(false);
    expect(server.turnRequests).toHaveLength(0);
    const { blocks } = reassemble(await streamTurn(server));
    expect(blocks).toEqual([{ type: "text", text: "scripted" }]);
  });

  it("counts tokens without consuming a turn", async () => {
    await using server = await startFakeAnthropic();
    const res = await post(server, "/v1/messages/count_tokens?beta=true", {
      model: "m",
      messages: [{ role: "user", content: "x".repeat(400) }],
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { input_tokens: number };
    expect(body.input_tokens).toBeGreaterThanOrEqual(100);
    expect(server.turnRequests).toHaveLength(0);
    expect(server.requests[0]).toMatchObject({
      method: "POST",
      path: "/v1/messages/count_tokens",
      query: "?beta=true",
    });
  });

  it("returns scripted errors with the Anthropic error body and request-id", async () => {
    await using server = await startFakeAnthropic({
      turns: [
        { error: { status: 400, message: "bad" } },
        { error: { status: 529 } },
        { error: { status: 418, type: "teapot_error", message: "short and stout" } },
      ],
    });
    const r1 = await post(server, "/v1/messages", messagesBody());
    expect(r1.status).toBe(400);
    expect(r1.headers.get("request-id")).toMatch(/^req_[0-9a-f]+$/);
    expect(await r1.json()).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "bad" },
    });

    // A re-send of the same conversation gets the same 4xx without consuming a turn (as the real API).
    const again = await post(server, "/v1/messages", messagesBody({ thinking: { type: "adaptive" } }));
    expect(again.status).toBe(400);
    expect(server.requests.at(-1)!.scripted).toBe(false);
    expect(server.turnRequests).toHaveLength(1);

    // A different conversation consumes the next turn.
    const r2 = await post(
      server,
      "/v1/messages",
      messagesBody({ messages: [{ role: "user", content: "other" }] }),
    );
    expect(r2.status).toBe(529);
    expect(((await r2.json()) as any).error.type).toBe("overloaded_error");
    // 529 is transient, so the same conversation again consumes a turn.
    const r3 = await post(
      server,
      "/v1/messages",
      messagesBody({ messages: [{ role: "user", content: "other" }] }),
    );
    expect(r3.status).toBe(418);
    expect(await r3.json()).toEqual({
      type: "error",
      error: { type: "teapot_error", message: "short and stout" },
    });
    expect(server.turnRequests).toHaveLength(3);
  });

  it("records every request, routes unknown paths and survives malformed bodies", async () => {
    await using server = await startFakeAnthropic();
    const head = await fetch(`${server.url}/api/hello`, { method: "HEAD" });
    expect(head.status).toBe(200);
    const get = await fetch(`${server.url}/v1/whatever?x=1`);
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({});
    const unknownPost = await post(server, "/v1/nope", {});
    expect(unknownPost.status).toBe(404);
    expect(((await unknownPost.json()) as any).error.type).toBe("not_found_error");
    const malformed = await post(server, "/v1/messages", "{not json");
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    const emptyBody = await fetch(`${server.url}/v1/messages`, { method: "POST" });
    expect(emptyBody.status).toBe(400);
    const arrayBody = await post(server, "/v1/messages/count_tokens", "[1,2]");
    expect(arrayBody.status).toBe(400);

    expect(server.requests.map((r) => `${r.method} ${r.path}${r.query}`)).toEqual([
      "HEAD /api/hello",
      "GET /v1/whatever?x=1",
      "POST /v1/nope",
      "POST /v1/messages",
      "POST /v1/messages",
      "POST /v1/messages/count_tokens",
    ]);
    expect(server.requests[3]!.body).toBeUndefined();
    expect(server.requests[2]!.headers["x-api-key"]).toBe("k");
    expect(server.turnRequests).toHaveLength(0);
    // Still serving after all that.
    expect(reassemble(await streamTurn(server)).blocks).toEqual([{ type: "text", text: "OK" }]);
  });

  it("extracts lastUserText, skipping system-reminder blocks and non-user messages", async () => {
    await using server = await startFakeAnthropic();
    await streamTurn(server, {
      messages: [
        { role: "user", content: "first" },
        { role: "assistant", content: [{ type: "text", text: "reply" }] },
        {
          role: "user",
          content: [
            { type: "text", text: "<system-reminder>\nnoise\n</system-reminder>\n" },
            { type: "text", text: "say hi" },
            { type: "image", source: {} },
            { type: "text", text: "twice" },
          ],
        },
        { role: "system", content: "env info" },
      ],
    });
    expect(server.requests[0]!.lastUserText).toBe("say hi\ntwice");
    await streamTurn(server, {
      messages: [{ role: "user", content: [{ type: "tool_result", content: "x" }] }],
    });
    expect(server.requests[1]!.lastUserText).toBe("");
  });

  it("calls function turns with the request, uses defaultTurn and push()", async () => {
    const seen: RecordedRequest[] = [];
    await using server = await startFakeAnthropic({
      turns: [
        async (req) => {
          seen.push(req);
          return (r2: RecordedRequest) => ({ text: `echo: ${r2.lastUserText}` });
        },
        () => {
          throw new Error("boom");
        },
      ],
      defaultTurn: { text: "default!" },
    });
    expect(reassemble(await streamTurn(server)).blocks[0].text).toBe("echo: hello");
    expect(seen[0]).toMatchObject({ scripted: true, lastUserText: "hello", path: "/v1/messages" });
    const failed = await post(
      server,
      "/v1/messages",
      messagesBody({ messages: [{ role: "user", content: "2" }] }),
    );
    expect(failed.status).toBe(400);
    expect(((await failed.json()) as any).error.message).toContain("boom");
    expect(reassemble(await streamTurn(server)).blocks[0].text).toBe("default!");
    server.push({ text: "pushed 1" }, { text: "pushed 2" });
    expect(reassemble(await streamTurn(server)).blocks[0].text).toBe("pushed 1");
    expect(reassemble(await streamTurn(server)).blocks[0].text).toBe("pushed 2");
    expect(reassemble(await streamTurn(server)).blocks[0].text).toBe("default!");
    expect(server.turnRequests).toHaveLength(6);
  });

  it("waits delayMs between events", async () => {
    await using server = await startFakeAnthropic({ turns: [{ text: "slow", delayMs: 40 }] });
    const started = Date.now();
    const events = await streamTurn(server);
    expect(Date.now() - started).toBeGreaterThanOrEqual(40 * (events.length - 1) - 20);
  });

  it("close() ends a stalled stream; close is idempotent", async () => {
    const server = await startFakeAnthropic({ turns: [{ stall: true, text: "partial" }] });
    const res = await post(server, "/v1/messages", messagesBody());
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let received = "";
    const decoder = new TextDecoder();
    const streamedText = (): string =>
      parseSseEvents(received)
        .map((e) => (e.data as any).delta?.text ?? "")
        .join("");
    while (streamedText() !== "partial") {
      const { value, done } = await reader.read();
      if (done) break;
      received += decoder.decode(value);
    }
    expect(received).toContain("event: message_start");
    expect(received).not.toContain("message_stop");
    const ended = (async () => {
      try {
        for (;;) {
          const { done } = await reader.read();
          if (done) return "done";
        }
      } catch {
        return "error";
      }
    })();
    await server.close();
    expect(["done", "error"]).toContain(await ended);
    await server.close();
  });

  it("brokenStream sends a partial stream then drops the connection", async () => {
    await using server = await startFakeAnthropic({ turns: [{ brokenStream: true, text: "half" }] });
    const res = await post(server, "/v1/messages", messagesBody());
    await expect(res.text()).rejects.toThrow();
    await using s2 = await startFakeAnthropic({ turns: [{ brokenStream: true }] });
    await expect(post(s2, "/v1/messages", messagesBody({ stream: false }))).rejects.toThrow();
  });

  it("waitForRequest resolves on future and past requests and times out descriptively", async () => {
    await using server = await startFakeAnthropic();
    const pending = server.waitForRequest((r) => r.lastUserText === "needle");
    await streamTurn(server);
    await streamTurn(server, { messages: [{ role: "user", content: "needle" }] });
    const found = await pending;
    expect(found).toBe(server.requests[1]);
    const past = await server.waitForRequest((r) => r.lastUserText === "hello", { includePast: true });
    expect(past).toBe(server.requests[0]);
    await expect(
      server.waitForRequest((r) => r.path === "/never", { timeoutMs: 50, includePast: true }),
    ).rejects.toThrow(/timed out after 50 ms.*r\.path === "\/never"/);
    const onClose = server.waitForRequest((r) => r.path === "/later");
    await server.close();
    await expect(onClose).rejects.toThrow(/closed/);
  });

  it("env() creates an isolated home once and close() removes it", async () => {
    const server = await startFakeAnthropic();
    const env = server.env({ EXTRA: "1" });
    expect(env).toMatchObject({
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: "sk-ant-fake-key",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
      ENABLE_TOOL_SEARCH: "false",
      CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING: "true",
      EXTRA: "1",
      PATH: process.env.PATH,
    });
    expect(env.CLAUDE_CONFIG_DIR).toBe(join(env.HOME!, ".claude"));
    expect(env.TMPDIR).toBe(join(env.HOME!, "tmp"));
    expect(env.CLAUDE_CODE_TMPDIR).toBe(env.TMPDIR);
    expect(statSync(env.CLAUDE_CONFIG_DIR!).isDirectory()).toBe(true);
    expect(statSync(env.TMPDIR!).isDirectory()).toBe(true);
    expect(server.env().HOME).toBe(env.HOME);
    expect(server.env().EXTRA).toBeUndefined();
    await server.close();
    expect(existsSync(env.HOME!)).toBe(false);
    expect(() => server.env()).toThrow(/after close/);
  });

  it("createClaudeTestEnv works standalone", async () => {
    const t = createClaudeTestEnv("http://127.0.0.1:9");
    expect(t.env.HOME).toBe(t.home);
    expect(t.home.startsWith(tmpdir())).toBe(true);
    expect(t.env.ANTHROPIC_BASE_URL).toBe("http://127.0.0.1:9");
    expect(existsSync(join(t.home, "tmp"))).toBe(true);
    await t.cleanup();
    await t.cleanup();
    expect(existsSync(t.home)).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------------------
// The real CLI against the fake.

interface CliRun {
  code: number | null;
  lines: any[];
  stderr: string;
}

function tempCwd(): string {
  return mkdtempSync(join(tmpdir(), "fake-anthropic-cwd-"));
}

async function runClaudePrint(
  server: FakeAnthropicServer,
  prompt: string,
  extraEnv: Record<string, string> = {},
): Promise<CliRun> {
  const cwd = tempCwd();
  let child: ChildProcess | undefined;
  try {
    child = spawn(CLAUDE_BIN, ["-p", "--output-format", "stream-json", "--verbose", prompt], {
      env: server.env(extraEnv),
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const code = await new Promise<number | null>((res, rej) => {
      child!.on("error", rej);
      child!.on("close", (c) => res(c));
    });
    const lines = stdout
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l));
    return { code, lines, stderr };
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    rmSync(cwd, { recursive: true, force: true });
  }
}

function resultOf(run: CliRun): any {
  const results = run.lines.filter((l) => l.type === "result");
  expect(results, `stderr: ${run.stderr}`).toHaveLength(1);
  return results[0];
}

function assistantBlocks(run: CliRun): any[] {
  return run.lines.filter((l) => l.type === "assistant").flatMap((l) => l.message.content);
}

describe.skipIf(!existsSync(CLAUDE_BIN))("real claude CLI against the fake server", () => {
  it("prints the scripted text (one-shot -p)", async () => {
    await using server = await startFakeAnthropic({ turns: [{ text: "Hi from the script" }] });
    const run = await runClaudePrint(server, "say hi");
    expect(run.code).toBe(0);
    expect(assistantBlocks(run)).toContainEqual({ type: "text", text: "Hi from the script" });
    expect(resultOf(run)).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "Hi from the script",
    });
    expect(server.turnRequests).toHaveLength(1);
    const req = server.turnRequests[0]!;
    expect(req).toMatchObject({
      method: "POST",
      path: "/v1/messages",
      query: "?beta=true",
      lastUserText: "say hi",
    });
    expect(req.body.stream).toBe(true);
    expect(req.headers["x-api-key"]).toBe("sk-ant-fake-key");
    expect(server.requests.every((r) => r.path.startsWith("/v1/messages"))).toBe(true);
  });

  it("runs a Bash tool round trip and sends the tool_result back", async () => {
    await using server = await startFakeAnthropic({
      turns: [
        { toolUse: { name: "Bash", input: { command: "echo hello", description: "x" } } },
        { text: "done" },
      ],
    });
    const run = await runClaudePrint(server, "run echo");
    expect(run.code).toBe(0);
    const toolUse = assistantBlocks(run).find((b) => b.type === "tool_use");
    expect(toolUse).toMatchObject({ name: "Bash", input: { command: "echo hello", description: "x" } });
    expect(resultOf(run)).toMatchObject({ is_error: false, result: "done", num_turns: 2 });
    expect(server.turnRequests).toHaveLength(2);
    const second = server.turnRequests[1]!;
    const toolResults = second.body.messages
      .filter((m: any) => m.role === "user" && Array.isArray(m.content))
      .flatMap((m: any) => m.content)
      .filter((b: any) => b.type === "tool_result");
    expect(toolResults).toHaveLength(1);
    expect(toolResults[0].tool_use_id).toBe(toolUse.id);
    expect(JSON.stringify(toolResults[0].content)).toContain("hello");
    expect(toolResults[0].is_error).toBe(false);
  });

  it("reports a scripted 400 as an API error result", async () => {
    await using server = await startFakeAnthropic({
      turns: [{ error: { status: 400, message: "bad" } }, { text: "not reached" }],
    });
    const run = await runClaudePrint(server, "fail please");
    expect(resultOf(run)).toMatchObject({
      subtype: "success",
      is_error: true,
      api_error_status: 400,
      result: "API Error: 400 bad",
    });
    expect(run.code).toBe(1);
    // The CLI re-sends a 400 (dropping optional betas); the fake answers re-sends with the same error.
    expect(server.turnRequests).toHaveLength(1);
    expect(server.requests.length).toBeGreaterThanOrEqual(1);
  });

  it("recovers from a transient 500 with one api_retry", async () => {
    await using server = await startFakeAnthropic({
      turns: [{ error: { status: 500 } }, { text: "recovered" }],
    });
    // The kit's env turns retries off (CLAUDE_CODE_MAX_RETRIES=0); this test turns one back on.
    const run = await runClaudePrint(server, "retry please", { CLAUDE_CODE_MAX_RETRIES: "1" });
    expect(run.lines.filter((l) => l.type === "system" && l.subtype === "api_retry")).toHaveLength(1);
    expect(resultOf(run)).toMatchObject({ is_error: false, result: "recovered" });
    expect(server.turnRequests).toHaveLength(2);
  });

  it("shows a thinking turn as thinking + text blocks", async () => {
    await using server = await startFakeAnthropic({
      turns: [{ thinking: "Pondering the greeting.", text: "Hello!" }],
    });
    const run = await runClaudePrint(server, "think then greet");
    expect(run.code).toBe(0);
    const blocks = assistantBlocks(run);
    expect(blocks).toContainEqual(
      expect.objectContaining({ type: "thinking", thinking: "Pondering the greeting." }),
    );
    expect(blocks).toContainEqual({ type: "text", text: "Hello!" });
    expect(resultOf(run)).toMatchObject({ is_error: false, result: "Hello!" });
  });

  it("stream-json session: model check, stalled stream + interrupt, next turn", async () => {
    await using server = await startFakeAnthropic({
      turns: [{ stall: true, text: "partial answer" }, { text: "after interrupt" }],
    });
    const cwd = tempCwd();
    const child = spawn(
      CLAUDE_BIN,
      [
        "--output-format",
        "stream-json",
        "--verbose",
        "--input-format",
        "stream-json",
        "--include-partial-messages",
      ],
      { env: server.env(), cwd, stdio: ["pipe", "pipe", "pipe"] },
    );
    try {
      const lines: any[] = [];
      const waiters: Array<{ pred: (l: any) => boolean; resolve: (l: any) => void }> = [];
      createInterface({ input: child.stdout }).on("line", (text) => {
        const line = JSON.parse(text);
        lines.push(line);
        for (const w of waiters.splice(0)) {
          if (w.pred(line)) w.resolve(line);
          else waiters.push(w);
        }
      });
      const nextLine = (pred: (l: any) => boolean): Promise<any> =>
        new Promise((resolve) => {
          waiters.push({ pred, resolve });
        });
      const send = (o: unknown): void => {
        child.stdin.write(`${JSON.stringify(o)}\n`);
      };
      const userMessage = (content: string) => ({
        type: "user",
        message: { role: "user", content },
        parent_tool_use_id: null,
        session_id: "default",
      });

      send({ type: "control_request", request_id: "i1", request: { subtype: "initialize" } });
      await nextLine((l) => l.type === "control_response" && l.response.request_id === "i1");
      send({
        type: "control_request",
        request_id: "m1",
        request: { subtype: "set_model", model: "claude-sonnet-4-5" },
      });
      await nextLine((l) => l.type === "control_response" && l.response.request_id === "m1");
      const check = await server.waitForRequest((r) => r.body?.max_tokens === 1, {
        includePast: true,
        timeoutMs: 10_000,
      });
      expect(check.scripted).toBe(false);

      send(userMessage("go"));
      await nextLine((l) => l.type === "stream_event" && l.event.delta?.text !== undefined);
      send({ type: "control_request", request_id: "int1", request: { subtype: "interrupt" } });
      const interrupted = await nextLine((l) => l.type === "result");
      expect(interrupted).toMatchObject({ subtype: "error_during_execution", is_error: true });

      send(userMessage("again"));
      const result = await nextLine((l) => l.type === "result");
      expect(result).toMatchObject({ subtype: "success", is_error: false, result: "after interrupt" });
      expect(server.turnRequests.map((r) => r.body.model)).toEqual([
        "claude-sonnet-4-5",
        "claude-sonnet-4-5",
      ]);
      expect(server.turnRequests[1]!.lastUserText).toContain("again");

      child.stdin.end();
      const code = await new Promise<number | null>((res) => child.on("close", (c) => res(c)));
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
