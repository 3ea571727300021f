/**
 * Lifecycle faults: missing binary, bad options, crashes, hangs, garbage, huge lines, abort.
 * The CLI-protocol faults use a scripted stand-in binary (test/fixtures/fake-cli/fake-claude.mjs);
 * the rest use the real Claude Code CLI.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  AbortError,
  CliNotFoundError,
  ControlTimeoutError,
  InvalidOptionsError,
  type Message,
  ProcessError,
  query,
  type StreamedUserInput,
} from "../../src/index.js";
import { BufferOverflowError } from "../../src/transport/index.js";
import { CLAUDE_CLI_VERSION, collect, isAlive, results, testBed } from "./support.js";

const FAKE_CLAUDE = fileURLToPath(new URL("../fixtures/fake-cli/fake-claude.mjs", import.meta.url));

/** Directories the tests make for a marker or a record file; removed after the file. */
const madeDirs: string[] = [];
afterAll(() => {
  for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true });
});

/** A path named `name` in a new private directory (removed after the file). */
function fileInNewDir(prefix: string, name: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return join(dir, name);
}

function fake(mode: string, extra: Record<string, string> = {}) {
  return {
    cliPath: FAKE_CLAUDE,
    env: { FAKE_CLAUDE_MODE: mode, CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK: "1", ...extra },
  };
}

/** A prompt stream that stays open until the test ends it. */
function openPrompt(first: string): { prompt: AsyncIterable<StreamedUserInput>; end(): void } {
  let end!: () => void;
  const ended = new Promise<void>((r) => {
    end = r;
  });
  return {
    prompt: (async function* () {
      yield first;
      await ended;
    })(),
    end,
  };
}

describe("fault handling", () => {
  it("a missing binary fails fast with CliNotFoundError", async () => {
    const started = Date.now();
    await expect(
      collect(query({ prompt: "hi", options: { cliPath: "/nonexistent/claude" } })),
    ).rejects.toBeInstanceOf(CliNotFoundError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("invalid options fail before anything is spawned", async () => {
    const marker = fileInNewDir("cas-marker-", "spawned");
    const q = query({
      prompt: "hi",
      options: { ...fake("ok", { FAKE_CLAUDE_MARKER: marker }), maxTurns: -1 },
    });
    await expect(collect(q)).rejects.toBeInstanceOf(InvalidOptionsError);
    expect(existsSync(marker)).toBe(false);
  });

  it("a crash at start surfaces ProcessError with exit code and stderr", async () => {
    const error = await collect(query({ prompt: "hi", options: fake("crash-at-start") })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProcessError);
    expect((error as ProcessError).exitCode).toBe(3);
    expect((error as ProcessError).stderrTail).toContain("simulated startup failure");
  });

  it("a crash mid-turn surfaces ProcessError after the messages already received", async () => {
    const seen: Message[] = [];
    const error = await (async () => {
      for await (const m of query({ prompt: "hi", options: fake("crash-mid-turn") })) seen.push(m);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProcessError);
    expect((error as ProcessError).exitCode).toBe(7);
    expect((error as ProcessError).stderrTail).toContain("simulated crash");
    expect(seen.some((m) => m.type === "system")).toBe(true);
  });

  it("a CLI that never answers initialize times out with ControlTimeoutError and is killed", async () => {
    const marker = fileInNewDir("cas-marker-", "pid");
    const q = query({
      prompt: "hi",
      options: { ...fake("hang-at-init", { FAKE_CLAUDE_MARKER: marker }), controlTimeoutMs: 300 },
    });
    const error = await collect(q).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlTimeoutError);
    expect((error as ControlTimeoutError).subtype).toBe("initialize");
    // On a loaded machine the fake may be killed before it wrote its pid: then no process may
    // still carry its marker.
    if (existsSync(marker)) expect(isAlive(Number(readFileSync(marker, "utf8")))).toBe(false);
    expect(processesWithEnv(`FAKE_CLAUDE_MARKER=${marker}`)).toEqual([]);
  });

  it("every control answer queued when a one-shot query's result arrives is written before its input ends", async () => {
    const record = fileInNewDir("cas-burst-", "record.json");
    const asked: string[] = [];
    const messages = await collect(
      query({
        prompt: "burst",
        options: {
          ...fake("burst-callbacks", { FAKE_CLAUDE_RECORD: record, FAKE_CLAUDE_BURST: "6" }),
          canUseTool: async (_name, input) => {
            asked.push(String(input.command));
            return { behavior: "allow" };
          },
        },
      }),
    );
    expect(results(messages)).toMatchObject([{ result: "burst sent" }]);
    expect(asked).toHaveLength(6);
    const answers = (JSON.parse(readFileSync(record, "utf8")) as { answers?: string[] }).answers ?? [];
    expect([...answers].sort()).toEqual(["burst_1", "burst_2", "burst_3", "burst_4", "burst_5", "burst_6"]);
  });

  it("a UTF-8 byte order mark before the first line is whitespace, not a malformed line", async () => {
    // The first line is the answer to initialize: unparsed, the handshake would time out.
    const options = { ...fake("ok", { FAKE_CLAUDE_BOM: "1" }), controlTimeoutMs: 10_000 };
    const messages = await collect(query({ prompt: "hi", options }));
    expect(messages.filter((m) => m.type === "system" && m.subtype === "sdk_malformed_line")).toEqual([]);
    expect(results(messages)).toMatchObject([{ result: "ok", isError: false }]);
  });

  it("a line that is not JSON is reported in-band and the session goes on", async () => {
    const messages = await collect(query({ prompt: "hi", options: fake("garbage") }));
    const report = messages.find((m) => m.type === "system" && m.subtype === "sdk_malformed_line");
    expect(report?.type === "system" && report.data.line_head).toBe("this is not json");
    expect(results(messages)[0]?.result).toBe("after garbage");
  });

  it("a line over maxBufferSize is a BufferOverflowError naming the limit", async () => {
    const error = await collect(
      query({ prompt: "hi", options: { ...fake("huge-line"), maxBufferSize: 1024 * 1024 } }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BufferOverflowError);
    expect((error as BufferOverflowError).limit).toBe(1024 * 1024);
    expect((error as Error).message).toContain("1048576");
  });

  it("unknown message and block types pass through", async () => {
    const messages = await collect(query({ prompt: "hi", options: fake("future-types") }));
    expect(messages.find((m) => m.type === "unknown")).toMatchObject({ wireType: "brand_new_type" });
    const assistant = messages.find((m) => m.type === "assistant");
    expect(assistant?.type === "assistant" && assistant.content[0]).toMatchObject({
      type: "unknown",
      wireType: "hologram",
    });
  });

  it("close() kills a CLI that ignores SIGTERM", async () => {
    const { prompt, end } = openPrompt("hi");
    const q = query({ prompt, options: { ...fake("hang-mid-turn"), closeGraceMs: 200 } });
    let pid = 0;
    for await (const m of q) {
      if (m.type === "system") {
        pid = (await q.serverInfo())?.pid as number;
        await q.close();
      }
    }
    end();
    expect(pid).toBeGreaterThan(0);
    expect(isAlive(pid)).toBe(false);
  });

  it(`aborting the signal mid-turn ends iteration with AbortError and no process left (claude ${CLAUDE_CLI_VERSION})`, async () => {
    await using bed = await testBed([{ stall: true, text: "working" }]);
    const controller = new AbortController();
    const q = query({
      prompt: "hi",
      options: bed.options({ signal: controller.signal, includePartialMessages: true }),
    });
    let pid = 0;
    const error = await (async () => {
      for await (const m of q) {
        if (m.type === "stream_event" && !pid) {
          pid = (await q.serverInfo())?.pid as number;
          controller.abort();
        }
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(pid).toBeGreaterThan(0);
    expect(isAlive(pid)).toBe(false);
  });

  it(`breaking out of the loop terminates the CLI (claude ${CLAUDE_CLI_VERSION})`, async () => {
    await using bed = await testBed([{ stall: true, text: "working" }]);
    const q = query({ prompt: "hi", options: bed.options({ includePartialMessages: true }) });
    let pid = 0;
    for await (const m of q) {
      if (m.type === "stream_event") {
        pid = (await q.serverInfo())?.pid as number;
        break;
      }
    }
    expect(pid).toBeGreaterThan(0);
    expect(isAlive(pid)).toBe(false);
  });

  it.runIf(process.getuid?.() === 0)("runs the CLI as another Unix user when `user` is set", async () => {
    // Everything the switched user needs lives in a world-traversable directory (/tmp, not
    // $TMPDIR): the clone, or $TMPDIR, may sit under a mode-0700 directory uid 65534 cannot enter.
    const dir = mkdtempSync(join("/tmp", "cas-user-"));
    chmodSync(dir, 0o777);
    const cliPath = join(dir, "fake-cli", "fake-claude.mjs");
    for (const file of ["fake-cli/fake-claude.mjs", "shared/stand-in-faults.mjs", "shared/write-whole.mjs"]) {
      mkdirSync(dirname(join(dir, file)), { recursive: true, mode: 0o755 });
      copyFileSync(fileURLToPath(new URL(`../fixtures/${file}`, import.meta.url)), join(dir, file));
      chmodSync(join(dir, file), 0o755);
    }
    const uidFile = join(dir, "uid");
    try {
      const messages = await collect(
        query({
          prompt: "hi",
          options: { ...fake("ok", { FAKE_CLAUDE_UID_FILE: uidFile }), cliPath, user: "nobody", cwd: dir },
        }),
      );
      expect(results(messages)[0]?.result).toBe("ok");
      expect(readFileSync(uidFile, "utf8")).toBe("65534:65534");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(`runs with a PATH-less environment instead of hanging (claude ${CLAUDE_CLI_VERSION})`, async () => {
    await using bed = await testBed([{ text: "no PATH needed" }]);
    const messages = await collect(
      query({ prompt: "hi", options: bed.options({ env: { PATH: undefined } }) }),
    );
    expect(results(messages)[0]?.result).toBe("no PATH needed");
  });
});

/** Pids of live processes whose environment holds `entry` (Linux: /proc/<pid>/environ). */
function processesWithEnv(entry: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, "latin1").split("\0").includes(entry))
        found.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}
