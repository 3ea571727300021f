/**
 * Isolated environment for running the real `claude` CLI against a local fake API.
 *
 * @module
 */

import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeDirOnce } from "./shared/temp-dir.js";

/** Result of {@link createClaudeTestEnv}. */
export interface ClaudeTestEnv {
  /** Environment for the CLI process (pass as the whole `env`, not merged with `process.env`). */
  env: Record<string, string>;
  /** The isolated home directory (`HOME`); `.claude` and `tmp` live inside it. */
  home: string;
  /** Removes the home directory recursively. Safe to call more than once. */
  cleanup(): Promise<void>;
}

/** Fake API key put in `ANTHROPIC_API_KEY`. */
export const FAKE_ANTHROPIC_API_KEY = "sk-ant-fake-key";

/**
 * Creates an isolated home under `os.tmpdir()` and returns the environment that makes the `claude` CLI
 * talk only to `baseUrl` (verified: zero non-loopback traffic with a loopback `baseUrl`):
 * `HOME`, `CLAUDE_CONFIG_DIR=<home>/.claude`, `CLAUDE_CODE_TMPDIR` and `TMPDIR` = `<home>/tmp`,
 * `ANTHROPIC_BASE_URL`, a fake `ANTHROPIC_API_KEY`, `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`,
 * `DISABLE_TELEMETRY`, `DISABLE_AUTOUPDATER`, `DISABLE_ERROR_REPORTING`, `ENABLE_TOOL_SEARCH=false`
 * (MCP tools offered directly), `CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true`,
 * `CLAUDE_CODE_MAX_RETRIES=0`, and `PATH` from `process.env`.
 *
 * `CLAUDE_CODE_MAX_RETRIES=0` turns off the CLI's API retries (up to 10, with backoff): a scripted
 * server that is unreachable or answers 5xx/429/529 then fails the turn in about a second
 * (`result.isError`) instead of after ~170 s of `api_retry` messages. A test of retrying sets it
 * back, e.g. `model.env({ CLAUDE_CODE_MAX_RETRIES: "2" })`.
 *
 * @param baseUrl - The API base URL, e.g. a fake server's `url`.
 * @returns The env, the home directory and a cleanup function.
 */
export function createClaudeTestEnv(baseUrl: string): ClaudeTestEnv {
  const home = mkdtempSync(join(tmpdir(), "claude-test-home-"));
  const configDir = join(home, ".claude");
  const tmp = join(home, "tmp");
  mkdirSync(configDir, { recursive: true });
  mkdirSync(tmp, { recursive: true });
  const env: Record<string, string> = {
    HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    CLAUDE_CODE_TMPDIR: tmp,
    TMPDIR: tmp,
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: FAKE_ANTHROPIC_API_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    ENABLE_TOOL_SEARCH: "false",
    CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING: "true",
    CLAUDE_CODE_MAX_RETRIES: "0",
  };
  if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
  return { env, home, cleanup: removeDirOnce(home) };
}
