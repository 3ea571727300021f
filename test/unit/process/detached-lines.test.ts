/**
 * The line splitter decodes a chunk's lines together and slices them out of one string; V8 keeps a
 * slice as a view into that string. What outlives the read (an error's line head, the stderr tail)
 * must not keep a whole chunk of output alive.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { JsonDecodeError } from "../../../src/errors.js";
import { parseJsonLine } from "../../../src/process/jsonl.js";
import { LineSplitter } from "../../../src/process/line-splitter.js";
import { StderrTail } from "../../../src/process/stderr-tail.js";
import { detachedString } from "../../../src/wire/detached-string.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Heap growth, in bytes, while what `keep` returns is still held. */
function retainedBy(keep: () => unknown): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = keep();
  gc();
  const after = process.memoryUsage().heapUsed;
  expect(kept).toBeDefined();
  return after - before;
}

/** One 8 MB chunk of short lines, so the splitter decodes it as one string. */
function bigChunk(lastLine: string): Buffer {
  return Buffer.from(`${`{"type":"noise","text":"${"n".repeat(100)}"}\n`.repeat(64_000)}${lastLine}\n`);
}

describe("lines kept past the read hold only themselves", () => {
  it("a malformed line's error does not keep its chunk's text", () => {
    const bytes = retainedBy(() => {
      const lines = new LineSplitter().push(bigChunk(`not json ${"x".repeat(500)}`));
      return parseJsonLine(lines.at(-1) as string);
    });
    expect(bytes).toBeLessThan(1024 * 1024);
  });

  it("the stderr tail does not keep its lines' chunks", () => {
    // 100 chunks of 60 KB, each holding one line worth keeping among blank ones: the tail keeps
    // 100 short lines (~3 KB), not 100 chunks (6 MB).
    const bytes = retainedBy(() => {
      const tail = new StderrTail({ maxLines: 100, maxBytes: 64 * 1024 });
      for (let i = 0; i < 100; i++) tail.push(Buffer.from(`${" \n".repeat(30_000)}kept stderr line ${i}\n`));
      expect(tail.text().split("\n")).toHaveLength(100);
      return tail;
    });
    expect(bytes).toBeLessThan(1024 * 1024);
  });

  it("copies exactly, lone surrogates included", () => {
    for (const text of ["", "short", "é".repeat(40), "\ud800 lone \udfff surrogates and more text"]) {
      expect(detachedString(text)).toBe(text);
    }
    const error = new JsonDecodeError("bad", "z".repeat(300));
    expect(error.lineHead).toBe(`${"z".repeat(200)}…`);
  });
});
