/**
 * The Claude Code version check: learned from the session's own `system/init`
 * (`claude_code_version`) when the CLI reports it, so no second `claude -v` process is started;
 * asked with `-v` only when it does not. Runs the stand-in CLI (test/fixtures/fake-cli) under a
 * fresh path per case, because the check is done once per executable per process.
 */
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ProcessError, query } from "../../src/index.js";
import { collect } from "./support.js";

const FAKE_CLAUDE = fileURLToPath(new URL("../fixtures/fake-cli/fake-claude.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "cas-version-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let cases = 0;
/** A path of its own for the stand-in, and the file it writes when asked `-v`. */
function freshCli(): { cliPath: string; askedFile: string } {
  cases += 1;
  const cliPath = join(dir, `claude-${cases}`);
  symlinkSync(FAKE_CLAUDE, cliPath);
  return { cliPath, askedFile: join(dir, `asked-${cases}`) };
}

const warnings: Error[] = [];
const waiters: Array<(w: Error) => void> = [];
const onWarning = (warning: Error) => {
  if ((warning as { code?: string }).code !== "CODE_AGENT_SDK_CLI_VERSION") return;
  warnings.push(warning);
  for (const wake of waiters.splice(0)) wake(warning);
};
process.on("warning", onWarning);
afterAll(() => {
  process.off("warning", onWarning);
});
afterEach(() => {
  warnings.length = 0;
});

/** The next version warning that mentions `path`. */
function warningAbout(path: string): Promise<Error> {
  const seen = warnings.find((w) => w.message.includes(path));
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve) => {
    const wait = (w: Error) => (w.message.includes(path) ? resolve(w) : waiters.push(wait));
    waiters.push(wait);
  });
}

describe("Claude Code version check", () => {
  it("takes the version from system/init: an old one warns, and `claude -v` is never run", async () => {
    const { cliPath, askedFile } = freshCli();
    const warned = warningAbout(cliPath);
    const env = { FAKE_CLAUDE_INIT_VERSION: "1.0.31", FAKE_CLAUDE_VERSION_ASKED: askedFile };
    await collect(query({ prompt: "hi", options: { cliPath, env } }));
    expect((await warned).message).toContain(`Claude Code 1.0.31 at ${cliPath} is older than 2.1.100`);
    expect(existsSync(askedFile)).toBe(false);
  });

  it("a current version from system/init: no warning, no `-v`, and later sessions do not check again", async () => {
    const { cliPath, askedFile } = freshCli();
    const env = { FAKE_CLAUDE_INIT_VERSION: "2.1.330", FAKE_CLAUDE_VERSION_ASKED: askedFile };
    await collect(query({ prompt: "hi", options: { cliPath, env } }));
    await collect(
      query({ prompt: "again", options: { cliPath, env: { FAKE_CLAUDE_VERSION_ASKED: askedFile } } }),
    );
    expect(warnings.filter((w) => w.message.includes(cliPath))).toEqual([]);
    expect(existsSync(askedFile)).toBe(false);
  });

  it("a CLI whose init has no version is asked with `-v`", async () => {
    const { cliPath, askedFile } = freshCli();
    const warned = warningAbout(cliPath);
    const env = { FAKE_CLAUDE_VERSION: "1.9.0", FAKE_CLAUDE_VERSION_ASKED: askedFile };
    await collect(query({ prompt: "hi", options: { cliPath, env } }));
    expect((await warned).message).toContain("Claude Code 1.9.0");
    expect(existsSync(askedFile)).toBe(true);
  });

  it("a session that dies before its init is still checked with `-v` (an old CLI is a likely cause)", async () => {
    const { cliPath, askedFile } = freshCli();
    const warned = warningAbout(cliPath);
    const env = {
      FAKE_CLAUDE_MODE: "crash-at-start",
      FAKE_CLAUDE_VERSION: "1.2.0",
      FAKE_CLAUDE_VERSION_ASKED: askedFile,
    };
    await expect(collect(query({ prompt: "hi", options: { cliPath, env } }))).rejects.toBeInstanceOf(
      ProcessError,
    );
    expect((await warned).message).toContain("Claude Code 1.2.0");
    expect(existsSync(askedFile)).toBe(true);
  });

  it("CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK skips it altogether", async () => {
    const { cliPath, askedFile } = freshCli();
    const env = {
      CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK: "1",
      FAKE_CLAUDE_INIT_VERSION: "1.0.0",
      FAKE_CLAUDE_VERSION_ASKED: askedFile,
    };
    await collect(query({ prompt: "hi", options: { cliPath, env } }));
    expect(warnings.filter((w) => w.message.includes(cliPath))).toEqual([]);
    expect(existsSync(askedFile)).toBe(false);
  });
});
