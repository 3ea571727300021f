import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { BufferOverflowError, JsonDecodeError } from "../../../src/errors.js";
import { parseJsonLine, readJsonLines } from "../../../src/process/jsonl.js";
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

describe("parseJsonLine", () => {
  it("keeps the parse error as cause", () => {
    const err = parseJsonLine("{bad");
    expect(err).toBeInstanceOf(JsonDecodeError);
    expect((err as JsonDecodeError).cause).toBeInstanceOf(SyntaxError);
  });
});
