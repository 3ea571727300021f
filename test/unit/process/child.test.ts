import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CliConnectionError, ProcessError } from "../../../src/errors.js";
import { type ChildHandle, spawnChild } from "../../../src/process/child.js";
import { liveGroupCount } from "../../../src/process/group-registry.js";
import { readJsonLines } from "../../../src/process/jsonl.js";
import { collect, fixture, isAlive, killQuietly, waitUntilDead } from "./helpers.js";

const started: ChildHandle[] = [];

function node(script: string, args: string[] = [], extra: Partial<Parameters<typeof spawnChild>[0]> = {}) {
  const child = spawnChild({ command: process.execPath, args: [fixture(script), ...args], ...extra });
  started.push(child);
  return child;
}

async function firstMessage(child: ChildHandle): Promise<Record<string, unknown>> {
  const reader = readJsonLines(child.stdout, { maxLineBytes: 1 << 20 });
  const { value } = await reader.next();
  if (!value || value instanceof Error) throw new Error(`expected a JSON message, got ${String(value)}`);
  return value;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((c) => c.close(200)));
});

describe("spawnChild", () => {
  it("runs a process, round-trips stdin/stdout, and exits 0 on EOF", async () => {
    const child = node("echo.mjs");
    await child.spawned;
    expect(child.pid).toBeTypeOf("number");
    const reader = readJsonLines(child.stdout, { maxLineBytes: 1024 });
    await child.write('{"hi":1}\n');
    expect((await reader.next()).value).toEqual({ echo: { hi: 1 } });
    await child.endInput();
    await child.endInput(); // idempotent
    expect((await reader.next()).done).toBe(true);
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.exitInfo()).toEqual({ code: 0, signal: null });
  });

  it("rejects `spawned` fast with a typed error for a missing binary, and still resolves `exited`", async () => {
    const t0 = performance.now();
    const child = spawnChild({ command: "/definitely/not/here/agent-cli", args: ["--x"] });
    const err = await child.spawned.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProcessError);
    expect((err as ProcessError).message).toContain("/definitely/not/here/agent-cli");
    expect((err as ProcessError).message).toContain("not found");
    expect((err as ProcessError).exitCode).toBeNull();
    expect(await child.exited).toEqual({ code: null, signal: null });
    expect(await child.close()).toEqual({ code: null, signal: null });
    await expect(child.write("x")).rejects.toBeInstanceOf(CliConnectionError);
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it("names a missing working directory instead of blaming the command", async () => {
    const child = spawnChild({ command: process.execPath, args: [], cwd: "/definitely/not/a/dir" });
    await expect(child.spawned).rejects.toThrow(/working directory "\/definitely\/not\/a\/dir" not found/);
  });

  it("reports EACCES for a file that is not executable", async () => {
    const child = spawnChild({ command: fixture("hang.mjs"), args: [] });
    await expect(child.spawned).rejects.toThrow(/permission denied \(EACCES\)/);
    await child.exited;
  });

  it("names the missing interpreter of a script that exists, instead of 'command not found'", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cas-shebang-"));
    try {
      const script = join(dir, "cli");
      writeFileSync(script, "#!/nonexistent/bin/interp --flag\necho hi\n", { mode: 0o755 });
      const child = spawnChild({ command: script, args: [] });
      await expect(child.spawned).rejects.toThrow(
        /the file exists, but its interpreter "\/nonexistent\/bin\/interp" \(from its #! line\) was not found \(ENOENT\)/,
      );
      await child.exited;
      const gone = spawnChild({ command: join(dir, "missing"), args: [] });
      await expect(gone.spawned).rejects.toThrow(/command not found \(ENOENT\)/);
      await gone.exited;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("rejects `spawned` without throwing for arguments spawn() refuses synchronously", async () => {
    const child = spawnChild({ command: process.execPath, args: ["bad\0arg"] });
    await expect(child.spawned).rejects.toBeInstanceOf(ProcessError);
    expect(await child.exited).toEqual({ code: null, signal: null });
  });

  it("a NUL byte in an argument or the environment is named, and its value (a prompt, a secret) never quoted", async () => {
    const inArg = spawnChild({ command: process.execPath, args: ["-e", "0", "my-prompt\0rest"] });
    const argError = await inArg.spawned.catch((error: unknown) => error as ProcessError);
    expect(argError).toBeInstanceOf(ProcessError);
    expect(argError?.message).toContain("command-line argument 3 of 3 contains a NUL byte");
    expect(argError?.message).not.toContain("my-prompt");

    const env = { PATH: process.env.PATH ?? "", API_KEY: "sk-secret\0tail" };
    const inEnv = spawnChild({ command: process.execPath, args: ["-e", "0"], env });
    const envError = await inEnv.spawned.catch((error: unknown) => error as ProcessError);
    expect(envError).toBeInstanceOf(ProcessError);
    expect(envError?.message).toContain("environment variable API_KEY contains a NUL byte");
    expect(envError?.message).not.toContain("sk-secret");
    expect(await inEnv.exited).toEqual({ code: null, signal: null });
  });

  it("rejects a write after the child exited with CliConnectionError, without crashing", async () => {
    const child = node("exit-with-stderr.mjs", ["0", "1"]);
    await collect(child.stdout);
    await child.exited;
    const err = await child.write('{"late":true}\n').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliConnectionError);
    expect((err as Error).message).toContain("exit code 0");
  });

  it("rejects a pending write (stdin backpressure) when the child is closed", async () => {
    const child = node("hang.mjs");
    await firstMessage(child);
    // hang.mjs never reads stdin: these fill the pipe and wait for it to drain.
    const chunk = "x".repeat(256 * 1024);
    const pending = Array.from({ length: 20 }, () => child.write(chunk).catch((e: unknown) => e));
    await child.close(200);
    for (const result of await Promise.all(pending)) expect(result).toBeInstanceOf(CliConnectionError);
  });

  it('rejects writes when stdin is "ignore"', async () => {
    const child = node("hang.mjs", [], { stdin: "ignore" });
    await child.spawned;
    await expect(child.write("x")).rejects.toThrow(/ignore/);
  });

  it("keeps a bounded stderr tail and streams stderr lines to onStderrLine", async () => {
    const lines: string[] = [];
    const child = node("exit-with-stderr.mjs", ["3", "150"], { onStderrLine: (l) => lines.push(l) });
    await collect(child.stdout);
    expect(await child.exited).toEqual({ code: 3, signal: null });
    expect(lines).toHaveLength(151);
    expect(lines.at(-1)).toBe("fatal: something broke");
    const tail = child.stderrTail().split("\n");
    expect(tail).toHaveLength(100);
    expect(tail.at(-1)).toBe("fatal: something broke");
  });

  it("reports the signal of a child that crashed", async () => {
    const child = node("self-signal.mjs");
    await collect(child.stdout);
    expect(await child.exited).toEqual({ code: null, signal: "SIGKILL" });
  });

  it("close() terminates with SIGTERM and is idempotent", async () => {
    const child = node("hang.mjs");
    await firstMessage(child);
    const [a, b] = await Promise.all([child.close(), child.close()]);
    expect(a).toEqual({ code: null, signal: "SIGTERM" });
    expect(b).toBe(a);
    expect(await child.close()).toBe(a);
    expect(liveGroupCount()).toBe(0);
  });

  it("close() escalates to SIGKILL when SIGTERM is ignored", async () => {
    const child = node("hang.mjs", ["ignore-term"]);
    await firstMessage(child);
    const t0 = performance.now();
    expect(await child.close(150)).toEqual({ code: null, signal: "SIGKILL" });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it("close() kills the whole process group, grandchildren included", async () => {
    const child = node("grandchild.mjs");
    const { pid, grandchildPid } = (await firstMessage(child)) as { pid: number; grandchildPid: number };
    expect(isAlive(grandchildPid)).toBe(true);
    await child.close();
    expect(isAlive(pid)).toBe(false);
    expect(await waitUntilDead(grandchildPid)).toBe(true);
  });

  it("close() kills grandchildren that ignore SIGTERM too", async () => {
    const child = node("grandchild.mjs", ["ignore-term"]);
    const { grandchildPid } = (await firstMessage(child)) as { grandchildPid: number };
    expect(await child.close(150)).toEqual({ code: null, signal: "SIGKILL" });
    expect(await waitUntilDead(grandchildPid)).toBe(true);
  });

  it("close() does not wait for a reader that never drains stdout", async () => {
    const child = node("huge-line.mjs", [String(8 * 1024 * 1024)]);
    await child.spawned;
    // Nobody reads stdout; the child blocks on a full pipe.
    expect((await child.close(200)).signal).toBe("SIGTERM");
  });

  it("resolves `exited` when an escaped grandchild keeps stdout open after the child exits", async () => {
    const child = node("escapee.mjs", [], { stdioIdleMs: 100 });
    let grandchildPid: number | undefined;
    try {
      const items = await collect(readJsonLines(child.stdout, { maxLineBytes: 1024 }));
      grandchildPid = (items.find((i) => "grandchildPid" in i) as { grandchildPid: number }).grandchildPid;
      expect(await child.exited).toEqual({ code: 0, signal: null });
    } finally {
      killQuietly(grandchildPid);
    }
  });
});
