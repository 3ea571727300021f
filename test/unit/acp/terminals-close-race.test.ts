/**
 * A session closing while a client terminal's command is starting: `closeAll()` must not settle
 * with that command running. Seen on Factory Droid (a disconnect while its `terminal/create` was
 * being served left `sh -c sleep …` running, its group still registered): the command had been
 * spawned but was not yet among the session's terminals. Here `spawn` is wrapped so the close
 * begins right after the fork, inside that window, every time.
 */
import type * as ChildProcess from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { groupExists } from "../../../src/backends/acp/leftovers.js";
import { Terminals } from "../../../src/backends/acp/terminals.js";
import { Workspace } from "../../../src/backends/acp/workspace.js";
import { liveGroupCount } from "../../../src/process/group-registry.js";
import { eventually } from "../../lifecycle/support/processes.js";

const hook = vi.hoisted(() => ({ afterSpawn: undefined as ((pid: number) => void) | undefined }));

vi.mock("node:child_process", async (importOriginal) => {
  const real = await importOriginal<typeof ChildProcess>();
  const spawn = ((...args: Parameters<typeof real.spawn>) => {
    const child = real.spawn(...args);
    if (child.pid !== undefined) hook.afterSpawn?.(child.pid);
    return child;
  }) as typeof real.spawn;
  return { ...real, spawn, default: { ...real, spawn } };
});

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "cas-acp-term-race-")));
});
afterEach(() => {
  hook.afterSpawn = undefined;
  rmSync(root, { recursive: true, force: true });
  expect(liveGroupCount()).toBe(0);
});

describe("closeAll while a terminal's command is starting", () => {
  it("the command is ended before closeAll settles, and its create is refused", async () => {
    const terminals = new Terminals(new Workspace(root, 1024), { PATH: process.env.PATH ?? "/usr/bin:/bin" });
    let closing: Promise<void> | undefined;
    let pid: number | undefined;
    hook.afterSpawn = (spawned) => {
      pid = spawned;
      closing = terminals.closeAll();
    };
    const created = terminals.create({ command: "sleep 1000" }).then(
      (id) => ({ id }),
      (error: unknown) => ({ error }),
    );
    const outcome = await created;
    expect(closing).toBeDefined();
    await closing;
    expect(pid).toBeDefined();
    // Settled: the command's group was ended (and is gone once reaped), not left running.
    expect(liveGroupCount()).toBe(0);
    expect(await eventually(() => !groupExists(pid as number), 5_000)).toBe(true);
    expect(outcome).toMatchObject({
      error: expect.objectContaining({ message: expect.stringMatching(/closing/) }),
    });
  });
});
