/**
 * Lifecycle guarantees, as a fault matrix: every way a CLI or a consumer can misbehave, and for each
 * the documented outcome, the time it took to settle (reported, bounded only by a generous "no
 * hang" limit) and the processes left running (always asserted: none).
 *
 * Each backend is a row (support/backends.ts) with its own stand-in CLI; every pid a case starts is
 * checked: the CLI's, its grandchild's, every member of its process group, and every child of this
 * test process. Waiting is on events, or bounded polling where no event exists (a grandchild we are
 * not the parent of).
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { z } from "zod";
import type { HookCallback } from "../../src/backends/claude/index.js";
import {
  AbortError,
  type AgentOptions,
  AgentSdkClient,
  type CanUseTool,
  CliNotFoundError,
  ControlTimeoutError,
  createSdkMcpServer,
  type Message,
  NotConnectedError,
  ProcessError,
  query,
  tool,
} from "../../src/index.js";
import { BufferOverflowError } from "../../src/transport/index.js";
import { DEFAULT_MAX_BUFFER_SIZE } from "../../src/transport/subprocess.js";
import {
  type CallbackArgs,
  type CallbackKind,
  type FakeKnobs,
  type FakeRun,
  type Fault,
  LIFECYCLE_BACKENDS,
  NOT_POSIX,
  type Requirement,
  splitText,
} from "./support/backends.js";
import {
  eventually,
  type FakePids,
  isAlive,
  killQuietly,
  liveGroupMembers,
  procStat,
  readPids,
  survivors,
} from "./support/processes.js";
import { flushReport, settled, stopwatch } from "./support/report.js";

/** Everything a consumer saw: the messages before the end, and how it ended. */
interface Outcome {
  messages: Message[];
  error: unknown;
  ms: number;
}

async function consume(messages: AsyncIterable<Message>): Promise<Outcome> {
  const elapsed = stopwatch();
  const seen: Message[] = [];
  try {
    for await (const m of messages) seen.push(m);
    return { messages: seen, error: undefined, ms: elapsed() };
  } catch (error) {
    return { messages: seen, error, ms: elapsed() };
  }
}

function texts(messages: Message[]): string[] {
  return messages.flatMap((m) =>
    m.type === "assistant" ? m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])) : [],
  );
}

function resultTexts(messages: Message[]): (string | undefined)[] {
  return messages.flatMap((m) => (m.type === "result" ? [m.result] : []));
}

/** The text of the next `result` on a client's response stream. */
async function firstResult(client: AgentSdkClient): Promise<string | undefined> {
  return (await response(client)).result;
}

/** The next turn on a client's response stream: its messages and its result text. */
async function response(
  client: AgentSdkClient,
): Promise<{ messages: Message[]; result: string | undefined }> {
  const messages: Message[] = [];
  for await (const m of client.receiveResponse()) {
    messages.push(m);
    if (m.type === "result") return { messages, result: m.result };
  }
  return { messages, result: undefined };
}

describe.skipIf(NOT_POSIX).each(LIFECYCLE_BACKENDS)("lifecycle guarantees: $name", (backend) => {
  let root: string;
  let cases = 0;
  const escaped: number[] = [];

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), `cas-lifecycle-${backend.name}-`));
  });
  afterAll(() => {
    for (const pid of escaped) killQuietly(pid);
    flushReport(`fault-matrix/${backend.name}`);
    rmSync(root, { recursive: true, force: true });
  });

  function newRun(): FakeRun {
    const dir = join(root, `case-${++cases}`);
    mkdirSync(dir);
    return { dir, pidsFile: join(dir, "pids.json"), recordFile: join(dir, "record.json") };
  }

  /** Skips the running case, with the backend's reason, when the backend lacks one of `needs`. */
  function requires(ctx: TestContext, ...needs: Requirement[]): void {
    for (const need of needs) {
      const why = backend.skip[need];
      if (why !== undefined) ctx.skip(`${backend.name}: ${why}`);
    }
  }

  /** A fresh run plus the options for `fault`. */
  function setup(fault: Fault, knobs?: FakeKnobs, extra?: AgentOptions) {
    const run = newRun();
    return { run, options: backend.fake(fault, run, knobs, extra) };
  }

  /** Asserts and records: no hang, nothing left. `pids` undefined = the CLI never started. */
  async function done(
    name: string,
    behaviour: string,
    ms: number,
    pids: FakePids | undefined,
    opts: { allowLeft?: number } = {},
  ): Promise<number[]> {
    const left = await survivors(pids);
    settled({ backend: backend.name, case: name, behaviour, settleMs: ms, childrenLeft: left.length }, opts);
    return left;
  }

  // ── 1. the binary ──────────────────────────────────────────────────────────────────────────

  describe("1. the CLI binary cannot be run", () => {
    const bad: [string, (dir: string) => string][] = [
      ["missing", (dir) => join(dir, "no-such-cli")],
      [
        "not executable",
        (dir) => {
          const file = join(dir, "cli");
          writeFileSync(file, "#!/bin/sh\necho hi\n");
          chmodSync(file, 0o644);
          return file;
        },
      ],
      ["a directory", (dir) => dir],
    ];

    it.each(bad)("cliPath %s → CliNotFoundError at once (query and client)", async (label, make) => {
      const { run, options } = setup("ok");
      const cliPath = make(run.dir);
      const outcome = await consume(query({ prompt: "hi", options: { ...options, cliPath } }));
      expect(outcome.error).toBeInstanceOf(CliNotFoundError);
      expect((outcome.error as CliNotFoundError).searched).toContain(cliPath);
      expect((outcome.error as Error).message).toContain(cliPath);

      const elapsed = stopwatch();
      const client = new AgentSdkClient({ ...options, cliPath });
      await expect(client.connect()).rejects.toBeInstanceOf(CliNotFoundError);
      expect(client.isConnected).toBe(false);
      const clientMs = elapsed();

      expect(readPids(run.pidsFile)).toBeUndefined();
      await done(
        `1 cliPath ${label}`,
        "CliNotFoundError naming the path",
        Math.max(outcome.ms, clientMs),
        undefined,
      );
    });
  });

  // ── 2. environment and working directory ───────────────────────────────────────────────────

  describe("2. environment and working directory", () => {
    it.each<[string, AgentOptions]>([
      ["env without PATH", { env: { PATH: undefined } }],
      ["inheritEnv: false", { inheritEnv: false }],
    ])("%s: a CLI that needs nothing from PATH runs", async (label, extra) => {
      const { run, options } = setup("ok", {}, extra);
      const outcome = await consume(query({ prompt: "hi", options }));
      expect(outcome.error).toBeUndefined();
      expect(resultTexts(outcome.messages)).toEqual(["ok"]);
      const record = JSON.parse(readFileSync(run.recordFile, "utf8")) as { envKeys: string[] };
      expect(record.envKeys).not.toContain("PATH");
      await done(`2 ${label}, CLI runs`, "runs normally", outcome.ms, readPids(run.pidsFile));
    });

    it.each<[string, AgentOptions]>([
      ["env without PATH", { env: { PATH: undefined } }],
      ["inheritEnv: false", { inheritEnv: false }],
    ])(
      "%s: a CLI whose interpreter is found via PATH fails at once with ProcessError",
      async (label, extra) => {
        const run = newRun();
        const fake = backend.pathDependentFake(run.dir);
        const base = backend.fake("ok", run, {}, extra);
        // Control: with its interpreter on PATH the same script works.
        const ok = await consume(
          query({
            prompt: "hi",
            options: { ...base, cliPath: fake.cliPath, env: { ...base.env, PATH: fake.interpreterDir } },
          }),
        );
        expect(ok.error).toBeUndefined();
        expect(resultTexts(ok.messages)).toEqual(["ok"]);

        const outcome = await consume(query({ prompt: "hi", options: { ...base, cliPath: fake.cliPath } }));
        expect(outcome.error).toBeInstanceOf(ProcessError);
        const error = outcome.error as ProcessError;
        expect(error.exitCode).toBe(127);
        expect(error.stderrTail).toContain(fake.interpreter);
        expect(error.message).toContain(fake.interpreter);
        // The pid file is the control run's; the failed run never got far enough to write one.
        await done(
          `2 ${label}, interpreter not on PATH`,
          "ProcessError 127 + stderr",
          outcome.ms,
          readPids(run.pidsFile),
        );
      },
    );

    it.each<[string, (dir: string) => string]>([
      ["does not exist", (dir) => join(dir, "no-such-dir")],
      [
        "is a file",
        (dir) => {
          const file = join(dir, "a-file");
          writeFileSync(file, "");
          return file;
        },
      ],
    ])("a cwd that %s → ProcessError naming the directory, nothing spawned", async (label, make) => {
      const run = newRun();
      const cwd = make(run.dir);
      const options = backend.fake("ok", run, {}, { cwd });
      const outcome = await consume(query({ prompt: "hi", options }));
      expect(outcome.error).toBeInstanceOf(ProcessError);
      expect((outcome.error as ProcessError).exitCode).toBeNull();
      expect((outcome.error as Error).message).toContain(`working directory "${cwd}"`);

      const client = new AgentSdkClient(options);
      await expect(client.connect()).rejects.toThrow(`working directory "${cwd}"`);
      expect(readPids(run.pidsFile)).toBeUndefined();
      await done(`2 cwd ${label}`, "ProcessError naming the directory", outcome.ms, undefined);
    });
  });

  // ── 3. exits before any output ─────────────────────────────────────────────────────────────

  describe("3. the CLI exits non-zero before any output", () => {
    it.for<[string, Fault, FakeKnobs]>([
      ["grandchild in its group", "exit-before-output", { grandchild: "sleep" }],
      ["grandchild holding stdout", "exit-before-output", { grandchild: "holds-stdout" }],
      // The first user-turn write fails with EPIPE before the exit status exists. This used to
      // surface as a CliConnectionError without exit code or stderr; with a plain early exit the
      // same race hit ~14% of runs.
      ["stdin closed before the exit", "exit-after-handshake-stdin-closed", { grandchild: "sleep" }],
    ])("→ ProcessError with exit code and stderr tail (%s)", async ([label, fault, knobs], ctx) => {
      requires(ctx, fault);
      const { run, options } = setup(fault, knobs);
      const outcome = await consume(query({ prompt: "hi", options }));
      expect(outcome.error).toBeInstanceOf(ProcessError);
      const error = outcome.error as ProcessError;
      expect(error.exitCode).toBe(3);
      expect(error.stderrTail).toContain("fatal: simulated startup failure");
      expect(error.message).toContain("fatal: simulated startup failure");
      expect(outcome.messages).toEqual([]);
      await done(
        `3 exit 3 before output, ${label}`,
        "ProcessError(3, stderr)",
        outcome.ms,
        readPids(run.pidsFile),
      );
    });
  });

  // ── 4. crashes mid-stream ──────────────────────────────────────────────────────────────────

  describe("4. the CLI SIGKILLs itself mid-stream", () => {
    it("query(): ProcessError after the messages already received", async () => {
      const { run, options } = setup("crash-mid-stream");
      const outcome = await consume(query({ prompt: "hi", options }));
      expect(outcome.error).toBeInstanceOf(ProcessError);
      expect((outcome.error as ProcessError).signal).toBe("SIGKILL");
      expect(texts(outcome.messages)).toEqual(["first", "second"]);
      await done(
        "4 crash mid-stream (query)",
        "ProcessError(SIGKILL), messages kept",
        outcome.ms,
        readPids(run.pidsFile),
      );
    });

    it("client: receiveResponse() throws ProcessError after the messages already received", async () => {
      const { run, options } = setup("crash-mid-stream");
      const client = new AgentSdkClient(options);
      await client.connect();
      await client.query("hi");
      const outcome = await consume(client.receiveResponse());
      expect(outcome.error).toBeInstanceOf(ProcessError);
      expect(texts(outcome.messages)).toEqual(["first", "second"]);
      await client.disconnect();
      await done(
        "4 crash mid-stream (client)",
        "ProcessError(SIGKILL), messages kept",
        outcome.ms,
        readPids(run.pidsFile),
      );
    });
  });

  // ── 5. framing: bad, split and huge lines ──────────────────────────────────────────────────

  describe("5. framing", () => {
    it("a non-JSON line is reported in-band (system/sdk_malformed_line) and the session goes on", async () => {
      const { run, options } = setup("non-json-line");
      const outcome = await consume(query({ prompt: "hi", options }));
      expect(outcome.error).toBeUndefined();
      const report = outcome.messages.find((m) => m.type === "system" && m.subtype === "sdk_malformed_line");
      expect(report?.type === "system" && report.data.line_head).toBe("this is not json");
      expect(texts(outcome.messages)).toEqual(["after garbage"]);
      expect(resultTexts(outcome.messages)).toEqual(["after garbage"]);
      await done(
        "5 non-JSON line",
        "in-band sdk_malformed_line, continues",
        outcome.ms,
        readPids(run.pidsFile),
      );
    });

    it("a truncated last line, then EOF: reported in-band, earlier messages kept, iteration ends", async () => {
      const { run, options } = setup("truncated-line");
      const outcome = await consume(query({ prompt: "hi", options }));
      // On every backend a turn whose CLI exits without its result failed, even with code 0.
      expect(outcome.error).toBeInstanceOf(ProcessError);
      expect((outcome.error as ProcessError).exitCode).toBe(0);
      expect(texts(outcome.messages)).toEqual(["before the cut"]);
      const last = outcome.messages.at(-1);
      expect(last?.type === "system" && last.subtype).toBe("sdk_malformed_line");
      expect(last?.type === "system" && String(last.data.line_head)).toMatch(/^\{"(type|method)":"/);
      expect(resultTexts(outcome.messages)).toEqual([]);
      await done(
        "5 truncated line + EOF",
        "in-band sdk_malformed_line, then ProcessError(0): no result",
        outcome.ms,
        readPids(run.pidsFile),
      );
    });

    it("a 100 KB line written one byte per write arrives intact (UTF-8 split across chunks)", async () => {
      const { run, options } = setup("split-line");
      const outcome = await consume(query({ prompt: "hi", options }));
      expect(outcome.error).toBeUndefined();
      const [text] = texts(outcome.messages);
      expect(text?.length).toBe(splitText().length);
      expect(text === splitText()).toBe(true);
      expect(resultTexts(outcome.messages)).toEqual(["split ok"]);
      await done(
        "5 100 KB line, 1 byte per write",
        "reassembled exactly",
        outcome.ms,
        readPids(run.pidsFile),
      );
    });

    const MiB = 1024 * 1024;
    it.each<[string, number, number | undefined]>([
      ["64 MiB line, maxBufferSize 80 MiB", 64 * MiB, 80 * MiB],
      ["line of exactly the default limit (64 MiB)", DEFAULT_MAX_BUFFER_SIZE, undefined],
    ])("%s is accepted", async (label, lineBytes, maxBufferSize) => {
      const { run, options } = setup("big-line", { lineBytes }, maxBufferSize ? { maxBufferSize } : {});
      const outcome = await consume(query({ prompt: "hi", options }));
      expect(outcome.error).toBeUndefined();
      const big = outcome.messages.find((m) => m.type === "assistant");
      expect(big?.raw && JSON.stringify(big.raw).length).toBe(lineBytes);
      expect(resultTexts(outcome.messages)).toEqual([`big line of ${lineBytes} bytes`]);
      await done(`5 ${label}`, "accepted", outcome.ms, readPids(run.pidsFile));
    });

    it.each<[string, number, number | undefined]>([
      ["default limit + 1 byte", DEFAULT_MAX_BUFFER_SIZE + 1, undefined],
      ["8 MiB line, maxBufferSize 1 MiB", 8 * MiB, MiB],
    ])(
      "a line over maxBufferSize (%s) → BufferOverflowError naming the limit, CLI killed",
      async (label, lineBytes, maxBufferSize) => {
        const { run, options } = setup("big-line", { lineBytes }, maxBufferSize ? { maxBufferSize } : {});
        const outcome = await consume(query({ prompt: "hi", options }));
        const limit = maxBufferSize ?? DEFAULT_MAX_BUFFER_SIZE;
        expect(outcome.error).toBeInstanceOf(BufferOverflowError);
        expect((outcome.error as BufferOverflowError).limit).toBe(limit);
        expect((outcome.error as Error).message).toContain(`maxBufferSize (${limit} bytes`);
        await done(
          `5 over limit: ${label}`,
          "BufferOverflowError(limit), killed",
          outcome.ms,
          readPids(run.pidsFile),
        );
      },
    );
  });

  // ── 6. unanswered control requests ─────────────────────────────────────────────────────────

  describe("6. the CLI never answers a control request", () => {
    it.for(backend.handshake?.steps ?? ["handshake"])(
      "the handshake (%s unanswered) → ControlTimeoutError naming it (query and client)",
      async (step, ctx) => {
        requires(ctx, "handshake");
        const handshake = backend.handshake!;
        // The timeout covers the steps before `step` too, which a loaded machine may answer slowly
        // (at 300 ms codex's `initialize` timed out first now and then under load).
        const controlTimeoutMs = 1_500;
        const extra = { ...handshake.queryOptions, controlTimeoutMs };
        const { run, options } = setup("never-answers-handshake", { unansweredStep: step }, extra);
        const outcome = await consume(query({ prompt: "hi", options }));
        expect(outcome.error).toBeInstanceOf(ControlTimeoutError);
        expect((outcome.error as ControlTimeoutError).subtype).toBe(step);
        expect((outcome.error as Error).message).toContain(`"${step}"`);
        const queryPids = readPids(run.pidsFile);

        const second = setup("never-answers-handshake", { unansweredStep: step }, { controlTimeoutMs });
        const client = new AgentSdkClient(second.options);
        const error = await client.connect().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ControlTimeoutError);
        expect((error as ControlTimeoutError).subtype).toBe(step);
        expect(client.isConnected).toBe(false);
        expect(await survivors(readPids(second.run.pidsFile))).toEqual([]);
        await done(
          `6 ${step} unanswered (handshake)`,
          "ControlTimeoutError(step), killed",
          outcome.ms,
          queryPids,
        );
      },
    );

    it.for(["interrupt", "setModel", "getMcpStatus"] as const)(
      "%s → ControlTimeoutError naming the request; the session goes on",
      async (method, ctx) => {
        requires(ctx, method);
        const subtype = backend.controlRequests[method];
        if (subtype === undefined) throw new Error(`${backend.name}: name the ${method} request, or skip it`);
        // The timeout covers the handshake too, which a loaded machine may answer slowly.
        const { run, options } = setup("ignores-control", {}, { controlTimeoutMs: 1_500 });
        const client = new AgentSdkClient(options);
        await client.connect();
        // A running turn, so there is something to interrupt (the fake may hold it until asked).
        await client.query("hold");
        const elapsed = stopwatch();
        const call = {
          interrupt: () => client.interrupt(),
          setModel: () => client.setModel("other"),
          getMcpStatus: () => client.getMcpStatus(),
        }[method];
        const error = await call().catch((e: unknown) => e);
        const ms = elapsed();
        expect(error).toBeInstanceOf(ControlTimeoutError);
        expect((error as ControlTimeoutError).subtype).toBe(subtype);
        expect((error as Error).message).toContain(`"${subtype}"`);
        const pid = client.pid;
        expect(await firstResult(client)).toBe("ok");
        await client.query("still there?");
        expect(await firstResult(client)).toBe("ok");
        expect(client.pid).toBe(pid);
        await client.disconnect();
        await done(
          `6 ${subtype} unanswered`,
          "ControlTimeoutError(subtype), continues",
          ms,
          readPids(run.pidsFile),
        );
      },
    );
  });

  // ── 7. the CLI does not exit after its result ──────────────────────────────────────────────

  describe("7. the CLI stays alive after its result with stdin closed", () => {
    it.each<[string, Fault, FakeKnobs]>([
      ["CLI ignores EOF", "ignores-eof", {}],
      ["CLI ignores EOF and SIGTERM", "ignores-eof", { ignoreTerm: true }],
      ["grandchild in its group holds stdout", "ok", { grandchild: "holds-stdout" }],
    ])("%s → iteration ends, the group is killed", async (label, fault, knobs) => {
      const { run, options } = setup(fault, knobs, { exitTimeoutMs: 300, closeGraceMs: 300 });
      let sinceResult: (() => number) | undefined;
      const seen: Message[] = [];
      for await (const m of query({ prompt: "hi", options })) {
        seen.push(m);
        if (m.type === "result") sinceResult = stopwatch();
      }
      const ms = sinceResult?.() ?? Number.NaN;
      expect(resultTexts(seen)).toEqual(["ok"]);
      await done(`7 ${label}`, "iterator ends; group killed after exitTimeoutMs", ms, readPids(run.pidsFile));
    });

    it("a grandchild that escaped the group (setsid) holds stdout → iteration still ends; it survives (documented)", async () => {
      const { run, options } = setup("ok", { grandchild: "escaped" }, { exitTimeoutMs: 300 });
      const pidsAtStart = () => readPids(run.pidsFile);
      let sinceResult: (() => number) | undefined;
      const seen: Message[] = [];
      for await (const m of query({ prompt: "hi", options })) {
        seen.push(m);
        if (m.type === "result") sinceResult = stopwatch();
      }
      const ms = sinceResult?.() ?? Number.NaN;
      const pids = pidsAtStart();
      if (pids?.grandchildPid) escaped.push(pids.grandchildPid);
      expect(resultTexts(seen)).toEqual(["ok"]);
      const left = await done(
        "7 escaped grandchild holds stdout",
        "iterator ends; escapee out of reach",
        ms,
        pids,
        {
          allowLeft: 1,
        },
      );
      expect(left).toEqual([pids?.grandchildPid]);
      killQuietly(pids?.grandchildPid);
    });
  });

  // ── 8. the consumer leaves early ───────────────────────────────────────────────────────────

  describe("8. the consumer leaves mid-turn", () => {
    for (const ignoreTerm of [false, true]) {
      const how = ignoreTerm ? " (CLI ignores SIGTERM)" : "";
      it(`query(): break${how}`, async () => {
        const { run, options } = setup("stall", { ignoreTerm }, { closeGraceMs: 300 });
        let elapsed: (() => number) | undefined;
        for await (const m of query({ prompt: "hi", options })) {
          if (m.type === "assistant") {
            elapsed = stopwatch();
            break;
          }
        }
        const ms = elapsed?.() ?? Number.NaN;
        await done(`8 query break${how}`, "group killed", ms, readPids(run.pidsFile));
      });
    }

    it("query(): throw inside the loop", async () => {
      const { run, options } = setup("stall");
      let elapsed: (() => number) | undefined;
      const error = await (async () => {
        for await (const m of query({ prompt: "hi", options })) {
          if (m.type === "assistant") {
            elapsed = stopwatch();
            throw new Error("consumer failed");
          }
        }
      })().catch((e: unknown) => e);
      const ms = elapsed?.() ?? Number.NaN;
      expect((error as Error).message).toBe("consumer failed");
      await done("8 query throw in loop", "error propagates; group killed", ms, readPids(run.pidsFile));
    });

    it("query(): AbortSignal mid-turn → AbortError", async () => {
      const controller = new AbortController();
      const { run, options } = setup("stall", {}, { signal: controller.signal });
      let elapsed: (() => number) | undefined;
      const outcome = await consume(
        (async function* () {
          for await (const m of query({ prompt: "hi", options })) {
            yield m;
            if (m.type === "assistant") {
              elapsed = stopwatch();
              controller.abort();
            }
          }
        })(),
      );
      const ms = elapsed?.() ?? Number.NaN;
      expect(outcome.error).toBeInstanceOf(AbortError);
      expect(texts(outcome.messages)).toEqual(["working"]);
      await done("8 query abort signal", "AbortError; group killed", ms, readPids(run.pidsFile));
    });

    it("client: break out of receiveResponse(), then disconnect()", async () => {
      const { run, options } = setup("stall");
      const client = new AgentSdkClient(options);
      await client.connect();
      await client.query("hi");
      for await (const m of client.receiveResponse()) if (m.type === "assistant") break;
      // Leaving a response stream does not end the session; disconnect() does.
      expect(client.isConnected).toBe(true);
      expect(isAlive(client.pid ?? 0)).toBe(true);
      const elapsed = stopwatch();
      await client.disconnect();
      await done("8 client break + disconnect", "group killed", elapsed(), readPids(run.pidsFile));
    });

    it("client: throw inside an `await using` block", async () => {
      const { run, options } = setup("stall");
      let elapsed: (() => number) | undefined;
      const error = await (async () => {
        await using client = new AgentSdkClient(options);
        await client.connect();
        await client.query("hi");
        for await (const m of client.receiveResponse()) {
          if (m.type === "assistant") {
            elapsed = stopwatch();
            throw new Error("consumer failed");
          }
        }
      })().catch((e: unknown) => e);
      const ms = elapsed?.() ?? Number.NaN;
      expect((error as Error).message).toBe("consumer failed");
      await done(
        "8 client throw in await using",
        "error propagates; group killed",
        ms,
        readPids(run.pidsFile),
      );
    });

    it("client: AbortSignal mid-turn → AbortError, no disconnect() needed", async () => {
      const controller = new AbortController();
      const { run, options } = setup("stall", {}, { signal: controller.signal });
      const client = new AgentSdkClient(options);
      await client.connect();
      await client.query("hi");
      let elapsed: (() => number) | undefined;
      const outcome = await consume(
        (async function* () {
          for await (const m of client.receiveResponse()) {
            yield m;
            if (m.type === "assistant") {
              elapsed = stopwatch();
              controller.abort();
            }
          }
        })(),
      );
      const ms = elapsed?.() ?? Number.NaN;
      expect(outcome.error).toBeInstanceOf(AbortError);
      const left = await survivors(readPids(run.pidsFile));
      await client.disconnect(); // still allowed, and a no-op now
      settled({
        backend: backend.name,
        case: "8 client abort signal",
        behaviour: "AbortError; group killed",
        settleMs: ms,
        childrenLeft: left.length,
      });
    });
  });

  // ── 9. callbacks that fail or never answer ─────────────────────────────────────────────────

  describe("9. a callback throws or never answers", () => {
    const callbacks = backend.callbacks;
    const supported = callbacks?.supported ?? [];
    const aborted: string[] = [];
    const canUseTool: CanUseTool = async (toolName, input, { signal }) => {
      const subject = callbacks?.subjectOf(toolName, input) ?? toolName;
      if (subject === "Throws") throw new Error("policy engine down");
      if (subject === "Never") {
        signal.addEventListener("abort", () => aborted.push("canUseTool"));
        return new Promise(() => {});
      }
      return { behavior: "allow" };
    };
    const throwingHook: HookCallback = async () => {
      throw new Error("hook exploded");
    };
    const neverHook: HookCallback = (_input, _id, { signal }) => {
      signal.addEventListener("abort", () => aborted.push("hook"));
      return new Promise(() => {});
    };
    const handlerCalls: unknown[] = [];
    const calc = () =>
      createSdkMcpServer({
        name: "calc",
        tools: [
          tool("boom", "Always fails", {}, async () => {
            throw new Error("kaboom");
          }),
          tool("never", "Never answers", {}, () => new Promise(() => {})),
          tool("add", "Adds", { a: z.number(), b: z.number() }, async ({ a, b }) => {
            handlerCalls.push({ a, b });
            return { content: [{ type: "text", text: String(a + b) }] };
          }),
        ],
      });

    type Scenario = [string, CallbackKind, CallbackArgs, (a: unknown) => void];
    const scenarios: Scenario[] = [
      [
        "canUseTool throws",
        "canUseTool",
        { toolName: "Throws" },
        (a) => expect(a).toEqual({ kind: "error", message: "policy engine down" }),
      ],
      [
        "canUseTool never resolves",
        "canUseTool",
        { toolName: "Never" },
        (a) => expect(a).toEqual({ kind: "error", message: expect.stringContaining("within 300 ms") }),
      ],
      [
        "a hook throws",
        "hook",
        { hookIndex: 0 },
        (a) => expect(a).toEqual({ kind: "error", message: "hook exploded" }),
      ],
      [
        "a hook never resolves",
        "hook",
        { hookIndex: 1 },
        (a) => expect(a).toEqual({ kind: "error", message: expect.stringContaining("within 300 ms") }),
      ],
      [
        "an MCP tool handler throws",
        "mcpTool",
        { server: "calc", tool: "boom" },
        (a) =>
          expect(a).toEqual({
            kind: "ok",
            value: { isError: true, content: [{ type: "text", text: expect.stringContaining("kaboom") }] },
          }),
      ],
      [
        "an MCP tool handler never resolves",
        "mcpTool",
        { server: "calc", tool: "never" },
        (a) => expect(a).toEqual({ kind: "error", message: expect.stringContaining("within 300 ms") }),
      ],
    ];

    it.for(scenarios)(
      "%s → error answer to the CLI, the session goes on",
      async ([label, kind, args, check], ctx) => {
        requires(ctx, kind);
        if (!callbacks) throw new Error(`${backend.name}: describe its callbacks, or skip ${kind}`);
        // Only what the backend supports: the others are refused before anything is spawned.
        const { run, options } = setup(
          "callback",
          {},
          {
            callbackTimeoutMs: 300,
            ...(supported.includes("canUseTool") ? { canUseTool } : {}),
            ...(supported.includes("hook")
              ? { hooks: { PreToolUse: [{ hooks: [throwingHook, neverHook] }] } }
              : {}),
            ...(supported.includes("mcpTool") ? { mcpServers: { calc: calc() } } : {}),
          },
        );
        const client = new AgentSdkClient(options);
        await client.connect();
        const elapsed = stopwatch();
        await client.query(callbacks.trigger(kind, args));
        const turn = await response(client);
        const answer = callbacks.answer(kind, turn.result ?? "", turn.messages);
        const ms = elapsed();
        check(answer);
        // The same process answers the next callback normally.
        const pid = client.pid;
        if (supported.includes("canUseTool")) {
          await client.query(callbacks.trigger("canUseTool", { toolName: "Fine" }));
          const next = await response(client);
          expect(callbacks.answer("canUseTool", next.result ?? "", next.messages)).toMatchObject({
            kind: "ok",
            value: { behavior: "allow" },
          });
        }
        expect(client.pid).toBe(pid);
        await client.disconnect();
        await done(
          `9 ${label}`,
          answer.kind === "error" ? "error answer, continues" : "isError result, continues",
          ms,
          readPids(run.pidsFile),
        );
      },
    );

    it("a callback that timed out had its signal aborted", (ctx) => {
      const withSignal = (["canUseTool", "hook"] as const).filter((kind) => backend.skip[kind] === undefined);
      if (withSignal.length === 0) requires(ctx, "canUseTool", "hook");
      // Filled in by the "never resolves" cases above (same worker, sequential).
      expect(aborted).toEqual(expect.arrayContaining([...withSignal]));
    });
  });

  // ── 10. concurrent control requests ────────────────────────────────────────────────────────

  describe("10. two control requests in flight", () => {
    it("answered out of order → each resolves with its own answer", async (ctx) => {
      requires(ctx, "concurrentRequests");
      const requests = backend.concurrentRequests;
      if (!requests) throw new Error(`${backend.name}: describe concurrentRequests, or skip them`);
      const { run, options } = setup("out-of-order");
      const client = new AgentSdkClient(options);
      await client.connect();
      const order: string[] = [];
      const elapsed = stopwatch();
      const send = (tag: "A" | "B") =>
        requests.send(client, tag).then((answer) => {
          order.push(tag);
          return answer;
        });
      const [a, b] = await Promise.all([send("A"), send("B")]);
      const ms = elapsed();
      expect(requests.tagOf(a)).toBe("A");
      expect(requests.tagOf(b)).toBe("B");
      expect(order).toEqual(["B", "A"]);
      await client.disconnect();
      await done("10 two requests, answers reversed", "both resolve correctly", ms, readPids(run.pidsFile));
    });
  });

  // ── 11. close / disconnect in every order ──────────────────────────────────────────────────

  describe("11. disconnect() and close() twice, concurrently, or at the wrong time", () => {
    it("client: before connect() — disconnect is a no-op, using it throws NotConnectedError", async () => {
      const { run, options } = setup("ok");
      const client = new AgentSdkClient(options);
      const elapsed = stopwatch();
      await client.disconnect();
      await client.disconnect();
      await expect(client.query("hi")).rejects.toBeInstanceOf(NotConnectedError);
      await expect(client.receiveResponse().next()).rejects.toBeInstanceOf(NotConnectedError);
      await expect(client.interrupt()).rejects.toBeInstanceOf(NotConnectedError);
      const ms = elapsed();
      expect(readPids(run.pidsFile)).toBeUndefined();
      await done("11 client disconnect before connect", "no-op; NotConnectedError on use", ms, undefined);
    });

    it("client: three concurrent calls, then one more — every call resolves once the process is gone", async () => {
      const { run, options } = setup("stall", { ignoreTerm: true }, { closeGraceMs: 300 });
      const client = new AgentSdkClient(options);
      await client.connect();
      await client.query("hi");
      // Mid-turn: the CLI is up and ignoring SIGTERM (where a turn is a process, query() returns
      // as soon as it is spawned).
      for await (const m of client.receiveResponse()) if (m.type === "assistant") break;
      const pids = readPids(run.pidsFile);
      expect(pids && isAlive(pids.pid)).toBe(true);
      const elapsed = stopwatch();
      const goneWhenResolved: boolean[] = [];
      const calls = [1, 2, 3].map(() =>
        client.disconnect().then(() => goneWhenResolved.push(!isAlive(pids?.pid ?? 0))),
      );
      await Promise.all(calls);
      const ms = elapsed();
      expect(goneWhenResolved).toEqual([true, true, true]);
      await client.disconnect();
      await expect(client.query("again")).rejects.toBeInstanceOf(NotConnectedError);
      await done("11 client disconnect x3 concurrently", "all resolve after exit", ms, pids);
    });

    it("client: disconnect() during a connect() stuck in the handshake aborts it at once", async (ctx) => {
      requires(ctx, "handshake");
      // disconnect() must not wait for the handshake timeout (20 s here, 60 s by default): if it
      // did, this case would take 20 s and fail the no-hang bound.
      const { run, options } = setup("never-answers-handshake", {}, { controlTimeoutMs: 20_000 });
      const client = new AgentSdkClient(options);
      const connecting = client.connect().catch((e: unknown) => e);
      expect(await eventually(() => readPids(run.pidsFile) !== undefined)).toBe(true);
      const elapsed = stopwatch();
      await client.disconnect();
      const ms = elapsed();
      expect(await connecting).toBeInstanceOf(AbortError);
      expect(client.isConnected).toBe(false);
      await done(
        "11 client disconnect during connect",
        "connect rejects AbortError; killed",
        ms,
        readPids(run.pidsFile),
      );
    });

    it("client: reconnects after disconnect(), with a new process", async () => {
      const { run, options } = setup("ok");
      const client = new AgentSdkClient(options);
      await client.connect();
      // A turn each time: where a turn is a process (Cursor), there is none before it.
      await client.query("hi");
      expect(await firstResult(client)).toBe("ok");
      await client.disconnect();
      const firstPids = readPids(run.pidsFile);
      expect(await survivors(firstPids)).toEqual([]);
      await client.connect();
      await client.query("hi");
      expect(await firstResult(client)).toBe("ok");
      expect(readPids(run.pidsFile)?.pid).not.toBe(firstPids?.pid);
      const elapsed = stopwatch();
      await client[Symbol.asyncDispose]();
      await client[Symbol.asyncDispose]();
      await done("11 client reconnect, dispose twice", "works; no throw", elapsed(), readPids(run.pidsFile));
    });

    it("query(): close() before iterating spawns nothing; iteration then ends at once", async () => {
      const { run, options } = setup("ok");
      const q = query({ prompt: "hi", options });
      const elapsed = stopwatch();
      await q.close();
      await q.close();
      expect(await q.next()).toEqual({ done: true, value: undefined });
      const ms = elapsed();
      await expect(q.interrupt()).rejects.toBeInstanceOf(NotConnectedError);
      expect(readPids(run.pidsFile)).toBeUndefined();
      await done("11 query close before iterating", "nothing spawned", ms, undefined);
    });

    it("query(): close() twice and concurrently mid-turn — every call resolves once the process is gone", async () => {
      const { run, options } = setup("stall", { ignoreTerm: true }, { closeGraceMs: 300 });
      const q = query({ prompt: "hi", options });
      const first = await q.next();
      expect(first.done).toBe(false);
      const pids = readPids(run.pidsFile);
      expect(pids && isAlive(pids.pid)).toBe(true);
      const elapsed = stopwatch();
      const goneWhenResolved: boolean[] = [];
      await Promise.all(
        [1, 2, 3].map(() => q.close().then(() => goneWhenResolved.push(!isAlive(pids?.pid ?? 0)))),
      );
      const ms = elapsed();
      expect(goneWhenResolved).toEqual([true, true, true]);
      const rest = await consume(q);
      expect(rest.error).toBeUndefined();
      await done("11 query close x3 concurrently", "all resolve after exit; iteration ends", ms, pids);
    });

    it("query(): close() while the handshake is stuck ends the pending next() at once", async (ctx) => {
      requires(ctx, "handshake");
      const extra = { ...backend.handshake?.queryOptions, controlTimeoutMs: 20_000 };
      const { run, options } = setup("never-answers-handshake", {}, extra);
      const q = query({ prompt: "hi", options });
      const pending = q.next();
      expect(await eventually(() => readPids(run.pidsFile) !== undefined)).toBe(true);
      const elapsed = stopwatch();
      await q.close();
      expect(await pending).toEqual({ done: true, value: undefined });
      await done(
        "11 query close during handshake",
        "pending next() ends; killed",
        elapsed(),
        readPids(run.pidsFile),
      );
    });
  });

  // ── process groups ─────────────────────────────────────────────────────────────────────────

  describe.runIf(process.platform === "linux")("process groups (Linux)", () => {
    it("the CLI leads its own process group, its grandchild is in it, and the group dies with the session", async () => {
      // Mid-turn, so the CLI runs whether or not it outlives a turn (Cursor: a turn is a process).
      const { run, options } = setup("stall", { grandchild: "sleep" });
      const client = new AgentSdkClient(options);
      await client.connect();
      await client.query("hi");
      for await (const m of client.receiveResponse()) if (m.type === "assistant") break;
      const pids = readPids(run.pidsFile);
      const cli = procStat(pids?.pid ?? 0);
      const grandchild = procStat(pids?.grandchildPid ?? 0);
      expect(cli?.pgrp).toBe(pids?.pid);
      expect(grandchild?.pgrp).toBe(pids?.pid);
      expect(procStat(process.pid)?.pgrp).not.toBe(pids?.pid);
      expect(liveGroupMembers(pids?.pid ?? 0).sort()).toEqual([pids?.pid, pids?.grandchildPid].sort());
      const elapsed = stopwatch();
      await client.disconnect();
      await done(
        "group: CLI + grandchild share a new group",
        "whole group killed on disconnect",
        elapsed(),
        pids,
      );
      expect(liveGroupMembers(pids?.pid ?? 0)).toEqual([]);
    });
  });
});
