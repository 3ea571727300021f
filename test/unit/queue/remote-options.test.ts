import { execFileSync } from "node:child_process";
import { type AddressInfo, createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../../../src/errors.js";
import { type Message, ProcessError } from "../../../src/index.js";
import {
  decodeEntry,
  decodeStreamEntry,
  encodeEntries,
  encodeEntry,
  MAX_BATCH_ENTRIES,
  type RunEntry,
  STREAM_FORMAT,
  serializeError,
} from "../../../src/queue/entries.js";
import { AgentQueue, AgentWorker, QueueConnectionError } from "../../../src/queue/index.js";
import { restoreEnv, toJobData } from "../../../src/queue/remote-options.js";

const issuesOf = (prompt: unknown, options: Record<string, unknown>) => {
  try {
    toJobData(prompt, options);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionsError);
    return (error as InvalidOptionsError).issues;
  }
  return [];
};

describe("what a queued run may carry", () => {
  it("names every in-process option and where a function hides in plain data", () => {
    const issues = issuesOf("hi", {
      stderr: () => {},
      transport: {},
      onCliInstallProgress: () => {},
      mcpServers: {
        local: { type: "sdk", name: "local", instance: {} },
        remote: { type: "http", url: "http://x" },
      },
      settings: { nested: { fn: () => 1 } },
      extraArgs: { when: new Date(0) as unknown as string },
    });
    expect(issues).toEqual([
      expect.stringMatching(/^stderr: /),
      expect.stringMatching(/^onCliInstallProgress: /),
      expect.stringMatching(/^transport: /),
      expect.stringMatching(/^mcpServers\.local: .*stdio or http/),
      expect.stringMatching(/^settings\.nested\.fn: a function/),
      expect.stringMatching(/^extraArgs\.when: a Date instance/),
    ]);
  });

  it("refuses a streamed prompt and a bad timeout", () => {
    expect(issuesOf((async function* () {})(), {})).toEqual([expect.stringMatching(/^prompt: a streamed/)]);
    expect(() => toJobData("hi", {}, 0)).toThrow(/timeoutMs/);
  });

  it("applies query()'s own validation too", () => {
    expect(() => toJobData("hi", { backend: "nope" })).toThrow(InvalidOptionsError);
  });

  it("keeps env removals (undefined) across JSON", () => {
    const data = toJobData([{ type: "text", text: "hi" }], { env: { KEEP: "1", DROP: undefined } });
    const wire = JSON.parse(JSON.stringify(data)) as typeof data;
    expect(restoreEnv(wire.options.env as Record<string, string | null>)).toEqual({
      KEEP: "1",
      DROP: undefined,
    });
    expect("DROP" in (restoreEnv(wire.options.env as Record<string, string | null>) ?? {})).toBe(true);
  });
});

describe("run stream entries", () => {
  it("round-trip; unknown kinds keep their place; malformed ones say why, never throwing", () => {
    const entry: RunEntry = {
      kind: "retry",
      attempt: 2,
      seq: 5,
      error: serializeError(new ProcessError("boom", { exitCode: 7 }), true),
    };
    expect(decodeEntry(encodeEntry(entry))).toEqual({ entry });
    expect(entry.error).toMatchObject({ name: "ProcessError", exitCode: 7, retryable: true });
    expect(decodeEntry(["k", "future", "a", "1", "s", "0", "d", "{}"])).toMatchObject({
      unknown: { kind: "future", attempt: 1, seq: 0 },
    });
    const problem = (fields: unknown) => decodeEntry(fields).problem;
    expect(problem(["k", "end"])).toMatch(/lacks one of the fields/);
    expect(problem(["k", "message", "a", "1", "s", "0", "d", "{not json"])).toMatch(/not JSON/);
    expect(problem(["k", "message", "a", "1", "s", "0", "d", "{}"])).toMatch(/not an object with a type/);
    expect(problem(["k", "message", "a", "-1", "s", "x", "d", "{}"])).toMatch(/not a count/);
    expect(problem(["k", "end", "a", "1", "s", "0", "d", '{"status":"weird"}'])).toMatch(/known status/);
    // The fields win over the data: an entry cannot pass for another kind, attempt or seq.
    const disguised = decodeEntry([
      "k",
      "start",
      "a",
      "1",
      "s",
      "0",
      "d",
      '{"worker":"w","kind":"end","seq":9}',
    ]);
    expect(disguised.entry).toEqual({ kind: "start", attempt: 1, seq: 0, worker: "w" });
  });

  const note = (n: number) => ({ type: "system", subtype: "note", data: { n }, raw: {} }) as Message;
  const batchFields = (d: unknown, seq = "1", attempt = "2") => [
    "v",
    STREAM_FORMAT,
    "a",
    attempt,
    "s",
    seq,
    "d",
    typeof d === "string" ? d : JSON.stringify(d),
  ];

  it("a batch carries several entries in order (consecutive seqs); single entries still decode", () => {
    const entries: RunEntry[] = [
      { kind: "start", attempt: 2, seq: 4, worker: "w" },
      { kind: "message", attempt: 2, seq: 5, message: note(1) },
      { kind: "message", attempt: 2, seq: 6, message: note(2) },
      { kind: "end", attempt: 2, seq: 7, status: "completed" },
    ];
    expect(decodeStreamEntry(encodeEntries(entries))).toEqual({ parts: entries.map((entry) => ({ entry })) });
    const single = encodeEntry(entries[1]!);
    expect(decodeStreamEntry(single)).toEqual({ parts: [{ entry: entries[1] }] });
    // A reader of the single-entry layout (the version before batches) fails loudly on a batch.
    expect(decodeEntry(encodeEntries(entries)).problem).toMatch(/lacks one of the fields k, a, s, d/);
    // The place comes from the fields: data cannot pass for another kind, attempt or seq.
    expect(
      decodeStreamEntry(batchFields([["start", { worker: "w", kind: "end", seq: 9, attempt: 7 }]])),
    ).toEqual({ parts: [{ entry: { kind: "start", attempt: 2, seq: 1, worker: "w" } }] });
    // An entry of a kind this version does not know keeps its place between the others.
    expect(
      decodeStreamEntry(
        batchFields([
          ["future", 1],
          ["message", { message: note(3) }],
        ]),
      ).parts,
    ).toEqual([
      { unknown: { kind: "future", attempt: 2, seq: 1 }, problem: expect.stringContaining('"future"') },
      { entry: { kind: "message", attempt: 2, seq: 2, message: note(3) } },
    ]);
  });

  it("a malformed batch is refused whole, saying why (never a throw), as is a format this version does not know", () => {
    const problem = (fields: unknown) => {
      const decoded = decodeStreamEntry(fields);
      expect(decoded.parts).toBeUndefined();
      return decoded.problem;
    };
    const message = ["message", { message: note(1) }];
    expect(problem(batchFields("[not json"))).toMatch(/not JSON/);
    expect(problem(batchFields({ message: note(1) }))).toMatch(/not a list of 1 to 64 entries/);
    expect(problem(batchFields([]))).toMatch(/not a list of 1 to 64 entries/);
    expect(problem(batchFields(Array.from({ length: MAX_BATCH_ENTRIES + 1 }, () => message)))).toMatch(
      /not a list of 1 to 64/,
    );
    expect(problem(batchFields([message, ["message", {}]]))).toMatch(
      /entry 1: a message entry whose message is not an object with a type/,
    );
    expect(problem(batchFields([message, "message"]))).toMatch(/entry 1 is not a \[kind, data\] pair/);
    expect(problem(batchFields([message, [1, {}]]))).toMatch(/entry 1 is not a \[kind, data\] pair/);
    expect(problem(batchFields([message, ["end", { status: "weird" }]]))).toMatch(/entry 1: .*known status/);
    expect(problem(batchFields([message], "-1"))).toMatch(/not a count/);
    expect(problem(batchFields([message], String(Number.MAX_SAFE_INTEGER)))).toMatch(/not a count/);
    expect(problem(["v", STREAM_FORMAT, "a", "1", "s", "0"])).toMatch(/lacks/);
    expect(problem(["v", "3", "a", "1", "s", "0", "d", "[]"])).toMatch(
      /format "3" is unknown to this version/,
    );
    expect(problem("fields")).toMatch(/not a list/);
  });
});

describe("optional peer dependencies", () => {
  it("without bullmq, the SDK loads and the queue fails with QueueDependencyError naming the fix", () => {
    const fixture = fileURLToPath(new URL("../../fixtures/queue/without-bullmq.mts", import.meta.url));
    const out = execFileSync(process.execPath, ["--import", "tsx", fixture], {
      encoding: "utf8",
      timeout: 30_000,
    });
    const report = JSON.parse(out.trim().split("\n").at(-1) ?? "{}");
    const expected = {
      typed: true,
      packages: ["bullmq"],
      message: expect.stringContaining("npm install bullmq"),
    };
    expect(report).toEqual({ mainEntryLoaded: true, producer: expected, worker: expected });
  });
});

describe("unreachable Redis", () => {
  it("fails a producer's and a worker's start with QueueConnectionError after connectTimeoutMs", async () => {
    // A port that was just free: nothing listens there.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const options = { connection: { host: "127.0.0.1", port }, connectTimeoutMs: 300 };
    for (const start of [() => AgentQueue.connect(options), () => AgentWorker.start(options)]) {
      const error = await start().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(QueueConnectionError);
      expect((error as QueueConnectionError).message).toContain(`127.0.0.1:${port}`);
    }
  });
});
