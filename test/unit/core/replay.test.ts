/**
 * ReplayTransport on edited or hand-written recordings: every malformed line is a ReplayError
 * naming its line (never a TypeError later), and what the SDK writes is compared with the
 * recording — another prompt or answer is a ReplayError with the difference.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { query } from "../../../src/index.js";
import { REDACTED, ReplayError, ReplayTransport } from "../../../src/testing/index.js";

const HEADER = JSON.stringify({
  kind: "header",
  format: "code-agent-sdk/recording",
  version: 1,
  backend: "claude",
  sdkVersion: "0.0.0",
  startedAt: "2026-01-01T00:00:00.000Z",
});

/** A minimal Claude one-shot recording: initialize, one user turn, one result. */
function recording(prompt: string, extraEvents: string[] = []): string {
  return [
    HEADER,
    JSON.stringify({
      t: 0,
      kind: "out",
      line: {
        type: "control_request",
        request_id: "req_1",
        request: { subtype: "initialize", systemPrompt: [""] },
      },
    }),
    JSON.stringify({
      t: 1,
      kind: "in",
      line: { type: "control_response", response: { subtype: "success", request_id: "req_1", response: {} } },
    }),
    JSON.stringify({
      t: 2,
      kind: "out",
      line: {
        type: "user",
        message: { role: "user", content: prompt },
        parent_tool_use_id: null,
        session_id: "default",
        uuid: "u-1",
      },
    }),
    JSON.stringify({
      t: 3,
      kind: "in",
      line: {
        type: "result",
        subtype: "success",
        is_error: false,
        duration_ms: 1,
        duration_api_ms: 1,
        num_turns: 1,
        result: "recorded answer",
        session_id: "s1",
      },
    }),
    ...extraEvents,
    JSON.stringify({ t: 4, kind: "end-input" }),
    JSON.stringify({ t: 5, kind: "end" }),
  ].join("\n");
}

async function replay(text: string, prompt: string, options: { match?: "content" | "kind" } = {}) {
  const transport = ReplayTransport.fromText(text, "hello.jsonl", options);
  const messages = [];
  for await (const message of query({
    prompt,
    options: { backend: "claude", transport, cliPath: "/nonexistent" },
  }))
    messages.push(message);
  return messages;
}

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("ReplayTransport on an edited recording", () => {
  const cases: [string, string, RegExp][] = [
    ["a line that is an array", `${HEADER}\n[1,2]`, /hello\.jsonl:2 is not a JSON object/],
    ["a line that is a string", `${HEADER}\n"in"`, /hello\.jsonl:2 is not a JSON object/],
    ["a line that is null", `${HEADER}\nnull`, /hello\.jsonl:2 is not a JSON object/],
    [
      "an in event without line",
      `${HEADER}\n{"t":1,"kind":"in"}`,
      /hello\.jsonl:2: an "in" event without a JSON object `line`/,
    ],
    [
      "an in event whose line is a string",
      `${HEADER}\n{"t":1,"kind":"in","line":"x"}`,
      /hello\.jsonl:2: an "in"/,
    ],
    [
      "an out event with neither line nor text",
      `${HEADER}\n{"t":1,"kind":"out"}`,
      /hello\.jsonl:2: an "out" event/,
    ],
    [
      "an invalid event without text",
      `${HEADER}\n{"t":1,"kind":"invalid"}`,
      /hello\.jsonl:2: an "invalid" event/,
    ],
    [
      "an end whose error is a string",
      `${HEADER}\n{"t":1,"kind":"end","error":"boom"}`,
      /hello\.jsonl:2: an "end" event whose error/,
    ],
    [
      "an end whose exit code is text",
      `${HEADER}\n{"t":1,"kind":"end","error":{"name":"ProcessError","message":"m","exitCode":"1"}}`,
      /exitCode/,
    ],
    [
      "an unknown kind",
      `${HEADER}\n{"t":1,"kind":"teleport"}`,
      /hello\.jsonl:2: unknown event kind "teleport"/,
    ],
    [
      "bad JSON after blank lines (the real line number)",
      `${HEADER}\n\n\n{"t":1,`,
      /hello\.jsonl:4 is not JSON/,
    ],
    [
      "an event after blank lines (the real line number)",
      `${HEADER}\n\n{"t":1,"kind":"in"}`,
      /hello\.jsonl:3: an "in" event/,
    ],
    ["a header without a backend", HEADER.replace('"backend":"claude",', ""), /names no backend/],
    ["no header", '{"t":1,"kind":"end"}', /not a code-agent-sdk recording/],
  ];
  for (const [what, text, message] of cases) {
    it(`${what} → ReplayError naming the line`, () => {
      const error = thrown(() => ReplayTransport.fromText(text, "hello.jsonl"));
      expect(error).toBeInstanceOf(ReplayError);
      expect((error as Error).message).toMatch(message);
    });
  }

  it("the constructor checks events given directly too", () => {
    const header = JSON.parse(HEADER);
    const error = thrown(() => new ReplayTransport(header, [{ t: 1, kind: "in" } as never]));
    expect(error).toBeInstanceOf(ReplayError);
    expect((error as Error).message).toMatch(/recording:2: an "in" event/);
  });

  it("a gap the recorder left ends the replay with ReplayError at that line", async () => {
    const text = recording("hi").replace(
      /\n(\{"t":3,)/,
      `\n${JSON.stringify({ t: 3, kind: "gap", direction: "in", reason: "nested too deeply" })}\n$1`,
    );
    await expect(replay(text, "hi")).rejects.toThrow(
      /hello\.jsonl:5: the recording has a gap here \(nested too deeply\)/,
    );
  });
});

describe("ReplayTransport compares what the SDK writes with the recording", () => {
  it("the same prompt replays", async () => {
    const messages = await replay(recording("Say hello"), "Say hello");
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "recorded answer" });
  });

  it("another prompt is a ReplayError naming the line and the difference (not the recorded answer)", async () => {
    const error = await replay(recording("Say hello"), "Delete everything").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ReplayError);
    expect((error as Error).message).toMatch(
      /hello\.jsonl:4: message\.content: recorded "Say hello", written "Delete everything"/,
    );
  });

  it("[REDACTED] in the recording matches any text; the rest must match", async () => {
    const text = recording(`my key is ${REDACTED}, thanks`);
    await expect(replay(text, "my key is sk-live-secret-value, thanks")).resolves.toHaveLength(1);
    await expect(replay(text, "my key is sk-live-secret-value, bye")).rejects.toThrow(ReplayError);
  });

  it("the mismatch message does not show a secret the SDK wrote", async () => {
    const error = await replay(recording("hello"), "use ghp_abcdefghijklmnopqrstuvwxyz0123").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error).message).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123");
  });

  it('match: "kind" replays another prompt (only the kind of each line is compared)', async () => {
    const messages = await replay(recording("Say hello"), "Something else", { match: "kind" });
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "recorded answer" });
  });

  it("another option on the wire (a system prompt in initialize) is a ReplayError", async () => {
    const transport = ReplayTransport.fromText(recording("hi"), "hello.jsonl");
    const run = query({
      prompt: "hi",
      options: { backend: "claude", transport, cliPath: "/nonexistent", systemPrompt: "Be terse." },
    });
    const error = await (async () => {
      for await (const _ of run);
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ReplayError);
    expect((error as Error).message).toMatch(
      /hello\.jsonl:2: request\.systemPrompt\[0\]: recorded "", written "Be terse\."/,
    );
  });
});

describe("ReplayTransport.fromFile", () => {
  it("refuses a FIFO or a directory at once instead of waiting for a writer; reads a regular file", () => {
    const dir = mkdtempSync(join(tmpdir(), "cas-replay-"));
    try {
      const fifo = join(dir, "fifo");
      execFileSync("mkfifo", [fifo]);
      // A blocking open of a FIFO with no writer never returns: this test would hang, not fail.
      expect(() => ReplayTransport.fromFile(fifo)).toThrow(/Cannot read the recording .*not a regular file/);
      expect(() => ReplayTransport.fromFile(dir)).toThrow(ReplayError);
      expect(() => ReplayTransport.fromFile(join(dir, "absent"))).toThrow(/ENOENT/);
      const file = join(dir, "rec.jsonl");
      writeFileSync(file, "not json\n");
      expect(() => ReplayTransport.fromFile(file)).toThrow(/rec\.jsonl:1 is not JSON/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
