import { describe, expect, it } from "vitest";
import { type ChildHandle, spawnChild } from "../../../src/process/child.js";
import { readJsonLines } from "../../../src/process/jsonl.js";
import { fixture, isAlive, waitUntilDead } from "./helpers.js";

/** Runs orphan-parent.mts in `mode`; returns its handle, a reader and the pids it reported. */
async function startHost(mode: string) {
  const host: ChildHandle = spawnChild({
    command: process.execPath,
    args: ["--import", "tsx", fixture("orphan-parent.mts"), mode],
  });
  const reader = readJsonLines(host.stdout, { maxLineBytes: 4096 });
  const { value } = await reader.next();
  const pids = value as {
    parentPid: number;
    pid: number;
    grandchildPid: number;
    lingering: boolean;
    groups: number;
  };
  return { host, reader, pids };
}

async function expectGroupDead(pids: { pid: number; grandchildPid: number }): Promise<void> {
  expect(await waitUntilDead(pids.pid)).toBe(true);
  expect(await waitUntilDead(pids.grandchildPid)).toBe(true);
}

describe("children of a host process that goes away", () => {
  it.each(["exit", "uncaught"])("die when the host ends via %s", async (mode) => {
    const { host, pids } = await startHost(mode);
    try {
      const info = await host.exited;
      expect(info.code).toBe(mode === "exit" ? 0 : 1);
      await expectGroupDead(pids);
    } finally {
      await host.close(200);
    }
  });

  it("die when the host is killed by an unhandled SIGTERM, which still kills the host", async () => {
    const { host, pids } = await startHost("signal");
    try {
      expect(isAlive(pids.grandchildPid)).toBe(true);
      process.kill(pids.parentPid, "SIGTERM");
      expect(await host.exited).toEqual({ code: null, signal: "SIGTERM" });
      await expectGroupDead(pids);
    } finally {
      await host.close(200);
    }
  });

  it("are left alone when the host handles SIGTERM itself, and die when it then exits", async () => {
    const { host, reader, pids } = await startHost("handled");
    try {
      process.kill(pids.parentPid, "SIGTERM");
      expect((await reader.next()).value).toEqual({ handled: true, childAlive: true });
      expect(await host.exited).toEqual({ code: 0, signal: null });
      await expectGroupDead(pids);
    } finally {
      await host.close(200);
    }
  });

  it("a SIGTERM just after the last child ended, while the SDK's listeners linger, still kills the host", async () => {
    const { host, pids } = await startHost("ended");
    try {
      // The child is gone and nothing is left to clean up, but the listeners are still installed.
      expect(pids).toMatchObject({ lingering: true, groups: 0 });
      process.kill(pids.parentPid, "SIGTERM");
      expect(await host.exited).toEqual({ code: null, signal: "SIGTERM" });
    } finally {
      await host.close(200);
    }
  });
});
