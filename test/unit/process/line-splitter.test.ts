import { describe, expect, it, vi } from "vitest";
import { BufferOverflowError } from "../../../src/errors.js";
import { LineSplitter, type SplitItem } from "../../../src/process/line-splitter.js";

function split(chunks: (string | Buffer)[], maxLineBytes?: number): SplitItem[] {
  const splitter = new LineSplitter(maxLineBytes === undefined ? {} : { maxLineBytes });
  const out: SplitItem[] = [];
  for (const chunk of chunks)
    out.push(...splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
  out.push(...splitter.end());
  return out;
}

describe("LineSplitter", () => {
  it("emits several lines from one chunk", () => {
    expect(split(["a\nb\nc\n"])).toEqual(["a", "b", "c"]);
  });

  it("joins a line split across chunks", () => {
    expect(split(["ab", "cd", "e\nf", "g\n"])).toEqual(["abcde", "fg"]);
  });

  it("emits lines as soon as their newline arrives, not at end()", () => {
    const splitter = new LineSplitter();
    expect(splitter.push(Buffer.from('{"a":1}\n{"b"'))).toEqual(['{"a":1}']);
    expect(splitter.push(Buffer.from(":2}\n"))).toEqual(['{"b":2}']);
    expect(splitter.end()).toEqual([]);
  });

  it("strips \\r\\n, including when \\r and \\n land in different chunks", () => {
    expect(split(["a\r\nb\r", "\nc\r\n"])).toEqual(["a", "b", "c"]);
  });

  it("keeps a lone \\r that is not part of a line ending", () => {
    expect(split(["a\rb\n"])).toEqual(["a\rb"]);
  });

  it("emits a trailing partial line at end()", () => {
    expect(split(["a\nb"])).toEqual(["a", "b"]);
    expect(split(["a\nb\r"])).toEqual(["a", "b"]);
  });

  it("skips empty and whitespace-only lines", () => {
    expect(split(["\n\n  \n\t\r\na\n \n", "  "])).toEqual(["a"]);
  });

  it("decodes a multi-byte character split at every possible byte boundary", () => {
    const text = "é世🎉∑ done";
    const bytes = Buffer.from(`${text}\n`);
    for (let i = 1; i < bytes.length; i++) {
      expect(split([bytes.subarray(0, i), bytes.subarray(i)])).toEqual([text]);
    }
    // One byte per chunk, the worst case.
    expect(split([...bytes].map((b) => Buffer.from([b])))).toEqual([text]);
  });

  it("joins a very long line from many chunks in one copy (no re-concatenation per chunk)", () => {
    const piece = Buffer.alloc(64 * 1024, "x");
    const splitter = new LineSplitter();
    // Every byte Buffer.concat copies while the line is pushed: a splitter that joined what it held
    // on each chunk would copy ~320²/2 × 64 KiB (3.3 GB) for this 20 MiB line; one join copies it once.
    let copied = 0;
    const concat = Buffer.concat;
    const spy = vi.spyOn(Buffer, "concat").mockImplementation((list, length) => {
      const joined = concat(list, length);
      copied += joined.length;
      return joined;
    });
    try {
      for (let i = 0; i < 320; i++) expect(splitter.push(piece)).toEqual([]);
      const [line] = splitter.push(Buffer.from("\n"));
      expect(typeof line === "string" && line.length).toBe(320 * 64 * 1024);
    } finally {
      spy.mockRestore();
    }
    expect(copied).toBeLessThanOrEqual(320 * 64 * 1024 + 1);
  });

  it("accepts a line of exactly maxLineBytes, also with \\r\\n", () => {
    expect(split(["abcd\n"], 4)).toEqual(["abcd"]);
    expect(split(["ab", "cd\r", "\n"], 4)).toEqual(["abcd"]);
    expect(split(["abcd"], 4)).toEqual(["abcd"]);
  });

  it("reports a line over maxLineBytes that completes inside one chunk", () => {
    const [err, next] = split(["abcde\nok\n"], 4);
    expect(err).toBeInstanceOf(BufferOverflowError);
    expect((err as BufferOverflowError).limit).toBe(4);
    expect((err as BufferOverflowError).lineHead).toBe("abcde");
    expect((err as BufferOverflowError).message).toContain("4 bytes");
    expect(next).toBe("ok");
  });

  it("reports overflow before the newline arrives, then resyncs at the next newline", () => {
    const splitter = new LineSplitter({ maxLineBytes: 10 });
    expect(splitter.push(Buffer.from("first\n0123456"))).toEqual(["first"]);
    const [err] = splitter.push(Buffer.from("789abcdef"));
    expect(err).toBeInstanceOf(BufferOverflowError);
    expect((err as BufferOverflowError).lineHead).toBe("0123456789abcdef");
    expect(splitter.bufferedBytes).toBe(0);
    // The rest of the oversized line is discarded, not reported again.
    expect(splitter.push(Buffer.from("more junk"))).toEqual([]);
    expect(splitter.push(Buffer.from("tail\nnext\n"))).toEqual(["next"]);
    expect(splitter.end()).toEqual([]);
  });

  it("reports an oversized trailing partial line at end()", () => {
    const splitter = new LineSplitter({ maxLineBytes: 3 });
    expect(splitter.push(Buffer.from("abcd"))).toEqual([]);
    const [err] = splitter.end();
    expect(err).toBeInstanceOf(BufferOverflowError);
  });

  it("keeps the overflow head short for huge lines", () => {
    const [err] = split([Buffer.alloc(100_000, "z")], 1000);
    expect(err).toBeInstanceOf(BufferOverflowError);
    expect((err as BufferOverflowError).lineHead.length).toBeLessThanOrEqual(201);
    expect((err as BufferOverflowError).lineLength).toBe(100_000);
  });

  it("decodes a line over 1 MiB as it arrives, characters split between chunks included", () => {
    const text = `{"s":"${"é世🎉∑ ".repeat(200_000)}"}`;
    const bytes = Buffer.from(`${text}\r\nnext\n`);
    expect(bytes.length).toBeGreaterThan(2 * 1024 * 1024);
    const chunks: Buffer[] = [];
    // 64 KiB + 1: chunk boundaries fall inside multi-byte characters.
    for (let at = 0; at < bytes.length; at += 65_537) chunks.push(bytes.subarray(at, at + 65_537));
    expect(split(chunks)).toEqual([text, "next"]);
  });

  it("keeps a line of exactly maxLineBytes that was decoded as it arrived, \r\n split off", () => {
    const max = 1536 * 1024;
    const text = "a".repeat(max);
    expect(
      split([Buffer.from(text.slice(0, 1000)), Buffer.from(`${text.slice(1000)}\r`), Buffer.from("\n")], max),
    ).toEqual([text]);
    const [err] = split([Buffer.from(text.slice(0, 1000)), Buffer.from(`${text.slice(1000)}b\n`)], max);
    expect(err).toBeInstanceOf(BufferOverflowError);
  });

  it("reports a line that overflows while it is decoded as it arrives, then resyncs", () => {
    const splitter = new LineSplitter({ maxLineBytes: 2 * 1024 * 1024 });
    const piece = Buffer.from("é".repeat(256 * 1024)); // 512 KiB
    const out: SplitItem[] = [];
    for (let i = 0; i < 5; i++) out.push(...splitter.push(piece));
    expect(out).toHaveLength(1);
    expect(out[0]).toBeInstanceOf(BufferOverflowError);
    expect((out[0] as BufferOverflowError).lineHead.startsWith("éé")).toBe(true);
    expect(splitter.bufferedBytes).toBe(0);
    expect(splitter.push(Buffer.from("rest\nok\n"))).toEqual(["ok"]);
  });

  it("splits any chunking of mixed lines as a line-by-line reading does, within and over the limit", () => {
    // A small xorshift generator: the same cases every run.
    let seed = 0x2f6b1d3;
    const next = (n: number): number => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const pieces = ["{", "}", "a", "é", "€", "𝄞", " ", "\t", "\r", "x".repeat(40)];
    const lines: string[] = [];
    for (let i = 0; i < 300; i++) {
      let line = "";
      const count = next(12);
      for (let j = 0; j < count; j++) line += pieces[next(pieces.length)];
      lines.push(line + (next(4) === 0 ? "\r" : ""));
    }
    const bytes = Buffer.from(`${lines.join("\n")}\n`);
    for (const max of [Number.POSITIVE_INFINITY, 120, 30]) {
      const expected = lines.flatMap((raw): SplitItem[] => {
        const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
        const size = Buffer.byteLength(line);
        if (size > max) return [new BufferOverflowError(max, "", size)];
        return line.length > 0 && line.trim() !== "" ? [line] : [];
      });
      for (let round = 0; round < 20; round++) {
        const chunks: Buffer[] = [];
        for (let at = 0; at < bytes.length; ) {
          const size = 1 + next(round % 2 === 0 ? 64 : 4096);
          chunks.push(bytes.subarray(at, at + size));
          at += size;
        }
        const got = split(chunks, max === Number.POSITIVE_INFINITY ? undefined : max);
        expect(got.map(comparable)).toEqual(expected.map(comparable));
      }
    }
  });

  it("rejects a non-positive limit", () => {
    expect(() => new LineSplitter({ maxLineBytes: 0 })).toThrow(/maxLineBytes/);
  });
});

/** A line as is; an overflow as a marker (its head and "at least" size depend on the chunking). */
function comparable(item: SplitItem): string {
  return typeof item === "string" ? JSON.stringify(item) : "<overflow>";
}
