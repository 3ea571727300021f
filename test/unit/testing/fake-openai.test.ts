import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tomlKey, tomlString } from "../../../src/testing/codex-home.js";
import {
  codexConfigToml,
  createCodexHome,
  type FakeOpenAIServer,
  parseSseEvents,
  type RecordedResponsesRequest,
  type ResponsesTurn,
  type SseEvent,
  startFakeOpenAI,
  toolOutputText,
} from "../../../src/testing/index.js";

const CODEX_BIN = resolve(
  import.meta.dirname,
  "../../../node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
);
const ECHO_MCP = resolve(import.meta.dirname, "../../fixtures/codex/echo-mcp.mjs");

function responsesBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: "gpt-test",
    input: [
      { type: "message", role: "developer", content: [{ type: "input_text", text: "be brief" }] },
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>" },
        ],
      },
      { type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] },
    ],
    stream: true,
    ...extra,
  };
}

async function post(server: FakeOpenAIServer, body: unknown, path = "/v1/responses"): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer k", accept: "text/event-stream" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function streamTurn(
  server: FakeOpenAIServer,
  extra: Record<string, unknown> = {},
): Promise<SseEvent[]> {
  const res = await post(server, responsesBody(extra));
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/event-stream");
  return parseSseEvents(await res.text());
}

/** Reassembles output items from deltas the way a client does; returns them with the final response. */
function reassemble(events: SseEvent[]): { items: any[]; done: any[]; completed: any } {
  const items: any[] = [];
  const done: any[] = [];
  let completed: any;
  for (const { data } of events) {
    const d = data as any;
    switch (d.type) {
      case "response.output_item.added":
        items[d.output_index] = structuredClone(d.item);
        break;
      case "response.output_text.delta":
        items[d.output_index].content[d.content_index] ??= { type: "output_text", text: "" };
        items[d.output_index].content[d.content_index].text += d.delta;
        break;
      case "response.content_part.added":
        items[d.output_index].content[d.content_index] = { ...d.part };
        break;
      case "response.reasoning_summary_part.added":
        items[d.output_index].summary[d.summary_index] = { ...d.part };
        break;
      case "response.reasoning_summary_text.delta":
        items[d.output_index].summary[d.summary_index].text += d.delta;
        break;
      case "response.function_call_arguments.delta":
        items[d.output_index].arguments += d.delta;
        break;
      case "response.custom_tool_call_input.delta":
        items[d.output_index].input += d.delta;
        break;
      case "response.output_item.done":
        done[d.output_index] = d.item;
        break;
      case "response.completed":
        completed = d.response;
        break;
    }
  }
  return { items, done, completed };
}

describe("fake OpenAI Responses server (HTTP)", () => {
  it("streams a text turn with the Responses API event sequence", async () => {
    await using server = await startFakeOpenAI({ turns: [{ text: "Hello from the fake model!" }] });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const events = await streamTurn(server);
    const types = events.map((e) => e.event);
    expect(types[0]).toBe("response.created");
    expect(types[1]).toBe("response.in_progress");
    expect(types[2]).toBe("response.output_item.added");
    expect(types[3]).toBe("response.content_part.added");
    expect(types.filter((t) => t === "response.output_text.delta").length).toBeGreaterThan(1);
    expect(types.slice(-4)).toEqual([
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    for (const e of events) expect(e.data.type).toBe(e.event);
    expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_, i) => i));

    const { items, done, completed } = reassemble(events);
    expect(items[0].content[0].text).toBe("Hello from the fake model!");
    expect(done[0]).toMatchObject({
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "Hello from the fake model!" }],
    });
    expect(done[0].id).toMatch(/^msg_[0-9a-f]{24}$/);
    expect(completed.id).toMatch(/^resp_/);
    expect(completed).toMatchObject({ object: "response", status: "completed", model: "gpt-test" });
    expect(completed.output).toEqual(done);
    expect(completed.usage).toMatchObject({
      input_tokens: expect.any(Number),
      output_tokens: expect.any(Number),
      total_tokens: expect.any(Number),
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    });
    expect(completed.usage.total_tokens).toBe(completed.usage.input_tokens + completed.usage.output_tokens);

    expect(server.requests).toHaveLength(1);
    const [req] = server.turnRequests;
    expect(req).toMatchObject({
      method: "POST",
      path: "/v1/responses",
      scripted: true,
      lastUserText: "hello",
    });
    expect(req!.headers.authorization).toBe("Bearer k");
    expect(req!.toolOutputs).toEqual([]);
  });

  it("streams reasoning summaries, exec_command calls, apply_patch calls and MCP calls", async () => {
    const patch = "*** Begin Patch\n*** Add File: x.txt\n+hi\n*** End Patch\n";
    await using server = await startFakeOpenAI({
      turns: [
        { reasoning: "Let me think", text: "Thought." },
        { execCommand: { cmd: "echo hello", workdir: "/tmp" }, text: "Running it" },
        { applyPatch: patch },
        { mcpCall: { server: "my-srv.x", tool: "echo", arguments: { text: "hi" } } },
      ],
    });

    const r1 = reassemble(await streamTurn(server));
    expect(r1.done.map((i) => i.type)).toEqual(["reasoning", "message"]);
    expect(r1.items[0].summary).toEqual([{ type: "summary_text", text: "Let me think" }]);
    expect(r1.done[0]).toMatchObject({ summary: [{ type: "summary_text", text: "Let me think" }] });
    expect(r1.done[0].id).toMatch(/^rs_/);
    expect(r1.completed.usage.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);

    const r2 = reassemble(await streamTurn(server));
    expect(r2.done.map((i) => i.type)).toEqual(["message", "function_call"]);
    expect(r2.done[0].content[0].text).toBe("Running it");
    const call = r2.done[1];
    expect(call).toMatchObject({ name: "exec_command", status: "completed" });
    expect(call.id).toMatch(/^fc_/);
    expect(call.call_id).toMatch(/^call_/);
    expect(JSON.parse(call.arguments)).toEqual({ cmd: "echo hello", workdir: "/tmp" });
    expect(r2.items[1].arguments).toBe(call.arguments);

    const r3 = reassemble(await streamTurn(server));
    expect(r3.done[0]).toMatchObject({ type: "custom_tool_call", name: "apply_patch", input: patch });
    expect(r3.items[0].input).toBe(patch);

    const r4 = reassemble(await streamTurn(server));
    expect(r4.done[0]).toMatchObject({ type: "function_call", name: "echo", namespace: "mcp__my_srv_x" });
    expect(JSON.parse(r4.done[0].arguments)).toEqual({ text: "hi" });
    expect(server.turnRequests).toHaveLength(4);
  });

  it("expands a searching mcpCall into tool_search_call + an automatic follow-up", async () => {
    await using server = await startFakeOpenAI({
      turns: [
        { mcpCall: { server: "srv", tool: "echo", arguments: { text: "x" }, search: true } },
        { text: "end" },
      ],
    });
    const first = reassemble(await streamTurn(server));
    const search = first.done[0];
    expect(search).toMatchObject({
      type: "tool_search_call",
      execution: "client",
      status: "completed",
      arguments: { query: "echo", limit: 8 },
    });
    const tso = {
      type: "tool_search_output",
      call_id: search.call_id,
      status: "completed",
      execution: "client",
      tools: [{ type: "namespace", name: "mcp__srv", tools: [{ type: "function", name: "echo" }] }],
    };
    const base = responsesBody().input as unknown[];
    const second = reassemble(await streamTurn(server, { input: [...base, search, tso] }));
    expect(second.done[0]).toMatchObject({ type: "function_call", namespace: "mcp__srv", name: "echo" });
    const fco = { type: "function_call_output", call_id: second.done[0].call_id, output: "echo: x" };
    const third = reassemble(
      await streamTurn(server, { input: [...base, search, tso, second.done[0], fco] }),
    );
    expect(third.done[0].content[0].text).toBe("end");

    expect(server.requests.map((r) => r.scripted)).toEqual([true, false, true]);
    expect(server.turnRequests).toHaveLength(2);
    expect(server.requests[1]!.toolOutputs).toEqual([tso]);
    expect(server.turnRequests[1]!.toolOutputs.map(toolOutputText)).toEqual([
      JSON.stringify(tso.tools),
      "echo: x",
    ]);
  });

  it("answers error turns with an OpenAI error body and failed turns with response.failed", async () => {
    await using server = await startFakeOpenAI({
      turns: [
        { error: { status: 500 } },
        { error: { status: 429, message: "slow down", code: "rate_limit_exceeded" } },
        { failed: { message: "it broke" } },
        { failed: { message: "too long", code: "context_length_exceeded" } },
      ],
    });
    const r500 = await post(server, responsesBody());
    expect(r500.status).toBe(500);
    expect(await r500.json()).toEqual({
      error: { message: "fake-openai scripted error 500", type: "server_error", param: null, code: null },
    });
    const r429 = await post(server, responsesBody());
    expect(r429.status).toBe(429);
    expect(await r429.json()).toMatchObject({
      error: { message: "slow down", type: "rate_limit_exceeded", code: "rate_limit_exceeded" },
    });
    const failed = await streamTurn(server);
    expect(failed.map((e) => e.event)).toEqual([
      "response.created",
      "response.in_progress",
      "response.failed",
    ]);
    expect((failed[2]!.data as any).response).toMatchObject({
      status: "failed",
      error: { code: "server_error", message: "it broke" },
    });
    const tooLong = await streamTurn(server);
    expect((tooLong[2]!.data as any).response.error).toEqual({
      code: "context_length_exceeded",
      message: "too long",
    });
  });

  it("breaks a stream mid-way", async () => {
    await using server = await startFakeOpenAI({ turns: [{ brokenStream: true, text: "partial" }] });
    const res = await post(server, responsesBody());
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  it("holds a stalled stream open until close()", async () => {
    const server = await startFakeOpenAI({ turns: [{ stall: true, text: "partial" }] });
    const res = await post(server, responsesBody());
    const reader = res.body!.getReader();
    let text = "";
    const decoder = new TextDecoder();
    while (!text.includes("response.output_text.delta")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toContain("response.created");
    const pending = (async () => {
      for (;;) {
        const { done } = await reader.read();
        if (done) return "ended";
      }
    })().catch(() => "errored");
    const early = await Promise.race([pending, new Promise((r) => setTimeout(() => r("open"), 150))]);
    expect(early).toBe("open");
    const t0 = Date.now();
    await server.close();
    expect(["ended", "errored"]).toContain(await pending);
    expect(Date.now() - t0).toBeLessThan(2000);
    await server.close(); // idempotent
  });

  it("passes the request to function turns and reports throwing ones as 400", async () => {
    const seen: RecordedResponsesRequest[] = [];
    await using server = await startFakeOpenAI({
      turns: [
        (r) => {
          seen.push(r);
          return { text: `you said ${r.lastUserText}` };
        },
        async () => () => ({ text: "nested" }),
        () => {
          throw new Error("nope");
        },
      ],
    });
    expect(reassemble(await streamTurn(server)).done[0].content[0].text).toBe("you said hello");
    expect(seen[0]!.body.model).toBe("gpt-test");
    expect(reassemble(await streamTurn(server)).done[0].content[0].text).toBe("nested");
    const bad = await post(server, responsesBody());
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.message).toContain("nope");
  });

  it("uses push(), defaultTurn, non-streaming requests and odd input without throwing", async () => {
    await using server = await startFakeOpenAI({ defaultTurn: { text: "fallback" }, model: "gpt-default" });
    server.push({ text: "pushed" });
    expect(reassemble(await streamTurn(server)).done[0].content[0].text).toBe("pushed");
    const plain = await post(server, responsesBody({ stream: false, model: undefined }));
    expect(plain.headers.get("content-type")).toBe("application/json");
    const json = (await plain.json()) as any;
    expect(json).toMatchObject({ object: "response", status: "completed", model: "gpt-default" });
    expect(json.output[0].content[0].text).toBe("fallback");

    const malformed = await post(server, "{not json");
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as any).error.type).toBe("invalid_request_error");
    const arrayBody = await post(server, [1, 2]);
    expect(arrayBody.status).toBe(400);
    const stringInput = await post(server, { input: "just a string", stream: true });
    expect(stringInput.status).toBe(200);
    await stringInput.text();
    expect(server.requests.at(-1)!.lastUserText).toBe("just a string");

    const models = await fetch(`${server.url}/v1/models`);
    expect(await models.json()).toMatchObject({
      object: "list",
      data: [{ id: "gpt-default", object: "model" }],
    });
    const missing = await fetch(`${server.url}/v1/nope`);
    expect(missing.status).toBe(404);
    expect(server.requests.filter((r) => r.scripted)).toHaveLength(3);
    expect(server.requests.map((r) => r.path)).toContain("/v1/nope");
  });

  it("waitForRequest resolves, times out with context, and rejects on close", async () => {
    const server = await startFakeOpenAI();
    const waiting = server.waitForRequest((r) => r.lastUserText === "hello");
    await (await post(server, responsesBody())).text();
    expect((await waiting).scripted).toBe(true);
    expect((await server.waitForRequest((r) => r.scripted, { includePast: true })).path).toBe(
      "/v1/responses",
    );
    await expect(server.waitForRequest(() => false, { timeoutMs: 30 })).rejects.toThrow(
      /timed out after 30 ms .*received 1: POST \/v1\/responses/,
    );
    const never = server.waitForRequest(() => false);
    await server.close();
    await expect(never).rejects.toThrow(/server closed/);
    await expect(server.waitForRequest(() => true)).rejects.toThrow(/closed/);
  });
});

describe("createCodexHome", () => {
  it("writes an offline config.toml, an isolated env and cleans up", async () => {
    const home = createCodexHome({
      baseUrl: "http://127.0.0.1:1234/",
      approvalPolicy: "untrusted",
      sandboxMode: "workspace-write",
      mcpServers: {
        "odd name": { command: '/bin/my "node"', args: ["a\\b", "c\nd"], env: { TOKEN: 't"1' } },
      },
      extraToml: 'model_reasoning_effort = "low"\n[tools]\nupdate_plan = { enabled = true }',
      env: { EXTRA: "1" },
    });
    try {
      const toml = readFileSync(home.configPath, "utf8");
      expect(home.configPath).toBe(join(home.home, "config.toml"));
      expect(toml).toContain('model = "gpt-5.5"');
      expect(toml).toContain('model_provider = "fake"');
      expect(toml).toContain('approval_policy = "untrusted"');
      expect(toml).toContain('sandbox_mode = "workspace-write"');
      expect(toml).toContain("check_for_update_on_startup = false");
      expect(toml).toContain('base_url = "http://127.0.0.1:1234/v1"');
      expect(toml).toContain('wire_api = "responses"');
      expect(toml).toContain('env_key = "FAKE_API_KEY"');
      for (const line of [
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "stream_idle_timeout_ms = 10000",
        "[analytics]\nenabled = false",
        "plugins = false",
        "remote_plugin = false",
        "apps = false",
        "shell_snapshot = false",
        "unbounded_connection_retries = false",
      ]) {
        expect(toml).toContain(line);
      }
      // Extra TOML sits before the first table, so its top-level keys stay top-level.
      expect(toml.indexOf("model_reasoning_effort")).toBeLessThan(toml.indexOf("[model_providers.fake]"));
      expect(toml).toContain('[mcp_servers."odd name"]');
      expect(toml).toContain('command = "/bin/my \\"node\\""');
      expect(toml).toContain('args = ["a\\\\b", "c\\nd"]');
      expect(toml).toContain('env = { TOKEN = "t\\"1" }');
      expect(toml).toContain('default_tools_approval_mode = "approve"');
      expect(toml).toContain("required = true");

      expect(home.env).toMatchObject({
        CODEX_HOME: home.home,
        FAKE_API_KEY: expect.any(String),
        TMPDIR: home.tmpDir,
        HOME: home.userHome,
        EXTRA: "1",
      });
      expect(home.env.PATH).toBe(process.env.PATH);
      expect(relative(home.tmpDir, home.home).startsWith("..")).toBe(true);
      expect(dirname(home.tmpDir)).toBe(dirname(home.home));
      expect(statSync(home.tmpDir).isDirectory()).toBe(true);
    } finally {
      await home.cleanup();
      await home.cleanup();
    }
    expect(existsSync(home.home)).toBe(false);
    expect(existsSync(dirname(home.home))).toBe(false);
  });

  it("escapes TOML strings and keys", () => {
    expect(tomlString('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(tomlString("tab\there\r\n\u0001\u007f é")).toBe('"tab\\there\\r\\n\\u0001\\u007f é"');
    expect(tomlKey("plain_key-1")).toBe("plain_key-1");
    expect(tomlKey("a.b")).toBe('"a.b"');
    expect(codexConfigToml({ baseUrl: "http://h/v1", model: "m", streamIdleTimeoutMs: 2500 })).toContain(
      'base_url = "http://h/v1"',
    );
  });

  it("server.codexHome() creates a home per call and close() removes them", async () => {
    const server = await startFakeOpenAI({ model: "gpt-5.4" });
    const a = server.codexHome();
    const b = server.codexHome({ sandboxMode: "danger-full-access" });
    expect(a.home).not.toBe(b.home);
    expect(readFileSync(a.configPath, "utf8")).toContain(`base_url = "${server.url}/v1"`);
    expect(readFileSync(a.configPath, "utf8")).toContain('model = "gpt-5.4"');
    expect(readFileSync(b.configPath, "utf8")).toContain('sandbox_mode = "danger-full-access"');
    await server.close();
    expect(existsSync(a.home)).toBe(false);
    expect(existsSync(b.home)).toBe(false);
    expect(() => server.codexHome()).toThrow(/after close/);
  });
});

interface CodexRun {
  events: any[];
  stderr: string;
  code: number | null;
  elapsedMs: number;
}

const workdirs: string[] = [];
afterAll(() => {
  for (const d of workdirs) rmSync(d, { recursive: true, force: true });
});

function makeWorkdir(): string {
  const dir = mkdtempSync(join(tmpdir(), "codex-work-"));
  workdirs.push(dir);
  return dir;
}

/** Runs `codex exec --json` (native binary, stdin ignored) and collects its JSONL events. */
async function runCodex(
  env: Record<string, string>,
  workdir: string,
  prompt: string,
  extraArgs: string[] = [],
  timeoutMs = 20_000,
): Promise<CodexRun> {
  const t0 = Date.now();
  const child = spawn(
    CODEX_BIN,
    ["exec", "--json", "--skip-git-repo-check", "-C", workdir, ...extraArgs, prompt],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const code = await new Promise<number | null>((res, rej) => {
    child.once("error", rej);
    child.once("close", (c) => res(c));
  }).finally(() => clearTimeout(timer));
  const events = stdout
    .split("\n")
    .filter((l) => l.trim().startsWith("{"))
    .map((l) => JSON.parse(l));
  return { events, stderr, code, elapsedMs: Date.now() - t0 };
}

function completedItems(run: CodexRun, type: string): any[] {
  return run.events.filter((e) => e.type === "item.completed" && e.item.type === type).map((e) => e.item);
}

async function runScenario(
  turns: ResponsesTurn[],
  homeOpts: Parameters<FakeOpenAIServer["codexHome"]>[0] = {},
  prompt = "do the thing",
): Promise<{ run: CodexRun; server: FakeOpenAIServer; workdir: string }> {
  const server = await startFakeOpenAI({ turns });
  try {
    const home = server.codexHome(homeOpts);
    const workdir = makeWorkdir();
    const run = await runCodex(home.env, workdir, prompt);
    return { run, server, workdir };
  } finally {
    await server.close();
  }
}

describe.skipIf(!existsSync(CODEX_BIN))("real codex CLI against the fake server", () => {
  it("text turn → agent_message and turn.completed", async () => {
    const { run, server } = await runScenario(
      [{ reasoning: "Pondering", text: "Hello from fake!" }],
      {},
      "say hi",
    );
    expect(run.code).toBe(0);
    expect(run.events[0]).toMatchObject({ type: "thread.started", thread_id: expect.any(String) });
    expect(completedItems(run, "reasoning")[0]).toMatchObject({ text: "Pondering" });
    expect(completedItems(run, "agent_message")).toEqual([
      expect.objectContaining({ text: "Hello from fake!" }),
    ]);
    const turnCompleted = run.events.find((e) => e.type === "turn.completed");
    expect(turnCompleted.usage).toMatchObject({
      input_tokens: expect.any(Number),
      output_tokens: expect.any(Number),
    });
    expect(turnCompleted.usage.input_tokens).toBeGreaterThan(0);

    expect(server.requests).toHaveLength(1);
    const [req] = server.turnRequests;
    expect(req).toMatchObject({ method: "POST", path: "/v1/responses", lastUserText: "say hi" });
    expect(req!.headers.authorization).toMatch(/^Bearer /);
    expect(req!.body).toMatchObject({ model: "gpt-5.5", stream: true, store: false });
    expect(req!.body.tools.map((t: any) => t.name ?? t.type)).toEqual(
      expect.arrayContaining(["exec_command", "apply_patch"]),
    );
  });

  it("execCommand → command_execution with the output, which reaches the next request", async () => {
    const { run, server } = await runScenario([
      { execCommand: { cmd: "echo hello" }, text: "Running echo" },
      { text: "It printed hello." },
    ]);
    expect(run.code).toBe(0);
    const cmd = completedItems(run, "command_execution")[0];
    expect(cmd).toMatchObject({ status: "completed", exit_code: 0 });
    expect(cmd.command).toContain("echo hello");
    expect(cmd.aggregated_output).toContain("hello");
    expect(completedItems(run, "agent_message").map((i) => i.text)).toEqual([
      "Running echo",
      "It printed hello.",
    ]);
    expect(server.turnRequests).toHaveLength(2);
    const outputs = server.turnRequests[1]!.toolOutputs;
    expect(outputs[0]).toMatchObject({ type: "function_call_output" });
    expect(outputs.map(toolOutputText).join("\n")).toContain("hello");
  });

  it("applyPatch with workspace-write → the file exists and a file_change item", async () => {
    const { run, server, workdir } = await runScenario(
      [
        { applyPatch: "*** Begin Patch\n*** Add File: notes/hello.txt\n+hi there\n*** End Patch\n" },
        { text: "ok" },
      ],
      { sandboxMode: "workspace-write" },
    );
    expect(run.code).toBe(0);
    expect(readFileSync(join(workdir, "notes/hello.txt"), "utf8")).toBe("hi there\n");
    const change = completedItems(run, "file_change")[0];
    expect(change).toMatchObject({ status: "completed", changes: [{ kind: "add" }] });
    expect(change.changes[0].path).toBe(join(workdir, "notes/hello.txt"));
    const out = server.turnRequests[1]!.toolOutputs[0]!;
    expect(out.type).toBe("custom_tool_call_output");
    expect(toolOutputText(out)).toContain("Success");
  });

  it.each([
    ["direct", false],
    ["after tool_search", true],
  ] as const)("mcpCall (%s) → mcp_tool_call completed with the result", async (_label, search) => {
    // The server starts a second late, as a loaded machine makes it: the kit's servers are
    // `required`, so codex exec waits for it before its first request (else its tools are missing).
    const lateServer = `sleep 1; exec "${process.execPath}" "${ECHO_MCP}"`;
    const { run, server } = await runScenario(
      [
        { mcpCall: { server: "echo-srv", tool: "echo", arguments: { text: "hi mcp" }, search } },
        { text: "done" },
      ],
      { mcpServers: { "echo-srv": { command: "/bin/sh", args: ["-c", lateServer] } } },
    );
    expect(run.code).toBe(0);
    const call = completedItems(run, "mcp_tool_call")[0];
    expect(call).toMatchObject({
      server: "echo-srv",
      tool: "echo",
      arguments: { text: "hi mcp" },
      status: "completed",
      error: null,
      result: { content: [{ type: "text", text: "echo: hi mcp" }] },
    });
    expect(server.requests).toHaveLength(search ? 3 : 2);
    expect(server.turnRequests).toHaveLength(2);
    expect(server.turnRequests[1]!.toolOutputs.map(toolOutputText).join("\n")).toContain("echo: hi mcp");
    if (search) {
      expect(server.requests[1]!.scripted).toBe(false);
      expect(server.requests[1]!.toolOutputs[0]).toMatchObject({
        type: "tool_search_output",
        tools: [{ type: "namespace", name: "mcp__echo_srv" }],
      });
    }
  });

  it.each<[string, ResponsesTurn, RegExp]>([
    ["HTTP 500", { error: { status: 500 } }, /high demand/],
    ["HTTP 400", { error: { status: 400, message: "bad request body" } }, /bad request body/],
    ["response.failed", { failed: { message: "model exploded", code: "invalid_prompt" } }, /model exploded/],
    ["broken stream", { brokenStream: true, text: "par" }, /stream disconnected/],
  ])("%s → error + turn.failed, exit 1, without retries", async (_label, turn, message) => {
    const { run, server } = await runScenario([turn]);
    expect(run.code).toBe(1);
    expect(run.events.find((e) => e.type === "error")?.message).toMatch(message);
    expect(run.events.at(-1)).toMatchObject({
      type: "turn.failed",
      error: { message: expect.stringMatching(message) },
    });
    expect(server.requests).toHaveLength(1);
    // No retry with backoff: one request (above), and nowhere near the minutes retries take (a
    // loaded machine may take seconds to start the CLI, so the bound is loose).
    expect(run.elapsedMs).toBeLessThan(60_000);
  });

  it("stall → the CLI gives up after stream_idle_timeout_ms", async () => {
    const { run } = await runScenario([{ stall: true, text: "partial" }], { streamIdleTimeoutMs: 600 });
    expect(run.code).toBe(1);
    expect(run.events.at(-1)).toMatchObject({ type: "turn.failed" });
    expect(run.events.at(-1).error.message).toMatch(/idle timeout/);
    // The 600 ms limit, not Codex's default of 300 s (loose: a loaded machine starts the CLI slowly).
    expect(run.elapsedMs).toBeLessThan(60_000);
  });
});
