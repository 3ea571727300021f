import { describe, expect, it } from "vitest";
import { StderrTail } from "../../../src/process/stderr-tail.js";

describe("StderrTail", () => {
  it("keeps only the last maxLines lines", () => {
    const tail = new StderrTail({ maxLines: 3 });
    tail.push(Buffer.from("1\n2\n3\n4\n5"));
    tail.end();
    expect(tail.text()).toBe("3\n4\n5");
  });

  it("keeps at most maxBytes", () => {
    const tail = new StderrTail({ maxBytes: 10 });
    tail.push(Buffer.from("aaaa\nbbbb\ncccc\n"));
    expect(tail.text()).toBe("bbbb\ncccc");
  });

  it("defaults to 100 lines", () => {
    const tail = new StderrTail();
    for (let i = 0; i < 150; i++) tail.push(Buffer.from(`line ${i}\n`));
    const lines = tail.text().split("\n");
    expect(lines).toHaveLength(100);
    expect(lines[0]).toBe("line 50");
  });

  it("truncates a single line longer than the whole tail instead of growing", () => {
    const tail = new StderrTail({ maxBytes: 1024 });
    tail.push(Buffer.alloc(10_000, "e"));
    tail.push(Buffer.from("\nafter\n"));
    const text = tail.text();
    expect(text).toContain("truncated");
    expect(text.endsWith("after")).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThan(1024);
  });

  it("calls onLine per line and survives a callback that throws, warning once", async () => {
    const seen: string[] = [];
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w);
    };
    process.on("warning", onWarning);
    try {
      const tail = new StderrTail({
        onLine: (line) => {
          seen.push(line);
          throw new Error("callback bug");
        },
      });
      tail.push(Buffer.from("x\ny\n"));
      tail.push(Buffer.from("z"));
      tail.end();
      expect(seen).toEqual(["x", "y", "z"]);
      expect(tail.text()).toBe("x\ny\nz");
      // emitWarning delivers on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toContain("callback bug");
    } finally {
      process.off("warning", onWarning);
    }
  });
});
