import { afterEach, describe, expect, it } from "vitest";
import {
  BufferOverflowError,
  CliConnectionError,
  JsonDecodeError,
  NotConnectedError,
  ProcessError,
} from "../../../src/errors.js";
import { SubprocessTransport, type SubprocessTransportOptions } from "../../../src/transport/subprocess.js";
import { collect, fixture, isAlive, waitUntilDead } from "./helpers.js";

const transports: SubprocessTransport[] = [];

function transport(script: string, args: string[] = [], extra: Partial<SubprocessTransportOptions> = {}) {
  const t = new SubprocessTransport({
    command: process.execPath,
    args: [fixture(script), ...args],
    cliName: "fake-cli",
    closeGraceMs: 200,
    ...extra,
  });
  transports.push(t);
  return t;
}

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
});

describe("SubprocessTransport", () => {
  it("rejects a close grace or stdio idle time Node's timers cannot take, before spawning", () => {
    expect(() => new SubprocessTransport({ command: "true", args: [], closeGraceMs: 2 ** 31 })).toThrow(
      /closeGraceMs: must be at most 2147483647 ms/,
    );
    expect(
      () => new SubprocessTransport({ command: "true", args: [], stdioIdleMs: Number.POSITIVE_INFINITY }),
    ).toThrow(/stdioIdleMs: must be finite/);
  });

  it("exchanges JSON lines and ends normally on exit 0", async () => {
    const t = transport("echo.mjs");
    expect(t.isReady()).toBe(false);
    await t.connect();
    expect(t.isReady()).toBe(true);
    const reader = t.readMessages()[Symbol.asyncIterator]();
    await t.write(JSON.stringify({ n: 1 }));
    expect((await reader.next()).value).toEqual({ echo: { n: 1 } });
    await t.write(JSON.stringify({ n: 2 }));
    expect((await reader.next()).value).toEqual({ echo: { n: 2 } });
    await t.endInput();
    expect((await reader.next()).done).toBe(true);
    expect(await t.exited).toEqual({ code: 0, signal: null });
    expect(t.isReady()).toBe(false);
  });

  it("yields bad lines as JsonDecodeError and keeps reading", async () => {
    const t = transport("garbage.mjs");
    await t.connect();
    const items = await collect(t.readMessages());
    const errors = items.filter((i) => i instanceof JsonDecodeError);
    expect(errors.map((e) => (e as JsonDecodeError).lineHead)).toEqual([
      "not json",
      "[1,2]",
      "42",
      "{broken",
    ]);
    expect(items.filter((i) => !(i instanceof JsonDecodeError))).toEqual([{ ok: 1 }, { ok: 2 }]);
  });

  it("parses a final line that has no trailing newline", async () => {
    const t = transport("partial-last-line.mjs");
    await t.connect();
    expect(await collect(t.readMessages())).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it("decodes multi-byte UTF-8 that arrives split across chunks", async () => {
    const t = transport("utf8-split.mjs");
    await t.connect();
    expect(await collect(t.readMessages())).toEqual([{ text: "héllo 世界 🎉 ∑" }]);
  });

  it("reads a 20 MB line split across many chunks", async () => {
    const size = 20 * 1024 * 1024;
    const t = transport("huge-line.mjs", [String(size)]);
    await t.connect();
    const items = await collect(t.readMessages());
    expect(items).toHaveLength(2);
    expect((items[0] as { big: string }).big.length).toBe(size - 10);
    expect(items[1]).toEqual({ after: true });
  });

  it("throws BufferOverflowError naming the limit and closes the process", async () => {
    const t = transport("huge-line.mjs", [String(4 * 1024 * 1024)], { maxBufferSize: 1024 * 1024 });
    await t.connect();
    const err = await collect(t.readMessages()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BufferOverflowError);
    expect((err as BufferOverflowError).limit).toBe(1024 * 1024);
    expect((err as Error).message).toContain("1048576 bytes");
    expect((err as BufferOverflowError).lineHead.startsWith('{"big":"xxx')).toBe(true);
    expect(t.isReady()).toBe(false);
    expect((await t.exited)?.code).not.toBe(0);
  });

  it("throws ProcessError with exit code and stderr tail on a non-zero exit", async () => {
    const t = transport("exit-with-stderr.mjs", ["3", "5"]);
    await t.connect();
    const items: unknown[] = [];
    const err = await (async () => {
      for await (const item of t.readMessages()) items.push(item);
    })().catch((e: unknown) => e);
    expect(items).toEqual([{ type: "started" }]);
    expect(err).toBeInstanceOf(ProcessError);
    const pe = err as ProcessError;
    expect(pe.exitCode).toBe(3);
    expect(pe.signal).toBeNull();
    expect(pe.stderrTail).toContain("fatal: something broke");
    expect(pe.message).toContain("fake-cli");
    expect(pe.message).toContain("exit code 3");
    expect(t.stderrTail()).toContain("stderr line 4");
  });

  it("throws ProcessError naming the signal when the process is killed by someone else", async () => {
    const t = transport("self-signal.mjs");
    await t.connect();
    const err = await collect(t.readMessages()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProcessError);
    expect((err as ProcessError).signal).toBe("SIGKILL");
    expect((err as ProcessError).exitCode).toBeNull();
  });

  it("ends normally when we close() it, and kills grandchildren", async () => {
    const t = transport("grandchild.mjs");
    await t.connect();
    const reader = t.readMessages()[Symbol.asyncIterator]();
    const first = (await reader.next()).value as { pid: number; grandchildPid: number };
    await t.close();
    await t.close(); // idempotent
    expect((await reader.next()).done).toBe(true);
    expect(isAlive(first.pid)).toBe(false);
    expect(await waitUntilDead(first.grandchildPid)).toBe(true);
    await expect(t.write("{}")).rejects.toBeInstanceOf(CliConnectionError);
  });

  it("rejects connect() with ProcessError for a missing binary", async () => {
    const t = new SubprocessTransport({ command: "no-such-agent-cli-xyz", args: [], cliName: "fake-cli" });
    const err = await t.connect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProcessError);
    expect((err as Error).message).toMatch(/fake-cli.*no-such-agent-cli-xyz.*not found/);
    expect(t.isReady()).toBe(false);
    await t.close();
  });

  it("guards misuse with typed errors", async () => {
    const t = transport("echo.mjs");
    expect(() => t.readMessages()).toThrow(NotConnectedError);
    await expect(t.write("{}")).rejects.toBeInstanceOf(NotConnectedError);
    await t.connect();
    await expect(t.connect()).rejects.toBeInstanceOf(CliConnectionError);
    await expect(t.write('{"a":\n1}')).rejects.toThrow(/single line/);
    const messages = t.readMessages();
    expect(() => t.readMessages()).toThrow(/only be called once/);
    expect(() => t.readBatches()).toThrow(/only be called once/);
    await t.endInput();
    expect(await collect(messages)).toEqual([]);
  });

  it("reads in batches: the lines of a chunk arrive together, and the exit status still counts", async () => {
    const t = transport("garbage.mjs");
    await t.connect();
    const batches = await collect(t.readBatches());
    expect(batches.every((b) => Array.isArray(b) && b.length > 0)).toBe(true);
    const items = batches.flat();
    expect(items.filter((i) => !(i instanceof JsonDecodeError))).toEqual([{ ok: 1 }, { ok: 2 }]);
    expect(items.filter((i) => i instanceof JsonDecodeError)).toHaveLength(4);

    const failing = transport("exit-with-stderr.mjs", ["3", "1"]);
    await failing.connect();
    await expect(collect(failing.readBatches())).rejects.toBeInstanceOf(ProcessError);
  });
});
