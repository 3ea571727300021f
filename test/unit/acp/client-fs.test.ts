/**
 * The ACP client's fs/* boundary with real links, FIFOs and devices: every path component is
 * checked without following a link out (a dangling link a cloned repository carries included),
 * only regular files are served and nothing blocks, new files are private, existing ones keep their
 * mode, a line range streams, and concurrent reads share one byte budget.
 */
import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RequestError } from "@agentclientprotocol/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Workspace } from "../../../src/backends/acp/workspace.js";

let base: string;
let root: string;
let outside: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "cas-acp-fs-")));
  root = join(base, "work");
  outside = join(base, "secret");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, "key.txt"), "secret\n");
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

async function failure(promise: Promise<unknown>): Promise<RequestError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RequestError);
  return error as RequestError;
}

/** `promise` settles within `ms` (a read that blocks in open() never would). */
async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}

describe("links: no component is followed out", () => {
  it("a dangling link pointing out: a write through it creates nothing outside, a read is refused", async () => {
    symlinkSync(join(outside, "planted.txt"), join(root, "notes.txt"));
    const ws = new Workspace(root, 1024);
    const write = await failure(ws.writeTextFile({ path: join(root, "notes.txt"), content: "pwned" }));
    expect(write.code).toBe(-32602);
    expect(write.message).toContain("outside the session's working directory");
    expect(existsSync(join(outside, "planted.txt"))).toBe(false);
    expect((await failure(ws.readTextFile({ path: join(root, "notes.txt") }))).code).toBe(-32602);
  });

  it("a dangling directory link in an intermediate component: nothing is created outside", async () => {
    symlinkSync(join(outside, "newdir"), join(root, "build"));
    const ws = new Workspace(root, 1024);
    await failure(ws.writeTextFile({ path: join(root, "build", "out", "x.txt"), content: "pwned" }));
    expect(existsSync(join(outside, "newdir"))).toBe(false);
  });

  it("a link to a directory outside, deep in the path, and a link to a file outside are refused", async () => {
    mkdirSync(join(root, "a", "b"), { recursive: true });
    symlinkSync(outside, join(root, "a", "b", "c"));
    symlinkSync(join(outside, "key.txt"), join(root, "a", "key.txt"));
    const ws = new Workspace(root, 1024);
    for (const path of [join(root, "a", "b", "c", "key.txt"), join(root, "a", "key.txt")]) {
      await failure(ws.readTextFile({ path }));
      await failure(ws.writeTextFile({ path, content: "pwned" }));
    }
    await failure(ws.writeTextFile({ path: join(root, "a", "b", "c", "new.txt"), content: "pwned" }));
    expect(readFileSync(join(outside, "key.txt"), "utf8")).toBe("secret\n");
    expect(existsSync(join(outside, "new.txt"))).toBe(false);
  });

  it("a relative link that climbs out through .. is refused; one that stays inside is served", async () => {
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src", "real.txt"), "real\n");
    symlinkSync("../../secret/key.txt", join(root, "src", "up.txt"));
    symlinkSync("../src/real.txt", join(root, "src", "same.txt"));
    symlinkSync("src", join(root, "alias"));
    const ws = new Workspace(root, 1024);
    await failure(ws.readTextFile({ path: join(root, "src", "up.txt") }));
    expect(await ws.readTextFile({ path: join(root, "src", "same.txt") })).toBe("real\n");
    expect(await ws.readTextFile({ path: join(root, "alias", "real.txt") })).toBe("real\n");
    await ws.writeTextFile({ path: join(root, "alias", "same.txt"), content: "through\n" });
    expect(readFileSync(join(root, "src", "real.txt"), "utf8")).toBe("through\n");
  });

  it("a link loop is refused, not followed forever", async () => {
    symlinkSync("loop-b", join(root, "loop-a"));
    symlinkSync("loop-a", join(root, "loop-b"));
    const ws = new Workspace(root, 1024);
    expect((await failure(within(5_000, ws.readTextFile({ path: join(root, "loop-a") })))).code).toBe(-32602);
    await failure(within(5_000, ws.writeTextFile({ path: join(root, "loop-a", "x"), content: "x" })));
  });
});

describe("the check-then-open race (Linux: each step opens relative to the directory before it)", () => {
  it.runIf(process.platform === "linux")(
    "a directory swapped for a link to outside, over and over, during reads: the outside file is never served",
    async () => {
      mkdirSync(join(root, "d-dir"));
      writeFileSync(join(root, "d-dir", "key.txt"), "inside\n");
      symlinkSync(outside, join(root, "d-link"));
      // Another process makes root/d a directory, then a link pointing out, as fast as it can.
      const swapper = spawn(
        process.execPath,
        [
          "-e",
          `const { renameSync: mv } = require("node:fs");
           const [dir, link, d] = process.argv.slice(1);
           process.stdout.write("go\\n");
           for (;;) { try { mv(dir, d); mv(d, dir); mv(link, d); mv(d, link); } catch {} }`,
          join(root, "d-dir"),
          join(root, "d-link"),
          join(root, "d"),
        ],
        { stdio: ["ignore", "pipe", "ignore"] },
      );
      await new Promise((resolve) => swapper.stdout.once("data", resolve));
      const ws = new Workspace(root, 1024);
      const seen = new Map<string, number>();
      try {
        for (let i = 0; i < 3000; i++) {
          const text = await ws.readTextFile({ path: join(root, "d", "key.txt") }).catch(() => "refused");
          seen.set(text, (seen.get(text) ?? 0) + 1);
        }
      } finally {
        swapper.kill("SIGKILL");
      }
      console.log(`acp client fs | swap race | ${JSON.stringify(Object.fromEntries(seen))}`);
      expect(seen.get("secret\n")).toBeUndefined();
      expect(seen.get("inside\n") ?? 0).toBeGreaterThan(0);
    },
  );
});

describe("only regular files, never blocking", () => {
  it("a FIFO is refused at once, for reading and for writing (no reader, no writer)", async () => {
    execFileSync("mkfifo", [join(root, "pipe")]);
    const ws = new Workspace(root, 1024);
    const read = await failure(within(5_000, ws.readTextFile({ path: join(root, "pipe") })));
    expect(read.data).toMatchObject({ reason: "not-a-file" });
    expect(read.message).toContain("FIFO");
    await failure(within(5_000, ws.writeTextFile({ path: join(root, "pipe"), content: "x" })));
  });

  it("a character device (a /dev/zero node made in the workspace) is refused at once", async () => {
    execFileSync("mknod", [join(root, "zero"), "c", "1", "5"]);
    const ws = new Workspace(root, 1024);
    const read = await failure(within(5_000, ws.readTextFile({ path: join(root, "zero") })));
    expect(read.message).toContain("device");
    await failure(within(5_000, ws.readTextFile({ path: join(root, "zero"), line: 1, limit: 1 })));
  });

  it("a directory is not a file; a missing file is resource-not-found", async () => {
    mkdirSync(join(root, "dir"));
    const ws = new Workspace(root, 1024);
    expect((await failure(ws.readTextFile({ path: join(root, "dir") }))).code).toBe(-32602);
    expect((await failure(ws.readTextFile({ path: join(root, "nope", "x.txt") }))).code).toBe(-32002);
  });
});

describe("writes", () => {
  it("a new file is 0600 and its new directories 0700; an existing file keeps its mode and is replaced", async () => {
    const ws = new Workspace(root, 1024);
    await ws.writeTextFile({ path: join(root, "new", "deep", "a.txt"), content: "a" });
    expect(statSync(join(root, "new", "deep", "a.txt")).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, "new")).mode & 0o777).toBe(0o700);
    writeFileSync(join(root, "script.sh"), "#!/bin/sh\necho long old content\n");
    chmodSync(join(root, "script.sh"), 0o755);
    await ws.writeTextFile({ path: join(root, "script.sh"), content: "#!/bin/sh\n" });
    expect(statSync(join(root, "script.sh")).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(root, "script.sh"), "utf8")).toBe("#!/bin/sh\n");
  });

  it("asks authorize before anything is created, and a refusal writes nothing", async () => {
    const ws = new Workspace(root, 1024);
    const asked: unknown[] = [];
    const refusal = RequestError.invalidRequest({ reason: "permission-denied" }, "no");
    const error = await failure(
      ws.writeTextFile({ path: join(root, "d", "f.txt"), content: "x" }, async (request) => {
        asked.push(request);
        throw refusal;
      }),
    );
    expect(error).toBe(refusal);
    expect(asked).toEqual([{ path: join(root, "d", "f.txt"), content: "x" }]);
    expect(existsSync(join(root, "d"))).toBe(false);
    // A path outside is refused before anyone is asked.
    await failure(
      ws.writeTextFile({ path: join(outside, "x"), content: "x" }, async () => void asked.push(1)),
    );
    expect(asked).toHaveLength(1);
  });
});

describe("reads: bounded memory", () => {
  it("a line range is streamed from a file larger than the whole-file limit, with split('\\n') semantics", async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1} ${"é".repeat(i % 7)}`);
    writeFileSync(join(root, "big.log"), `${lines.join("\n")}\n`);
    const ws = new Workspace(root, 4096);
    await failure(ws.readTextFile({ path: join(root, "big.log") }));
    expect(await ws.readTextFile({ path: join(root, "big.log"), line: 15_000, limit: 2 })).toBe(
      `${lines[14_999]}\n${lines[15_000]}`,
    );
    expect(await ws.readTextFile({ path: join(root, "big.log"), line: 19_999 })).toBe(
      `${lines[19_998]}\n${lines[19_999]}\n`,
    );
    expect(await ws.readTextFile({ path: join(root, "big.log"), line: 30_000, limit: 5 })).toBe("");
    // More lines than the limit allows: refused, not loaded.
    await failure(ws.readTextFile({ path: join(root, "big.log"), line: 1, limit: 10_000 }));
    const small = "one\ntwo\nthree\n";
    writeFileSync(join(root, "small.txt"), small);
    for (const [line, limit] of [
      [1, 1],
      [2, 1],
      [2, undefined],
      [undefined, 2],
      [3, 5],
      [4, 1],
      [1, 0],
    ] as const) {
      const split = small.split("\n");
      const start = Math.max(0, (line ?? 1) - 1);
      const expected = split.slice(start, limit === undefined ? split.length : start + limit).join("\n");
      expect(await ws.readTextFile({ path: join(root, "small.txt"), line, limit })).toBe(expected);
    }
  });

  it("a flood of 400 concurrent reads holds at most 32 files open at once", async () => {
    for (let i = 0; i < 400; i++) writeFileSync(join(root, `s${i}.txt`), `${i}`);
    const ws = new Workspace(root, 1024);
    const fds = () => readdirSync("/proc/self/fd").length;
    const before = fds();
    let peak = before;
    let done = false;
    const sample = () => {
      peak = Math.max(peak, fds());
      if (!done) setImmediate(sample);
    };
    sample();
    const texts = await Promise.all(
      Array.from({ length: 400 }, (_, i) => ws.readTextFile({ path: join(root, `s${i}.txt`) })),
    );
    done = true;
    expect(texts[399]).toBe("399");
    // Each open request holds its file and, during the walk, a directory or two.
    expect(peak - before).toBeLessThanOrEqual(32 * 3);
    console.log(`acp client fs | 400 concurrent reads | peak open descriptors +${peak - before}`);
  });

  it("ten concurrent reads of files at the limit hold at most the limit at once", async () => {
    const size = 2 * 1024 * 1024;
    for (let i = 0; i < 10; i++) writeFileSync(join(root, `f${i}.txt`), String(i).repeat(size));
    const ws = new Workspace(root, size);
    const lengths = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        ws.readTextFile({ path: join(root, `f${i}.txt`) }).then((t) => t.length),
      ),
    );
    expect(lengths).toEqual(Array(10).fill(size));
    expect(ws.peakReadBytes).toBe(size);
  });
});
