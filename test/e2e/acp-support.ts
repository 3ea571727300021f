/**
 * Shared set-up for the ACP end-to-end tests: real ACP agents from node_modules, offline, against
 * the shipped scripted model servers, in a scratch workspace.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AcpAgentOptions, Message } from "../../src/index.js";
import { liveGroupCount } from "../../src/process/group-registry.js";
import {
  type CodexHome,
  type FakeAnthropicServer,
  type FakeOpenAIServer,
  type ResponsesTurn,
  type ScriptedTurn,
  startFakeAnthropic,
  startFakeOpenAI,
} from "../../src/testing/index.js";

export { assistantText, collect, results } from "./support.js";

/** The adapter versions these tests were written and run against. */
export const CLAUDE_CODE_ACP_VERSION = "0.16.2";
export const CODEX_ACP_VERSION = "0.16.0";

/** A scratch workspace (links resolved, as the agents report paths). */
export function workspace(): { cwd: string; remove(): void } {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "cas-acp-e2e-")));
  return { cwd, remove: () => rmSync(cwd, { recursive: true, force: true }) };
}

/** claude-code-acp against the fake Anthropic API; dispose with `await using`. */
export interface ClaudeAcpBed extends AsyncDisposable {
  model: FakeAnthropicServer;
  cwd: string;
  options(extra?: Partial<AcpAgentOptions>): AcpAgentOptions;
}

export async function claudeAcpBed(
  turns: ScriptedTurn[] = [],
  defaultTurn?: ScriptedTurn,
): Promise<ClaudeAcpBed> {
  const model = await startFakeAnthropic({ turns, ...(defaultTurn ? { defaultTurn } : {}) });
  const ws = workspace();
  return {
    model,
    cwd: ws.cwd,
    // The whole environment is the test env: an inherited IS_SANDBOX (root in a container) would
    // make the adapter ask for a bypass mode the bundled Claude Code then refuses as root.
    options: (extra = {}) => ({
      backend: "acp",
      acp: { agent: "claude-code-acp", ...extra.acp },
      cwd: ws.cwd,
      inheritEnv: false,
      ...extra,
      env: { ...model.env(), ...extra.env },
    }),
    async [Symbol.asyncDispose]() {
      await model.close();
      ws.remove();
    },
  };
}

/** codex-acp against the fake Responses API, with a CODEX_HOME; dispose with `await using`. */
export interface CodexAcpBed extends AsyncDisposable {
  api: FakeOpenAIServer;
  home: CodexHome;
  cwd: string;
  options(extra?: Partial<AcpAgentOptions>): AcpAgentOptions;
}

export async function codexAcpBed(turns: ResponsesTurn[] = []): Promise<CodexAcpBed> {
  const api = await startFakeOpenAI({ turns });
  // No bubblewrap here: codex's own sandbox cannot run, so commands run unsandboxed, each asked for.
  const home = api.codexHome({ approvalPolicy: "untrusted", sandboxMode: "danger-full-access" });
  const ws = workspace();
  return {
    api,
    home,
    cwd: ws.cwd,
    options: (extra = {}) => ({
      backend: "acp",
      acp: { agent: "codex-acp", ...extra.acp },
      cwd: ws.cwd,
      inheritEnv: false,
      ...extra,
      env: { ...home.env, ...extra.env },
    }),
    async [Symbol.asyncDispose]() {
      await api.close();
      ws.remove();
    },
  };
}

/** Number of agent process groups this test process still has running. */
export function runningAgents(): number {
  return liveGroupCount();
}

/** Every content block of the assistant and user messages. */
export function blocks(messages: Message[]) {
  return messages.flatMap((m) =>
    (m.type === "assistant" || m.type === "user") && Array.isArray(m.content) ? m.content : [],
  );
}
