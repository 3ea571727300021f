/**
 * The recording file: created exclusive, no-follow, 0600; a FIFO, a link or anything else at the
 * path is refused at once (never a blocked event loop); `overwrite` replaces only a regular file of
 * ours. The recorder never ends a session: what it cannot record becomes a `gap` line and a
 * RecordingError reported through `onError`.
 */
import { spawn } from "node:child_process";
import {
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { query } from "../../../src/index.js";
import { RecordingError } from "../../../src/transport/index.js";
import type { ReadFlow } from "../../../src/transport/read-flow.js";
import { type DirectReadTransport, READ_INTO } from "../../../src/transport/read-transport.js";
import { recordTransport } from "../../../src/transport/recording.js";
import { MAX_QUEUED_BYTES, QueuedFileWriter } from "../../../src/transport/recording-file.js";
import { runStrictHost } from "../../lifecycle/support/strict-host.js";
import { cliLike, resultLine, ScriptedTransport } from "../support/scripted-transport.js";

const dir = mkdtempSync(join(tmpdir(), "cas-recording-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `r${++n}.jsonl`);

const HOST = join(import.meta.dirname, "support", "recording-host.mts");
const EXIT_BOUND_MS = 20_000;

/** Runs a recording-host scenario in its own strict Node process; it must exit 0 on its own. */
async function runHost(
  scenario: string,
  path: string,
): Promise<{ code: number | null; report: Record<string, unknown> }> {
  const run = await runStrictHost(HOST, [scenario, path], { label: scenario, boundMs: EXIT_BOUND_MS });
  return { code: run.code, report: (run.last as { report: Record<string, unknown> }).report };
}

/** A one-shot query over a scripted CLI, recorded to `record`. */
async function recordedQuery(record: unknown): Promise<string | undefined> {
  const transport = new ScriptedTransport(cliLike((t) => t.emit(resultLine("recorded"))));
  let result: string | undefined;
  for await (const message of query({ prompt: "hi", options: { transport, record: record as string } })) {
    if (message.type === "result") result = message.result;
  }
  return result;
}

async function refusal(record: unknown): Promise<RecordingError> {
  const error = await recordedQuery(record).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RecordingError);
  return error as RecordingError;
}

describe("the recording file", () => {
  it("is created with mode 0600", async () => {
    const path = fresh();
    expect(await recordedQuery(path)).toBe("recorded");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, "utf8").split("\n")[0]).toContain('"kind":"header"');
  });

  it("is never written through a symbolic link: a link to a file, a dangling link", async () => {
    const target = join(dir, "victim.txt");
    writeFileSync(target, "precious\n");
    const link = fresh();
    symlinkSync(target, link);
    expect((await refusal(link)).message).toMatch(/a symbolic link already exists there/);
    expect(readFileSync(target, "utf8")).toBe("precious\n");

    const dangling = fresh();
    const nowhere = join(dir, "created-through-link.txt");
    symlinkSync(nowhere, dangling);
    await refusal(dangling);
    expect(() => lstatSync(nowhere)).toThrow(/ENOENT/);
    // overwrite never follows a link either
    expect((await refusal({ path: link, overwrite: true })).message).toMatch(/symbolic link is there/);
    expect(readFileSync(target, "utf8")).toBe("precious\n");
  });

  it("refuses an existing file or directory unless overwrite; overwrite truncates a regular file of ours to 0600", async () => {
    const existing = fresh();
    writeFileSync(existing, "old recording\n", { mode: 0o644 });
    expect((await refusal(existing)).message).toMatch(/a file already exists there.*overwrite: true/);
    expect(readFileSync(existing, "utf8")).toBe("old recording\n");

    expect(await recordedQuery({ path: existing, overwrite: true })).toBe("recorded");
    const text = readFileSync(existing, "utf8");
    expect(text).not.toContain("old recording");
    expect(text.split("\n")[0]).toContain('"kind":"header"');
    expect(statSync(existing).mode & 0o777).toBe(0o600);

    const directory = join(dir, "a-directory");
    mkdirSync(directory);
    expect((await refusal(directory)).message).toMatch(/a directory already exists there/);
    expect((await refusal({ path: directory, overwrite: true })).message).toMatch(/not a regular file/);
  });

  it("overwrite refuses a file with another hard link (its other name would change too)", async () => {
    const original = join(dir, "linked-original.txt");
    writeFileSync(original, "shared\n");
    const second = fresh();
    linkSync(original, second);
    expect((await refusal({ path: second, overwrite: true })).message).toMatch(/2 hard links/);
    expect(readFileSync(original, "utf8")).toBe("shared\n");
  });

  it("a FIFO at the path is refused at once, also with overwrite, in a host that then exits on its own", async () => {
    const fifo = fresh();
    await new Promise<void>((resolve, reject) =>
      spawn("mkfifo", [fifo]).on("close", (code) =>
        code === 0 ? resolve() : reject(new Error(`mkfifo ${code}`)),
      ),
    );
    const run = await runHost("fifo", fifo);
    expect(run.code).toBe(0);
    expect(run.report).toMatchObject({ ok: false, isRecordingError: true });
    expect(String(run.report.message)).toMatch(/a FIFO already exists there/);
    expect((await refusal({ path: fifo, overwrite: true })).message).toMatch(
      /a FIFO is there, not a regular file/,
    );
  });
});

describe("the recorder never ends a session", () => {
  it("a 20 000-deep JSON value from the CLI becomes a gap line and a RecordingError; the session ends with its result and the host exits", async () => {
    const path = fresh();
    const run = await runHost("deep", path);
    expect(run.code).toBe(0);
    expect(run.report).toMatchObject({ ok: true, result: "after the deep line" });
    expect(run.report.errors).toEqual([
      expect.stringMatching(/^true:RecordingError:.*nests deeper than 1000 levels/),
    ]);
    const lines = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l.kind === "gap")).toMatchObject({ direction: "in" });
    expect(
      lines.find((l) => l.kind === "in" && (l.line as { type?: string }).type === "result"),
    ).toBeDefined();
  });

  it("a value that cannot be serialised (a BigInt from a custom transport) and a throwing onError do not end the session", async () => {
    const path = fresh();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      const transport = new ScriptedTransport(
        cliLike((t) => {
          t.emit({ type: "system", subtype: "status", status: null, big: 10n });
          t.emit(resultLine("still here"));
        }),
      );
      const record = {
        path,
        onError: () => {
          throw new Error("onError failed");
        },
      };
      let result: string | undefined;
      for await (const message of query({ prompt: "hi", options: { transport, record } }))
        if (message.type === "result") result = message.result;
      expect(result).toBe("still here");
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => w.name)).toEqual(["RecordingError"]);
      expect(warnings[0]?.message).toMatch(/BigInt.*onError threw: onError failed/s);
      expect(readFileSync(path, "utf8")).toMatch(/"kind":"gap"/);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("a file that falls behind more than its bound stops recording with one gap line and one report, the writes never wait", async () => {
    const path = fresh();
    const { open } = await import("node:fs/promises");
    const handle = await open(path, "w", 0o600);
    const stops: string[] = [];
    const writer = new QueuedFileWriter(
      handle,
      (why, overflow) => {
        stops.push(why);
        if (overflow) writer.appendLast('{"kind":"gap","reason":"stopped"}\n');
      },
      1024,
    );
    expect(writer.append("x".repeat(2000))).toBe(true); // one line larger than the bound is taken
    expect(writer.append("y".repeat(10))).toBe(false); // more while it waits: stop
    expect(writer.append("z")).toBe(false);
    await writer.flushed();
    await handle.close();
    expect(stops).toEqual([expect.stringMatching(/more than 1024 bytes/)]);
    expect(readFileSync(path, "utf8")).toBe(`${"x".repeat(2000)}{"kind":"gap","reason":"stopped"}\n`);
    expect(MAX_QUEUED_BYTES).toBe(32 * 1024 * 1024);
  });

  it("recordTransport keeps the wrapped transport's backpressure flow (READ_INTO gets it)", async () => {
    const seen: unknown[] = [];
    const inner = {
      connect: async () => {},
      write: async () => {},
      readMessages: async function* () {},
      endInput: async () => {},
      close: async () => {},
      isReady: () => true,
      [READ_INTO]: async (_onItem: unknown, flow?: unknown) => {
        seen.push(flow);
      },
    };
    const wrapped = recordTransport(inner, fresh(), { backend: "claude", sdkVersion: "0", env: {} });
    await wrapped.connect();
    const flow = { marker: true };
    await (wrapped as unknown as DirectReadTransport)[READ_INTO](() => {}, flow as unknown as ReadFlow);
    await wrapped.close();
    expect(seen).toEqual([flow]);
  });
});
