/**
 * The client side's security boundary: fs/* and terminal/* only inside the session's working
 * directory, with `..` and symbolic links resolved.
 */
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RequestError } from "@agentclientprotocol/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Terminals } from "../../../src/backends/acp/terminals.js";
import { Workspace } from "../../../src/backends/acp/workspace.js";
import { liveGroupCount } from "../../../src/process/group-registry.js";

let base: string;
let root: string;
let outside: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "cas-acp-ws-")));
  root = join(base, "work");
  outside = join(base, "secret");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, "key.txt"), "secret\n");
  symlinkSync(outside, join(root, "link-out"));
  symlinkSync(join(outside, "key.txt"), join(root, "key-link.txt"));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

async function refused(promise: Promise<unknown>): Promise<RequestError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RequestError);
  return error as RequestError;
}

describe("Workspace", () => {
  it("reads and writes inside, creating parent directories; line and limit select lines", async () => {
    const ws = new Workspace(root, 1024);
    await ws.writeTextFile({ path: join(root, "a", "b.txt"), content: "one\ntwo\nthree\n" });
    expect(readFileSync(join(root, "a", "b.txt"), "utf8")).toBe("one\ntwo\nthree\n");
    expect(await ws.readTextFile({ path: join(root, "a", "b.txt") })).toBe("one\ntwo\nthree\n");
    expect(await ws.readTextFile({ path: join(root, "a", "b.txt"), line: 2, limit: 1 })).toBe("two");
  });

  it.each([
    ["a path with ..", () => join(root, "..", "secret", "key.txt")],
    ["a directory link pointing out", () => join(root, "link-out", "key.txt")],
    ["a file link pointing out", () => join(root, "key-link.txt")],
    ["an absolute path elsewhere", () => join(outside, "key.txt")],
    ["a relative path", () => "key.txt"],
  ])("refuses %s, for reading and for writing", async (_label, path) => {
    const ws = new Workspace(root, 1024);
    const read = await refused(ws.readTextFile({ path: path() }));
    expect(read.code).toBe(-32602);
    await refused(ws.writeTextFile({ path: path(), content: "pwned" }));
    expect(readFileSync(join(outside, "key.txt"), "utf8")).toBe("secret\n");
  });

  it("refuses to create a new file through a link pointing out", async () => {
    const ws = new Workspace(root, 1024);
    await refused(ws.writeTextFile({ path: join(root, "link-out", "new.txt"), content: "x" }));
  });

  it("a missing file is resource-not-found; a file over the limit is refused", async () => {
    const ws = new Workspace(root, 4);
    expect((await refused(ws.readTextFile({ path: join(root, "nope.txt") }))).code).toBe(-32002);
    writeFileSync(join(root, "big.txt"), "12345");
    expect((await refused(ws.readTextFile({ path: join(root, "big.txt") }))).message).toBeTruthy();
  });

  it("a working directory that is itself a link is judged by its target", async () => {
    symlinkSync(root, join(base, "work-link"));
    const ws = new Workspace(join(base, "work-link"), 1024);
    await ws.writeTextFile({ path: join(base, "work-link", "ok.txt"), content: "ok" });
    expect(readFileSync(join(root, "ok.txt"), "utf8")).toBe("ok");
  });
});

describe("Terminals", () => {
  it("runs a shell line in the workspace, reports output and exit status, and releases", async () => {
    const terminals = new Terminals(new Workspace(root, 1024), { PATH: process.env.PATH ?? "" });
    const id = await terminals.create({ command: "pwd; echo out; echo err >&2; exit 3" });
    expect(await terminals.waitForExit(id)).toEqual({ exitCode: 3, signal: null });
    const output = terminals.output(id);
    expect(output.output).toContain(root);
    expect(output.output).toContain("out\n");
    expect(output.output).toContain("err\n");
    expect(output.exitStatus).toEqual({ exitCode: 3, signal: null });
    await terminals.release(id);
    expect(() => terminals.output(id)).toThrow(RequestError);
  });

  it("runs argv directly with args, keeps only the newest outputByteLimit bytes", async () => {
    const terminals = new Terminals(new Workspace(root, 1024), {});
    const id = await terminals.create({
      command: process.execPath,
      args: ["-e", "process.stdout.write('a'.repeat(100) + 'END')"],
      outputByteLimit: 10,
    });
    await terminals.waitForExit(id);
    expect(terminals.output(id)).toMatchObject({ output: "aaaaaaaEND", truncated: true });
  });

  it("refuses a cwd outside the workspace", async () => {
    const terminals = new Terminals(new Workspace(root, 1024), {});
    await expect(terminals.create({ command: "true", cwd: outside })).rejects.toBeInstanceOf(RequestError);
    await expect(terminals.create({ command: "true", cwd: join(root, "link-out") })).rejects.toBeInstanceOf(
      RequestError,
    );
  });

  it("kill ends the command's whole process group; closeAll ends every command", async () => {
    const terminals = new Terminals(new Workspace(root, 1024), { PATH: process.env.PATH ?? "" });
    const before = liveGroupCount();
    const id = await terminals.create({ command: "sleep 1000 & sleep 1000; wait" });
    const other = await terminals.create({ command: "sleep 1000" });
    expect(liveGroupCount()).toBe(before + 2);
    await terminals.kill(id);
    expect((await terminals.waitForExit(id)).signal).toBe("SIGTERM");
    await terminals.closeAll();
    // Every group has exited (a group is forgotten when its leader's exit is seen).
    expect(liveGroupCount()).toBe(before);
    await expect(terminals.waitForExit(other)).rejects.toBeInstanceOf(RequestError);
    await expect(terminals.create({ command: "true" })).rejects.toBeInstanceOf(RequestError);
  });
});
