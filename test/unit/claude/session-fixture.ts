/**
 * The Claude Code configuration directory claude 2.1.330 wrote (test/fixtures/claude/sessions/store),
 * shared by the session-helper tests: its session ids, its project, and a fresh copy per test.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";

const FIXTURE = new URL("../../fixtures/claude/sessions/store", import.meta.url).pathname;
/** A session that ran a subagent ({@link AGENT}). */
export const SUBAGENT_SESSION = "b48ee355-b0f1-4653-bda1-0c9533aed455";
/** A session the CLI renamed. */
export const RENAMED_SESSION = "8c5056df-eaa9-4777-afd7-7b84875eae92";
/** A session the CLI compacted. */
export const COMPACTED_SESSION = "8a4716a1-65ab-4920-b3a9-f0c8341103b8";
export const ALL_SESSIONS = [SUBAGENT_SESSION, RENAMED_SESSION, COMPACTED_SESSION];
/** The project directory every session ran in. */
export const PROJECT = "/tmp/cas-sessions-R8Hm72";
/** The subagent of {@link SUBAGENT_SESSION}. */
export const AGENT = "af9ed1c0092ea1579";

/**
 * Gives each test its own copy of the fixture, named by `CLAUDE_CONFIG_DIR` too (the official
 * helpers read the directory named there), restored and removed afterwards. `onCopy` gets the
 * copy's path before the test runs (to keep it, and to change the copy).
 */
export function useFixtureConfigDir(prefix: string, onCopy: (configDir: string) => void): void {
  let configDir = "";
  const saved = process.env.CLAUDE_CONFIG_DIR;
  beforeEach(() => {
    configDir = mkdtempSync(join(tmpdir(), prefix));
    cpSync(FIXTURE, configDir, { recursive: true });
    onCopy(configDir);
    process.env.CLAUDE_CONFIG_DIR = configDir;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR;
    else process.env.CLAUDE_CONFIG_DIR = saved;
    rmSync(configDir, { recursive: true, force: true });
  });
}
