import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { BufferOverflowError, JsonDecodeError } from "../../../src/errors.js";
import {
  parseJsonLine,
  ReaderThrew,
  readJsonLineBatches,
  readJsonLines,
  readJsonLinesInto,
} from "../../../src/process/jsonl.js";
import { collect } from "./helpers.js";

describe("readJsonLines", () => {
  it("parses objects and yields non-objects and invalid lines as JsonDecodeError", async () => {
    const stream = Readable.from([Buffer.from('{"a":1}\nnope\n[1]\n'), Buffer.from('null\n"s"\n{"b":2}')]);
    const items = await collect(readJsonLines(stream, { maxLineBytes: 1024 }));
    expect(items[0]).toEqual({ a: 1 });
    expect(items.slice(1, 5).every((i) => i instanceof JsonDecodeError)).toBe(true);
    expect((items[1] as JsonDecodeError).lineHead).toBe("nope");
    expect((items[2] as JsonDecodeError).message).toContain("an array");
    expect(items[5]).toEqual({ b: 2 });
  });

  it("yields each line as soon as its newline arrives", async () => {
    const stream = new PassThrough();
    const reader = readJsonLines(stream, { maxLineBytes: 1024 });
    stream.write('{"n":1}\n{"n"');
    expect(await reader.next()).toEqual({ done: false, value: { n: 1 } });
    stream.write(":2}\n");
    expect(await reader.next()).toEqual({ done: false, value: { n: 2 } });
    stream.end();
    expect(await reader.next()).toEqual({ done: true, value: undefined });
  });

  it("yields the lines before an overflow, then throws BufferOverflowError", async () => {
    const stream = Readable.from([Buffer.from(`{"ok":true}\n{"x":"${"a".repeat(100)}"}\n`)]);
    const reader = readJsonLines(stream, { maxLineBytes: 50 });
    expect(await reader.next()).toEqual({ done: false, value: { ok: true } });
    await expect(reader.next()).rejects.toBeInstanceOf(BufferOverflowError);
  });

  it("accepts string chunks", async () => {
    const stream = Readable.from(['{"s":"é"}\n'], { objectMode: true });
    expect(await collect(readJsonLines(stream, { maxLineBytes: 1024 }))).toEqual([{ s: "é" }]);
  });
});

describe("readJsonLineBatches", () => {
  it("yields every line read since the reader last asked, in one batch", async () => {
    const stream = new PassThrough();
    const reader = readJsonLineBatches(stream, { maxLineBytes: 1024 });
    stream.write('{"n":1}\n{"n":2}\n');
    expect(await reader.next()).toEqual({ done: false, value: [{ n: 1 }, { n: 2 }] });
    stream.write('{"n":3}\n{"n"');
    stream.write(":4}\nnope\n");
    await new Promise((resolve) => setImmediate(resolve));
    const { value } = await reader.next();
    expect(value?.slice(0, 2)).toEqual([{ n: 3 }, { n: 4 }]);
    expect(value?.[2]).toBeInstanceOf(JsonDecodeError);
    stream.end('{"n":5}');
    expect(await reader.next()).toEqual({ done: false, value: [{ n: 5 }] });
    expect(await reader.next()).toEqual({ done: true, value: undefined });
  });

  it("pauses the stream while more than 1 MiB of lines wait for the reader", async () => {
    const stream = new PassThrough();
    const reader = readJsonLineBatches(stream, { maxLineBytes: 1 << 20 });
    const line = `{"s":"${"x".repeat(64 * 1024)}"}\n`;
    for (let i = 0; i < 20; i++) stream.write(line);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stream.readableFlowing).toBe(false);
    const { value } = await reader.next();
    expect(value?.length).toBeGreaterThan(15);
    expect(stream.readableFlowing).toBe(true);
    stream.end();
    let total = value?.length ?? 0;
    for await (const batch of reader) total += batch.length;
    expect(total).toBe(20);
  });

  it("ends at a close without end (the stream was destroyed), after the lines before it", async () => {
    const stream = new PassThrough();
    const reader = readJsonLineBatches(stream, { maxLineBytes: 1024 });
    stream.write('{"a":1}\n');
    await new Promise((resolve) => setImmediate(resolve));
    stream.destroy();
    expect(await reader.next()).toEqual({ done: false, value: [{ a: 1 }] });
    expect(await reader.next()).toEqual({ done: true, value: undefined });
  });

  it("throws a stream error after the lines before it", async () => {
    const stream = new PassThrough();
    const reader = readJsonLineBatches(stream, { maxLineBytes: 1024 });
    stream.write('{"a":1}\n');
    await new Promise((resolve) => setImmediate(resolve));
    stream.destroy(new Error("boom"));
    expect(await reader.next()).toEqual({ done: false, value: [{ a: 1 }] });
    await expect(reader.next()).rejects.toThrow("boom");
    expect(await reader.next()).toEqual({ done: true, value: undefined });
  });

  it("throws BufferOverflowError after the lines before it, and stops reading", async () => {
    const stream = new PassThrough();
    const reader = readJsonLineBatches(stream, { maxLineBytes: 20 });
    stream.write(`{"ok":true}\n{"x":"${"a".repeat(100)}"}\n{"late":1}\n`);
    expect(await reader.next()).toEqual({ done: false, value: [{ ok: true }] });
    await expect(reader.next()).rejects.toBeInstanceOf(BufferOverflowError);
    expect(stream.destroyed).toBe(true);
  });

  it("destroys the stream when the reader stops early", async () => {
    const stream = new PassThrough();
    const reader = readJsonLineBatches(stream, { maxLineBytes: 1024 });
    stream.write('{"a":1}\n');
    for await (const _batch of reader) break;
    expect(stream.destroyed).toBe(true);
  });
});

describe("readJsonLinesInto", () => {
  it("hands over each line as it is read, bad lines as JsonDecodeError, the last one at the end", async () => {
    const stream = new PassThrough();
    const items: unknown[] = [];
    const done = readJsonLinesInto(stream, { maxLineBytes: 1024 }, (item) => items.push(item));
    stream.write('{"a":1}\nnope\n{"b"');
    await new Promise((resolve) => setImmediate(resolve));
    expect(items).toHaveLength(2);
    expect(items[0]).toEqual({ a: 1 });
    expect(items[1]).toBeInstanceOf(JsonDecodeError);
    stream.end(":2}");
    await done;
    expect(items[2]).toEqual({ b: 2 });
  });

  it("ends at a close without end, and rejects with a stream error after the lines before it", async () => {
    const closed = new PassThrough();
    const seen: unknown[] = [];
    const ended = readJsonLinesInto(closed, { maxLineBytes: 1024 }, (item) => seen.push(item));
    closed.write('{"a":1}\n');
    await new Promise((resolve) => setImmediate(resolve));
    closed.destroy();
    await ended;
    expect(seen).toEqual([{ a: 1 }]);

    const failing = new PassThrough();
    const failed = readJsonLinesInto(failing, { maxLineBytes: 1024 }, () => undefined);
    failing.destroy(new Error("boom"));
    await expect(failed).rejects.toThrow("boom");
  });

  it("rejects with BufferOverflowError after the lines before it, and stops reading", async () => {
    const stream = new PassThrough();
    const seen: unknown[] = [];
    const done = readJsonLinesInto(stream, { maxLineBytes: 20 }, (item) => seen.push(item));
    stream.write(`{"ok":true}\n{"x":"${"a".repeat(100)}"}\n{"late":1}\n`);
    await expect(done).rejects.toBeInstanceOf(BufferOverflowError);
    expect(seen).toEqual([{ ok: true }]);
    expect(stream.destroyed).toBe(true);
  });

  it("rejects with ReaderThrew when the reader throws, and stops reading", async () => {
    const stream = new PassThrough();
    const seen: unknown[] = [];
    const done = readJsonLinesInto(stream, { maxLineBytes: 1024 }, (item) => {
      seen.push(item);
      throw new Error("reader bug");
    });
    stream.write('{"a":1}\n{"b":2}\n');
    const error = await done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReaderThrew);
    expect((error as ReaderThrew).error).toEqual(new Error("reader bug"));
    expect(seen).toEqual([{ a: 1 }]);
    expect(stream.destroyed).toBe(true);
  });
});

describe("parseJsonLine", () => {
  it("takes a UTF-8 byte order mark before a line as whitespace, in every reader", async () => {
    expect(parseJsonLine('\uFEFF{"a":1}')).toEqual({ a: 1 });
    // The BOM's three bytes split across chunks, before the first line.
    const chunks = () => [
      Buffer.from([0xef, 0xbb]),
      Buffer.from([0xbf, ...Buffer.from('{"a":1}\n{"b":2}\n')]),
    ];
    expect(await collect(readJsonLines(Readable.from(chunks()), { maxLineBytes: 1024 }))).toEqual([
      { a: 1 },
      { b: 2 },
    ]);
    const seen: unknown[] = [];
    await readJsonLinesInto(Readable.from(chunks()), { maxLineBytes: 1024 }, (item) => seen.push(item));
    expect(seen).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it("keeps the parse error as cause", () => {
    const err = parseJsonLine("{bad");
    expect(err).toBeInstanceOf(JsonDecodeError);
    expect((err as JsonDecodeError).cause).toBeInstanceOf(SyntaxError);
  });
});
