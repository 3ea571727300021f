/**
 * Shared set-up for the Codex end-to-end tests: the real `codex` binary from the npm platform
 * package, driven offline against the shipped fake Responses API, in a scratch workspace.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CodexAgentOptions } from "../../src/index.js";
import { liveGroupCount } from "../../src/process/group-registry.js";
import {
  type CodexHome,
  type FakeOpenAICodexHomeOptions,
  type FakeOpenAIServer,
  type ResponsesTurn,
  startFakeOpenAI,
} from "../../src/testing/index.js";

export { collect, results } from "./support.js";

/** The Codex CLI version these tests were written and run against; `npm run test:versions`
 * runs them against other releases with `CODE_AGENT_TEST_CODEX_VERSION` set (and the CLI path variable naming the binary). */
export const CODEX_CLI_VERSION = process.env.CODE_AGENT_TEST_CODEX_VERSION ?? "0.169.0";

/** The stdio MCP server fixture (one `echo` tool). */
export const ECHO_MCP = join(import.meta.dirname, "..", "fixtures", "codex", "echo-mcp.mjs");

/** A scripted model, an isolated CODEX_HOME and a scratch workspace; dispose with `await using`. */
export interface CodexBed extends AsyncDisposable {
  api: FakeOpenAIServer;
  home: CodexHome;
  cwd: string;
  /** Options for the codex backend pointing at the fake model, in the workspace. */
  options(extra?: Partial<CodexAgentOptions>): CodexAgentOptions;
}

export async function codexBed(
  turns: ResponsesTurn[] = [],
  home: FakeOpenAICodexHomeOptions = {},
): Promise<CodexBed> {
  const api = await startFakeOpenAI({ turns });
  const codexHome = api.codexHome(home);
  const cwd = mkdtempSync(join(tmpdir(), "cas-codex-e2e-"));
  return {
    api,
    home: codexHome,
    cwd,
    options: (extra = {}) => ({
      backend: "codex",
      cwd,
      ...extra,
      env: { ...codexHome.env, ...extra.env },
    }),
    async [Symbol.asyncDispose]() {
      await api.close();
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

/** Number of CLI process groups this test process still has running. */
export function runningCliProcesses(): number {
  return liveGroupCount();
}
