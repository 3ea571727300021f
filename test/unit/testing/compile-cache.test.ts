/** The testing kit's shared Node compile cache directory: private to this user, or not used. */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodeCompileCacheDir } from "../../../src/testing/shared/compile-cache.js";

let scratch: string;
const savedTmp = process.env.TMPDIR;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), "cas-compile-cache-"));
  process.env.TMPDIR = scratch;
});
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(scratch, { recursive: true, force: true });
});

const expected = () => join(scratch, `code-agent-sdk-node-compile-cache-${process.getuid?.() ?? "user"}`);

describe("nodeCompileCacheDir", () => {
  it("makes a 0700 directory of this user, and reuses it", () => {
    expect(nodeCompileCacheDir()).toBe(expected());
    expect(statSync(expected()).mode & 0o777).toBe(0o700);
    expect(nodeCompileCacheDir()).toBe(expected());
  });

  it("is not used when the name is a link, or others can write the directory", () => {
    const elsewhere = join(scratch, "elsewhere");
    mkdirSync(elsewhere, { mode: 0o700 });
    symlinkSync(elsewhere, expected());
    expect(nodeCompileCacheDir()).toBeUndefined();
    rmSync(expected());
    mkdirSync(expected(), { mode: 0o700 });
    chmodSync(expected(), 0o777);
    expect(nodeCompileCacheDir()).toBeUndefined();
  });
});
