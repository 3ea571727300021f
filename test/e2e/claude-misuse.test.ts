/**
 * Misuse a JavaScript caller can commit that the types reject or cannot see: prompts of the wrong
 * shape, prompt streams that throw non-Errors, `next()` called ahead, a query dropped after its
 * result, a stderr callback that throws something unprintable. Each ends with a typed error or a
 * normal end — never a hang, a crash of the host, or a CLI left running. Against the Claude
 * stand-in (test/fixtures/fake-cli/fake-claude.mjs), which records the user turns it was sent.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  AgentSdkClient,
  AgentSdkError,
  InvalidOptionsError,
  ProcessError,
  type Prompt,
  query,
} from "../../src/index.js";
import { liveGroupCount } from "../../src/process/group-registry.js";
import { isAlive } from "../lifecycle/support/processes.js";
import { outcome } from "./support.js";

const FAKE_CLAUDE = fileURLToPath(new URL("../fixtures/fake-cli/fake-claude.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "cas-misuse-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let records = 0;

function fake(mode = "ok", extra: Record<string, string> = {}) {
  const record = join(dir, `record-${++records}.json`);
  return {
    record,
    options: {
      cliPath: FAKE_CLAUDE,
      env: {
        FAKE_CLAUDE_MODE: mode,
        FAKE_CLAUDE_RECORD: record,
        CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK: "1",
        ...extra,
      },
    },
  };
}

describe("prompts of the wrong shape", () => {
  it("query(): undefined, a number, an object, null, a list of non-blocks → InvalidOptionsError, nothing spawned", async () => {
    for (const prompt of [undefined, 5, {}, null, [1], [null], new Map()] as unknown as Prompt[]) {
      const { options } = fake();
      const q = query({ prompt, options });
      const { seen, error } = await outcome(q);
      expect(seen).toEqual([]);
      expect(error, String(prompt)).toBeInstanceOf(InvalidOptionsError);
      expect((error as Error).message).toMatch(/^Invalid options:\n {2}- prompt: expected text/);
      expect(q.pid).toBeUndefined();
    }
    expect(liveGroupCount()).toBe(0);
  });

  it("a streamed prompt yielding null or a number fails the query with InvalidOptionsError; nothing is written as a turn", async () => {
    for (const bad of [null, 42, { type: "user" }]) {
      const { options, record } = fake();
      const prompt = (async function* () {
        yield "first";
        yield bad as unknown as string;
      })();
      const { error } = await outcome(query({ prompt, options }));
      expect(error).toBeInstanceOf(InvalidOptionsError);
      expect((error as Error).message).toMatch(/a streamed item must be text/);
      // The first turn may or may not have been read before the session ended; the bad one never is.
      const { users } = JSON.parse(readFileSync(record, "utf8")) as { users: unknown[] };
      expect(users.length).toBeLessThanOrEqual(1);
    }
  });

  it("client.run() and client.query() refuse a non-prompt before sending anything", async () => {
    const { options, record } = fake();
    const client = new AgentSdkClient(options);
    await client.connect();
    try {
      // An object whose Symbol.asyncIterator is not a function is not a stream either.
      const notAStream = { [Symbol.asyncIterator]: 5 };
      for (const prompt of [5, {}, undefined, null, notAStream]) {
        await expect(client.run(prompt as unknown as string)).rejects.toBeInstanceOf(InvalidOptionsError);
        await expect(client.query(prompt as unknown as string)).rejects.toBeInstanceOf(InvalidOptionsError);
      }
      await expect(client.streamInput(notAStream as unknown as AsyncIterable<never>)).rejects.toBeInstanceOf(
        InvalidOptionsError,
      );
      expect((await client.run("still works")).error).toBeUndefined();
      const { users } = JSON.parse(readFileSync(record, "utf8")) as { users: unknown[] };
      expect(users).toHaveLength(1);
    } finally {
      await client.disconnect();
    }
  });
});

describe("prompt streams that throw", () => {
  it("a thrown Error is the query's error; any other value (undefined, null, a Symbol, a null-prototype object) an AgentSdkError with it as cause", async () => {
    const values: unknown[] = [undefined, null, Symbol("s"), Object.create(null)];
    const mine = new Error("mine");
    for (const thrown of [mine, ...values]) {
      const { options } = fake();
      const prompt = (async function* () {
        yield "first";
        throw thrown;
      })();
      const { error } = await outcome(query({ prompt, options }));
      if (thrown === mine) expect(error).toBe(mine);
      else {
        expect(error).toBeInstanceOf(AgentSdkError);
        expect((error as Error).cause).toBe(thrown);
        expect(String(error)).toMatch(/the prompt stream threw .*, not an Error/);
      }
    }
    expect(liveGroupCount()).toBe(0);
  });
});

describe("reading a one-shot query", () => {
  it("next() called three times before anything came: each settles (init, result, done) and the CLI exits", async () => {
    const { options } = fake();
    const q = query({ prompt: "hi", options });
    const calls = [q.next(), q.next(), q.next()];
    const settled = await Promise.all(calls);
    expect(settled.map((r) => (r.done ? "done" : r.value.type))).toEqual(["system", "result", "done"]);
    expect(liveGroupCount()).toBe(0);
  });

  it("a query dropped after its result (no next(), no close()) has its input ended after exitTimeoutMs: the CLI exits", async () => {
    const { options } = fake();
    const q = query({ prompt: "hi", options: { ...options, exitTimeoutMs: 300 } });
    for (;;) {
      const r = await q.next();
      if (r.done || r.value.type === "result") break;
    }
    const pid = q.pid as number;
    expect(isAlive(pid)).toBe(true);
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 20_000, interval: 50 });
  });
});

describe("exitTimeoutMs: Infinity", () => {
  it("a query held after its result keeps its session: controls still answer, nothing ends its input", async () => {
    const { options } = fake();
    const q = query({ prompt: "hi", options: { ...options, exitTimeoutMs: Number.POSITIVE_INFINITY } });
    for (;;) {
      const r = await q.next();
      if (r.done || r.value.type === "result") break;
    }
    // Round trips to the CLI after the result: a timer of Infinity (Node fires it after 1 ms) would
    // have ended the input, and the CLI would be gone.
    for (let i = 0; i < 5; i++) expect(await q.controlRequest({ subtype: "probe", i })).toBeDefined();
    expect(isAlive(q.pid as number)).toBe(true);
    await q.close();
  });
});

describe("a CLI that echoes its key on stderr", () => {
  it("the ProcessError's message and stderrTail carry it redacted; the stderr callback (the caller's own) sees the line as written", async () => {
    const cli = join(dir, "echoes-key.mjs");
    writeFileSync(
      cli,
      [
        "#!/usr/bin/env node",
        "const env = process.env;",
        'process.stderr.write("Error: invalid x-api-key " + env.ANTHROPIC_API_KEY + " for " + env.MY_SERVICE_TOKEN + "\\n");',
        "process.exit(1);",
        "",
      ].join("\n"),
    );
    chmodSync(cli, 0o755);
    const key = "sk-ant-api03-TOPSECRETvalue0123456789";
    const token = "plain-token-value-42";
    const lines: string[] = [];
    const { error } = await outcome(
      query({
        prompt: "hi",
        options: {
          cliPath: cli,
          env: { ANTHROPIC_API_KEY: key, MY_SERVICE_TOKEN: token, CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK: "1" },
          stderr: (line) => lines.push(line),
        },
      }),
    );
    expect(error).toBeInstanceOf(ProcessError);
    const { message, stderrTail } = error as ProcessError;
    for (const text of [message, stderrTail, JSON.stringify(error), String(error)]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(token);
    }
    expect(stderrTail).toMatch(/invalid x-api-key \S*REDACTED\S* for \S*REDACTED/);
    expect(lines.join("\n")).toContain(key);
  });
});

describe("callbacks that throw the unprintable", () => {
  it("a stderr callback throwing a null-prototype object is reported once as a warning; the host lives, the query fails typed", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on("warning", onWarning);
    try {
      const { options } = fake("crash-mid-turn");
      const { error } = await outcome(
        query({
          prompt: "hi",
          options: {
            ...options,
            stderr: () => {
              throw Object.create(null);
            },
          },
        }),
      );
      expect(error).toBeInstanceOf(ProcessError);
      await vi.waitFor(() => expect(warnings.join("\n")).toMatch(/callback threw .*prototype-less object/));
    } finally {
      process.off("warning", onWarning);
    }
  });
});
