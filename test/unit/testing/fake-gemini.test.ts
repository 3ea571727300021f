import { describe, expect, it } from "vitest";
import {
  type FakeGeminiServer,
  type GeminiTurn,
  parseSseData,
  sampleFromJsonSchema,
  startFakeGemini,
} from "../../../src/testing/index.js";
import { stripInjectedBlocks } from "../../../src/testing/shared/script.js";

const ROUTER_SCHEMA = {
  type: "OBJECT",
  properties: {
    complexity_reasoning: { type: "STRING", description: "Brief explanation for the score." },
    complexity_score: { type: "INTEGER", description: "Complexity score from 1-100." },
  },
  required: ["complexity_reasoning", "complexity_score"],
};

function geminiBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    contents: [
      { role: "user", parts: [{ text: "<session_context>\nThis is the Gemini CLI.\n</session_context>" }] },
      { role: "user", parts: [{ text: "RUN: ls" }] },
    ],
    systemInstruction: { role: "user", parts: [{ text: "You are Gemini CLI." }] },
    tools: [{ functionDeclarations: [{ name: "run_shell_command" }, { name: "write_file" }] }],
    generationConfig: { temperature: 1 },
    ...extra,
  };
}

async function post(
  server: FakeGeminiServer,
  model: string,
  rpc: string,
  body: unknown,
  query = "",
): Promise<Response> {
  return fetch(`${server.url}/v1beta/models/${model}:${rpc}${query}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": "k" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function streamTurn(server: FakeGeminiServer, extra: Record<string, unknown> = {}): Promise<any[]> {
  const res = await post(server, "gemini-3", "streamGenerateContent", geminiBody(extra), "?alt=sse");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/event-stream");
  return parseSseData(await res.text()) as any[];
}

const partsOf = (chunks: any[]): any[] => chunks.flatMap((c) => c.candidates[0].content.parts);
const textOf = (chunks: any[]): string =>
  partsOf(chunks)
    .filter((p) => typeof p.text === "string" && !p.thought)
    .map((p) => p.text)
    .join("");

describe("fake Gemini server (HTTP)", () => {
  it("streams text over SSE in several chunks; the last has finishReason STOP and usageMetadata", async () => {
    await using server = await startFakeGemini({
      turns: [{ text: "Hello from the fake Gemini!", thought: "hmm" }],
    });
    const chunks = await streamTurn(server);
    expect(chunks.length).toBeGreaterThan(2);
    expect(partsOf(chunks)[0]).toEqual({ text: "hmm", thought: true });
    expect(textOf(chunks)).toBe("Hello from the fake Gemini!");
    for (const c of chunks.slice(0, -1)) expect(c.candidates[0].finishReason).toBeUndefined();
    const last = chunks.at(-1);
    expect(last.candidates[0]).toMatchObject({ finishReason: "STOP", index: 0, content: { role: "model" } });
    const usage = last.usageMetadata;
    expect(usage.totalTokenCount).toBe(usage.promptTokenCount + usage.candidatesTokenCount);
    expect(last.modelVersion).toBe("gemini-3");
    expect(new Set(chunks.map((c) => c.responseId)).size).toBe(1);

    expect(server.turnRequests[0]).toMatchObject({
      method: "POST",
      path: "/v1beta/models/gemini-3:streamGenerateContent",
      query: "?alt=sse",
      model: "gemini-3",
      rpc: "streamGenerateContent",
      stream: true,
      scripted: true,
      sideCall: undefined,
      lastUserText: "RUN: ls",
      systemText: "You are Gemini CLI.",
      toolNames: ["run_shell_command", "write_file"],
      functionResponses: [],
      isFunctionResponseFollowUp: false,
      jsonMode: false,
    });
  });

  it("answers functionCall parts (stream and generateContent) and records functionResponses", async () => {
    await using server = await startFakeGemini({
      turns: [
        { text: "Running.", functionCall: { name: "run_shell_command", args: { command: "ls" } } },
        {
          functionCalls: [
            { name: "write_file", args: { file_path: "/a", content: "b" }, id: "fc-1" },
            { name: "run_shell_command", args: { command: "pwd" } },
          ],
        },
      ],
    });
    const chunks = await streamTurn(server);
    expect(textOf(chunks)).toBe("Running.");
    expect(partsOf(chunks).filter((p) => p.functionCall)).toEqual([
      { functionCall: { name: "run_shell_command", args: { command: "ls" } } },
    ]);
    expect(chunks.at(-1).candidates[0].finishReason).toBe("STOP");

    const followUp = geminiBody();
    (followUp.contents as unknown[]).push(
      { role: "model", parts: [{ functionCall: { name: "run_shell_command", args: { command: "ls" } } }] },
      {
        role: "user",
        parts: [{ functionResponse: { name: "run_shell_command", id: "x1", response: { output: "a.txt" } } }],
      },
    );
    const res = await post(server, "gemini-3", "generateContent", followUp);
    const json = (await res.json()) as any;
    expect(json.candidates[0]).toMatchObject({
      finishReason: "STOP",
      content: {
        role: "model",
        parts: [
          { functionCall: { name: "write_file", args: { file_path: "/a", content: "b" }, id: "fc-1" } },
          { functionCall: { name: "run_shell_command", args: { command: "pwd" } } },
        ],
      },
    });
    const req = server.requests[1]!;
    expect(req.functionResponses).toEqual([
      { name: "run_shell_command", id: "x1", response: { output: "a.txt" } },
    ]);
    expect(req.isFunctionResponseFollowUp).toBe(true);
    expect(req.lastUserText).toBe("RUN: ls");
  });

  it("answers JSON-mode requests (Gemini CLI's router) from their schema without consuming a turn", async () => {
    await using server = await startFakeGemini({ turns: [{ text: "main turn" }] });
    const router = await post(server, "gemini-3.5-flash-lite", "generateContent", {
      contents: [{ role: "user", parts: [{ text: "RUN: ls" }] }],
      generationConfig: { responseMimeType: "application/json", responseJsonSchema: ROUTER_SCHEMA },
    });
    const answer = (await router.json()) as any;
    const value = JSON.parse(answer.candidates[0].content.parts[0].text);
    expect(value).toEqual({ complexity_reasoning: "fake", complexity_score: 1 });
    expect(textOf(await streamTurn(server))).toBe("main turn");
    expect(server.requests.map((r) => [r.sideCall, r.scripted, r.jsonMode])).toEqual([
      ["json-mode", false, true],
      [undefined, true, false],
    ]);
    expect(server.requests[0]!.responseSchema).toEqual(ROUTER_SCHEMA);
  });

  it("lets side calls take precedence over JSON mode, and answerJsonMode: false script JSON turns", async () => {
    await using custom = await startFakeGemini({
      sideCalls: [
        { name: "router", match: (r) => r.model.includes("lite"), turn: { json: { complexity_score: 80 } } },
      ],
    });
    const res = await post(custom, "flash-lite", "generateContent", {
      contents: [],
      generationConfig: { responseMimeType: "application/json" },
    });
    expect(JSON.parse(((await res.json()) as any).candidates[0].content.parts[0].text)).toEqual({
      complexity_score: 80,
    });
    expect(custom.requests[0]!.sideCall).toBe("router");

    await using scripted = await startFakeGemini({ answerJsonMode: false, turns: [{ json: [1, 2] }] });
    scripted.addSideCalls({ name: "never", match: () => false });
    const r2 = await post(scripted, "m", "generateContent", {
      generationConfig: { responseMimeType: "application/json" },
    });
    expect(((await r2.json()) as any).candidates[0].content.parts[0].text).toBe("[1,2]");
    expect(scripted.turnRequests).toHaveLength(1);
  });

  it("streamGenerateContent without alt=sse answers a JSON array; countTokens and model list", async () => {
    await using server = await startFakeGemini({ turns: [{ text: "array" }], model: "gemini-x" });
    const res = await post(server, "gemini-3", "streamGenerateContent", geminiBody());
    const arr = (await res.json()) as any[];
    expect(Array.isArray(arr)).toBe(true);
    expect(arr[0].candidates[0].content.parts).toEqual([{ text: "array" }]);
    const count = await post(server, "gemini-3", "countTokens", geminiBody());
    expect(((await count.json()) as any).totalTokens).toBeGreaterThan(0);
    expect(server.turnRequests).toHaveLength(1);
    const list = (await (await fetch(`${server.url}/v1beta/models`)).json()) as any;
    expect(list.models[0].name).toBe("models/gemini-x");
  });

  it("answers errors with the Google error body; 404 and 400 for bad routes and bodies; throwing turns 400", async () => {
    await using server = await startFakeGemini({
      turns: [
        { error: { status: 429, message: "quota" } },
        () => {
          throw new Error("nope");
        },
        { weird: 1 } as unknown as GeminiTurn,
      ],
    });
    const limited = await post(server, "m", "generateContent", geminiBody());
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({
      error: { code: 429, message: "quota", status: "RESOURCE_EXHAUSTED" },
    });
    const threw = await post(server, "m", "generateContent", geminiBody());
    expect(threw.status).toBe(400);
    expect(((await threw.json()) as any).error.message).toContain("nope");
    const weird = await post(server, "m", "generateContent", geminiBody());
    expect(((await weird.json()) as any).error.message).toContain("unrecognised scripted turn");
    expect((await post(server, "m", "generateContent", "{bad")).status).toBe(400);
    const missing = await fetch(`${server.url}/v1beta/files`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.status).toBe("NOT_FOUND");
  });

  it("breaks a stream mid-way; a stall stays open until the client leaves or the server closes", async () => {
    const server = await startFakeGemini({
      turns: [{ brokenStream: true }, { stall: true, text: "slow" }, { text: "next" }],
    });
    const broken = await post(server, "m", "streamGenerateContent", geminiBody(), "?alt=sse");
    await expect(broken.text()).rejects.toThrow();
    const stalled = await post(server, "m", "streamGenerateContent", geminiBody(), "?alt=sse");
    const reader = stalled.body!.getReader();
    let text = "";
    while (!text.includes("slow")) text += new TextDecoder().decode((await reader.read()).value);
    expect(textOf(await streamTurn(server))).toBe("next");
    const ended = (async () => {
      for (;;) if ((await reader.read()).done) return "ended";
    })().catch(() => "errored");
    await server.close();
    expect(["ended", "errored"]).toContain(await ended);
  });
});

describe("sampleFromJsonSchema", () => {
  it("fills required properties by type, first enum/const, anyOf, arrays of minItems, Gemini type names", () => {
    expect(sampleFromJsonSchema(ROUTER_SCHEMA)).toEqual({
      complexity_reasoning: "fake",
      complexity_score: 1,
    });
    expect(
      sampleFromJsonSchema({
        type: "object",
        properties: {
          decision: { type: "string", enum: ["allow", "deny"] },
          n: { type: "number", minimum: 5 },
          flag: { type: "boolean" },
          list: { type: "array", items: { type: "string" }, minItems: 2 },
          nested: { type: ["object", "null"], properties: { k: { const: 3 } } },
          either: { anyOf: [{ type: "integer" }, { type: "string" }] },
          skipped: { type: "string" },
        },
        required: ["decision", "n", "flag", "list", "nested", "either"],
      }),
    ).toEqual({ decision: "allow", n: 5, flag: false, list: ["fake", "fake"], nested: { k: 3 }, either: 1 });
    expect(sampleFromJsonSchema(undefined)).toBeNull();
    expect(sampleFromJsonSchema({ type: "mystery" })).toBeNull();
  });
});

describe("stripInjectedBlocks", () => {
  it("removes leading and trailing tag blocks, keeps the prompt and inner tags", () => {
    expect(stripInjectedBlocks("<current_datetime>x</current_datetime>\n\nRUN: ls")).toBe("RUN: ls");
    expect(stripInjectedBlocks("RUN: ls\n\n<environment_details>\na\n</environment_details>")).toBe(
      "RUN: ls",
    );
    expect(stripInjectedBlocks('<a>1</a><b k="v">2</b> keep <i>this</i> text <c>3</c>')).toBe(
      "keep <i>this</i> text",
    );
    expect(stripInjectedBlocks("<system-reminder>only</system-reminder>")).toBe("");
  });
});
