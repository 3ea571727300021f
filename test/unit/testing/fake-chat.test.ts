import { describe, expect, it } from "vitest";
import {
  type ChatTurn,
  type FakeChatCompletionsServer,
  parseSseData,
  type RecordedChatRequest,
  startFakeChatCompletions,
} from "../../../src/testing/index.js";

function chatBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: "fake-model",
    stream: true,
    stream_options: { include_usage: true },
    messages: [
      { role: "system", content: "You are an agent." },
      {
        role: "user",
        content: [
          { type: "text", text: "<system-reminder>\nskills\n</system-reminder>" },
          { type: "text", text: "<current_datetime>now</current_datetime>\n\nRUN: ls" },
          { type: "text", text: "\n\n<environment_details>\ncwd\n</environment_details>" },
        ],
      },
    ],
    tools: [
      { type: "function", function: { name: "bash", parameters: { type: "object" } } },
      { type: "function", function: { name: "write", parameters: { type: "object" } } },
    ],
    ...extra,
  };
}

async function post(
  server: FakeChatCompletionsServer,
  body: unknown,
  path = "/v1/chat/completions",
): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer k" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Reassembles a streamed answer the way an OpenAI client does. */
function reassemble(chunks: any[]): {
  content: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finish: string | undefined;
  usage: any;
  role: string | undefined;
} {
  let content = "";
  let finish: string | undefined;
  let usage: any;
  let role: string | undefined;
  const toolCalls: Array<{ id: string; name: string; arguments: string }> = [];
  for (const c of chunks) {
    expect(c.object).toBe("chat.completion.chunk");
    if (c.usage) usage = c.usage;
    for (const choice of c.choices) {
      role ??= choice.delta.role;
      if (typeof choice.delta.content === "string") content += choice.delta.content;
      for (const tc of choice.delta.tool_calls ?? []) {
        toolCalls[tc.index] ??= { id: "", name: "", arguments: "" };
        const slot = toolCalls[tc.index]!;
        if (tc.id) slot.id = tc.id;
        if (tc.function?.name) slot.name = tc.function.name;
        if (tc.function?.arguments) slot.arguments += tc.function.arguments;
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  return { content, toolCalls, finish, usage, role };
}

async function streamTurn(server: FakeChatCompletionsServer, extra: Record<string, unknown> = {}) {
  const res = await post(server, chatBody(extra));
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/event-stream");
  const text = await res.text();
  expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
  return reassemble(parseSseData(text));
}

describe("fake OpenAI Chat Completions server (HTTP)", () => {
  it("streams text in several deltas with role, finish_reason stop and a usage chunk", async () => {
    await using server = await startFakeChatCompletions({ turns: [{ text: "Hello from the fake model!" }] });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.baseUrlV1).toBe(`${server.url}/v1`);
    const res = await post(server, chatBody());
    const chunks = parseSseData(await res.text()) as any[];
    expect(chunks.filter((c) => c.choices[0]?.delta?.content).length).toBeGreaterThan(1);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    const out = reassemble(chunks);
    expect(out).toMatchObject({ content: "Hello from the fake model!", finish: "stop", role: "assistant" });
    expect(out.toolCalls).toEqual([]);
    expect(out.usage.total_tokens).toBe(out.usage.prompt_tokens + out.usage.completion_tokens);
    expect(out.usage.prompt_tokens).toBeGreaterThan(1);

    const [req] = server.turnRequests;
    expect(req).toMatchObject({
      method: "POST",
      path: "/v1/chat/completions",
      scripted: true,
      sideCall: undefined,
      lastUserText: "RUN: ls",
      systemText: "You are an agent.",
      toolNames: ["bash", "write"],
      toolResults: [],
      isToolFollowUp: false,
    });
  });

  it("streams tool calls: id and name first, then the arguments in several deltas; finish_reason tool_calls", async () => {
    await using server = await startFakeChatCompletions({
      turns: [
        {
          text: "Let me run it.",
          toolCalls: [
            { name: "bash", arguments: { command: "echo a long enough command to split" } },
            { name: "write", arguments: '{"filePath":"/x","content":"y"}', id: "call_fixed" },
          ],
        },
        { toolCall: { name: "bash", arguments: { command: "ls" } } },
      ],
    });
    const res = await post(server, chatBody());
    const chunks = parseSseData(await res.text()) as any[];
    const first = chunks.find((c) => c.choices[0]?.delta?.tool_calls)!.choices[0].delta.tool_calls[0];
    expect(first).toMatchObject({ index: 0, type: "function", function: { name: "bash", arguments: "" } });
    expect(first.id).toMatch(/^call_[0-9a-f]{24}$/);
    const argDeltas = chunks.filter((c) => c.choices[0]?.delta?.tool_calls?.[0]?.index === 0).length - 1;
    expect(argDeltas).toBeGreaterThan(1);
    const out = reassemble(chunks);
    expect(out.content).toBe("Let me run it.");
    expect(out.finish).toBe("tool_calls");
    expect(out.toolCalls).toHaveLength(2);
    expect(JSON.parse(out.toolCalls[0]!.arguments)).toEqual({
      command: "echo a long enough command to split",
    });
    expect(out.toolCalls[1]).toEqual({
      id: "call_fixed",
      name: "write",
      arguments: '{"filePath":"/x","content":"y"}',
    });

    const single = await streamTurn(server);
    expect(single.toolCalls.map((c) => c.name)).toEqual(["bash"]);
    expect(single.content).toBe("");
  });

  it("records tool results and answers non-streaming requests with a chat.completion", async () => {
    await using server = await startFakeChatCompletions({
      turns: [{ toolCall: { name: "bash", arguments: { command: "ls" }, id: "call_1" }, text: "ok" }],
    });
    const body = chatBody({ stream: false });
    (body.messages as unknown[]).push(
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_0", type: "function", function: { name: "bash", arguments: "{}" } }],
      },
      {
        role: "tool",
        tool_call_id: "call_0",
        content: [
          { type: "text", text: "file-a" },
          { type: "text", text: "file-b" },
        ],
      },
    );
    const res = await post(server, body);
    expect(res.headers.get("content-type")).toBe("application/json");
    const json = (await res.json()) as any;
    expect(json).toMatchObject({
      object: "chat.completion",
      model: "fake-model",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: "ok",
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
            ],
          },
        },
      ],
    });
    expect(json.usage.total_tokens).toBe(json.usage.prompt_tokens + json.usage.completion_tokens);
    const req = server.requests[0]!;
    expect(req.toolResults).toEqual([{ tool_call_id: "call_0", text: "file-a\nfile-b" }]);
    expect(req.isToolFollowUp).toBe(true);
    expect(req.lastUserText).toBe("RUN: ls");
  });

  it("lastUserText keeps the prompt CodeBuddy Code wraps in <user_query>, other context tags still stripped", async () => {
    await using server = await startFakeChatCompletions({
      turns: [{ text: "a" }, { text: "b" }, { text: "c" }],
    });
    // CodeBuddy Code 2.117.0's user message: context reminders, then the prompt in <user_query>.
    const codebuddy =
      '<system-reminder data-role="memory"><memory>\n# auto memory\n</memory></system-reminder>\n\n' +
      "<system-reminder>\nAs you answer the user's questions, you can use the following context\n</system-reminder>\n\n" +
      "<user_query>RUN: write <b>a.txt</b>\nnow</user_query>";
    await post(server, chatBody({ messages: [{ role: "user", content: codebuddy }], stream: false }));
    // A trailing context block after the query goes too; a message that is only context is skipped.
    await post(
      server,
      chatBody({
        stream: false,
        messages: [
          { role: "user", content: "<user_query>first</user_query>" },
          {
            role: "user",
            content: "<user_query> second </user_query>\n<environment_details>x</environment_details>",
          },
          { role: "user", content: "<system-reminder>only</system-reminder>" },
        ],
      }),
    );
    // A prompt cancelled before it ran and the next one: two blocks in one message.
    await post(
      server,
      chatBody({
        stream: false,
        messages: [
          { role: "user", content: "<user_query>SLOW</user_query>\n<user_query>AFTER</user_query>" },
        ],
      }),
    );
    expect(server.requests.map((r) => r.lastUserText)).toEqual([
      "RUN: write <b>a.txt</b>\nnow",
      "second",
      "SLOW\nAFTER",
    ]);
  });

  it("omits the usage chunk unless include_usage is set, and uses scripted usage", async () => {
    await using server = await startFakeChatCompletions({
      turns: [{ text: "a" }, { text: "b", usage: { prompt_tokens: 7, completion_tokens: 3 } }],
    });
    expect((await streamTurn(server, { stream_options: undefined })).usage).toBeUndefined();
    expect((await streamTurn(server)).usage).toEqual({
      prompt_tokens: 7,
      completion_tokens: 3,
      total_tokens: 10,
    });
  });

  it("answers side calls outside the script (first match wins; default answer OK) and records them", async () => {
    const seen: RecordedChatRequest[] = [];
    await using server = await startFakeChatCompletions({
      turns: [{ text: "scripted one" }, { text: "scripted two" }],
      sideCalls: [
        {
          name: "title",
          match: (r) => r.systemText.startsWith("You are a title generator"),
          turn: { text: "A title" },
        },
        {
          name: "throws",
          match: () => {
            throw new Error("bad predicate");
          },
        },
        {
          name: "memory",
          match: (r) => r.lastUserText.includes("memory"),
          turn: (r) => {
            seen.push(r);
            return { text: `memory for ${r.toolNames.length} tools` };
          },
        },
      ],
    });
    server.addSideCalls({ name: "late", match: (r) => r.lastUserText === "late" });
    const title = await streamTurn(server, {
      messages: [
        { role: "system", content: "You are a title generator." },
        { role: "user", content: "x" },
      ],
    });
    expect(title.content).toBe("A title");
    expect((await streamTurn(server)).content).toBe("scripted one");
    const memory = await streamTurn(server, { messages: [{ role: "user", content: "save memory" }] });
    expect(memory.content).toBe("memory for 2 tools");
    expect(seen[0]!.sideCall).toBe("memory");
    expect((await streamTurn(server, { messages: [{ role: "user", content: "late" }] })).content).toBe("OK");
    expect((await streamTurn(server)).content).toBe("scripted two");
    expect(server.requests.map((r) => [r.sideCall, r.scripted])).toEqual([
      ["title", false],
      [undefined, true],
      ["memory", false],
      ["late", false],
      [undefined, true],
    ]);
    expect(server.turnRequests).toHaveLength(2);
  });

  it("answers error turns with an OpenAI error body, function turns with the request, throwing ones as 400", async () => {
    await using server = await startFakeChatCompletions({
      turns: [
        { error: { status: 429, message: "slow down" } },
        (r) => ({ text: `you said ${r.lastUserText}` }),
        async () => () => ({ text: "nested" }),
        () => {
          throw new Error("nope");
        },
        { bogus: true } as unknown as ChatTurn,
      ],
    });
    const limited = await post(server, chatBody());
    expect(limited.status).toBe(429);
    expect(limited.headers.get("x-request-id")).toMatch(/^req_/);
    expect(await limited.json()).toEqual({
      error: { message: "slow down", type: "rate_limit_exceeded", param: null, code: null },
    });
    expect((await streamTurn(server)).content).toBe("you said RUN: ls");
    expect((await streamTurn(server)).content).toBe("nested");
    const bad = await post(server, chatBody());
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.message).toContain("nope");
    const unknown = await post(server, chatBody());
    expect(((await unknown.json()) as any).error.message).toContain("unrecognised scripted turn");
  });

  it("breaks a stream mid-way", async () => {
    await using server = await startFakeChatCompletions({ turns: [{ brokenStream: true, text: "partial" }] });
    const res = await post(server, chatBody());
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  it("stall: sends the first chunk, stays open, and ends when the client disconnects or the server closes", async () => {
    const server = await startFakeChatCompletions({
      turns: [{ stall: true, text: "thinking" }, { stall: true }, { text: "after" }],
    });
    // The client goes away: the server forgets the response and serves the next turn.
    const abort = new AbortController();
    const first = await fetch(`${server.baseUrlV1}/chat/completions`, {
      method: "POST",
      body: JSON.stringify(chatBody()),
      signal: abort.signal,
    });
    const reader1 = first.body!.getReader();
    let text = "";
    while (!text.includes("thinking")) text += new TextDecoder().decode((await reader1.read()).value);
    expect(text).toContain('"role":"assistant"');
    abort.abort();
    // The server stays usable while a stalled stream is open.
    const second = await post(server, chatBody());
    const reader2 = second.body!.getReader();
    await reader2.read();
    expect((await streamTurn(server)).content).toBe("after");
    const ended = (async () => {
      for (;;) if ((await reader2.read()).done) return "ended";
    })().catch(() => "errored");
    await server.close();
    expect(["ended", "errored"]).toContain(await ended);
    await server.close(); // idempotent
  });

  it("serves /v1/models, 404s unknown routes, 400s malformed bodies, defaultTurn and push()", async () => {
    await using server = await startFakeChatCompletions({ defaultTurn: { text: "fallback" }, model: "m-1" });
    server.push({ text: "pushed" });
    expect((await streamTurn(server)).content).toBe("pushed");
    expect((await streamTurn(server)).content).toBe("fallback");
    const plain = (await (await post(server, chatBody({ stream: false, model: undefined }))).json()) as any;
    expect(plain.model).toBe("m-1");
    expect(await (await fetch(`${server.url}/v1/models`)).json()).toMatchObject({ data: [{ id: "m-1" }] });
    expect((await post(server, "{nope")).status).toBe(400);
    expect((await post(server, [1])).status).toBe(400);
    const missing = await fetch(`${server.url}/v1/embeddings`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.type).toBe("not_found");
    expect(server.turnRequests).toHaveLength(3);
    await expect(server.waitForRequest(() => false, { timeoutMs: 20 })).rejects.toThrow(
      /fake-chat: timed out/,
    );
  });
});
