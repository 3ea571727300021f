/**
 * Stale parking directories (a host that died without its exit hook) are reclaimed when a new
 * spare parks — only directories that are certainly ours and certainly stale: named as we name
 * them with this host's tag, real directories (never through a symlink), owned by us, whose host
 * pid is gone. Real directories, symlinks and uids (the suite runs as root).
 */
import { spawnSync } from "node:child_process";
import {
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hostTag } from "../../../src/process/stale-dirs.js";
import { newParkingDir, reclaimStaleParkingDirs } from "../../../src/warm/parking.js";

let root: string;
let spares: string;
let victim: string;

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  const run = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(run.stdout.toString());
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "cas-parking-"));
  spares = join(root, ".claude", "spares");
  mkdirSync(spares, { recursive: true, mode: 0o700 });
  victim = join(root, "victim");
  mkdirSync(victim);
  writeFileSync(join(victim, "keep.txt"), "precious");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function parked(name: string): string {
  const dir = join(spares, name);
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, "state"), "x");
  // A link inside pointing out: removing the directory must not follow it.
  symlinkSync(victim, join(dir, "out"));
  return dir;
}

describe("reclaiming stale parking directories", () => {
  it("removes a dead host's directory, and nothing it links to", () => {
    const dead = deadPid();
    const stale = parked(`spare-${hostTag()}-${dead}-abcDEF`);
    expect(reclaimStaleParkingDirs(spares)).toEqual([`spare-${hostTag()}-${dead}-abcDEF`]);
    expect(existsSync(stale)).toBe(false);
    expect(readFileSync(join(victim, "keep.txt"), "utf8")).toBe("precious");
  });

  it("leaves everything that is not certainly ours and stale", () => {
    const dead = deadPid();
    const tag = hostTag();
    const otherTag = tag === "00000000" ? "11111111" : "00000000";
    const kept = [
      parked(`spare-${tag}-${process.pid}-live01`), // a live host (this one)
      parked(`spare-${tag}-1-init01`), // pid 1 is alive
      parked(`spare-${otherTag}-${dead}-other1`), // another machine or pid namespace
      parked(`spare-aBc123`), // the older naming: no owner known
      parked(`other-${tag}-${dead}-abcdef`), // not a parking directory
      parked(`spare-${tag}-${dead}-abcdef-extra`), // not exactly our pattern
    ];
    const foreign = parked(`spare-${tag}-${dead}-uid123`);
    chownSync(foreign, 12345, 12345);
    const link = join(spares, `spare-${tag}-${dead}-link01`);
    symlinkSync(victim, link);
    const file = join(spares, `spare-${tag}-${dead}-file01`);
    writeFileSync(file, "not a directory");

    expect(reclaimStaleParkingDirs(spares)).toEqual([]);
    for (const path of [...kept, foreign, file]) expect(existsSync(path), path).toBe(true);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(victim, "keep.txt"), "utf8")).toBe("precious");
  });

  it("does nothing in a spares directory that is a symlink or not ours", () => {
    const dead = deadPid();
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere);
    const stale = join(elsewhere, `spare-${hostTag()}-${dead}-abcdef`);
    mkdirSync(stale);
    const linked = join(root, "linked-spares");
    symlinkSync(elsewhere, linked);
    expect(reclaimStaleParkingDirs(linked)).toEqual([]);
    expect(existsSync(stale)).toBe(true);

    chownSync(elsewhere, 12345, 12345);
    expect(reclaimStaleParkingDirs(elsewhere)).toEqual([]);
    expect(existsSync(stale)).toBe(true);
  });

  it("a new parking directory carries this host's tag and pid, and parking reclaims the stale ones first", () => {
    const stale = parked(`spare-${hostTag()}-${deadPid()}-abcdef`);
    const dir = newParkingDir({ env: { HOME: root, CLAUDE_CONFIG_DIR: join(root, ".claude") } });
    expect(dir.startsWith(join(spares, `spare-${hostTag()}-${process.pid}-`))).toBe(true);
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    expect(existsSync(stale)).toBe(false);
    // Our own directory is never taken for a stale one.
    expect(reclaimStaleParkingDirs(spares)).toEqual([]);
    expect(existsSync(dir)).toBe(true);
  });
});
