/**
 * ACP `session/list` (`listSessions` of `code-agent-sdk/acp`) and `session/fork` (`resume` with
 * `forkSession: true`) against real agents, offline: a session is made and ended, then listed from
 * a new process (in its directory, by the `dir` filter), then forked where the agent declares fork
 * (a new id; the fork's turn carries the earlier history to the model) and refused with the typed
 * error naming the agent where it does not. The wire details, pages and faults are checked against
 * the stand-in in test/unit/acp/session-list.test.ts.
 *
 * What the agents declare here (initialize's sessionCapabilities): list and fork — claude-code-acp,
 * OpenCode, Kilo, Kimi Code; list only — codex-acp, Copilot, Qwen Code, Droid; neither — Gemini
 * CLI, CodeBuddy, Cline.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listSessions } from "../../src/backends/acp/index.js";
import {
  type AcpAgentOptions,
  AgentSdkClient,
  type Message,
  query,
  UnsupportedFeatureError,
} from "../../src/index.js";
import {
  ACP_AGENTS,
  type AcpAgentName,
  acpAgentUnavailableReason,
  createAcpAgentEnv,
  startFakeModelForAgent,
} from "../../src/testing/index.js";
import { eventually } from "../lifecycle/support/processes.js";
import {
  CLAUDE_CODE_ACP_VERSION,
  CODEX_ACP_VERSION,
  claudeAcpBed,
  codexAcpBed,
  runningAgents,
} from "./acp-support.js";

afterEach(() => {
  expect(runningAgents()).toBe(0);
});

const timeout = 240_000;
const SLOW = process.env.CODE_AGENT_SDK_SLOW_TESTS === "1";

/** Every message of one `query()` turn. */
async function turn(prompt: string, options: AcpAgentOptions): Promise<Message[]> {
  const messages: Message[] = [];
  for await (const m of query({ prompt, options })) messages.push(m);
  return messages;
}

function resultOf(messages: Message[]) {
  const result = messages.find((m) => m.type === "result");
  if (result?.type !== "result") throw new Error("no result");
  return result;
}

/** The model answers "remember a number" with "remember 42", anything else with "OK". */
const ANSWER = (request: { lastUserText: string }) =>
  request.lastUserText.includes("remember a number") ? { text: "remember 42" } : { text: "OK" };

/** The listing options of the agent `options` runs (the same agent, environment and directory). */
function listOptions(options: AcpAgentOptions) {
  return {
    acp: options.acp,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.env !== undefined ? { env: options.env } : {}),
    inheritEnv: false,
  };
}

/**
 * One turn (`ready` waits, before the agent is stopped, until it has stored the session), then the
 * session listed in its directory;
 * then, where `fork`, a fork of it whose turn carries the first turn's answer to the model, else
 * the typed error. Returns the session id.
 */
async function listThenFork(
  options: AcpAgentOptions & { cwd: string },
  fork: boolean,
  requests: () => readonly { lastUserText: string; body?: unknown }[],
  ready: (sessionId: string) => Promise<void> = async () => undefined,
): Promise<void> {
  let sessionId: string | undefined;
  {
    await using client = new AgentSdkClient(options);
    await client.connect();
    await client.query("remember a number");
    const messages: Message[] = [];
    for await (const m of client.receiveResponse()) messages.push(m);
    const first = resultOf(messages);
    expect(first.isError).toBe(false);
    sessionId = first.sessionId;
    expect(sessionId).toBeTruthy();
    // Before the agent is stopped: one that stores the session behind the turn's end may lose it.
    await ready(sessionId ?? "");
  }

  const listed = await listSessions({ ...listOptions(options), dir: options.cwd });
  const entry = listed.find((s) => s.sessionId === sessionId);
  expect(entry, JSON.stringify(listed)).toBeDefined();
  expect(entry?.cwd).toBe(options.cwd);
  // Elsewhere: not listed under this directory.
  const elsewhere = await listSessions({ ...listOptions(options), dir: "/nonexistent-cas-dir", limit: 5 });
  expect(elsewhere.some((s) => s.sessionId === sessionId)).toBe(false);

  const forkOptions = { ...options, resume: sessionId ?? "", forkSession: true };
  if (!fork) {
    const error = await turn("which number?", forkOptions).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedFeatureError);
    expect((error as UnsupportedFeatureError).feature).toContain("sessionCapabilities.fork");
    return;
  }
  const forked = await turn("which number?", forkOptions);
  const init = forked.find((m) => m.type === "system" && m.subtype === "init");
  const result = resultOf(forked);
  expect(result.isError).toBe(false);
  expect(result.sessionId).not.toBe(sessionId);
  expect(init?.sessionId).toBe(result.sessionId);
  expect(init?.type === "system" && init.data.forkedFrom).toBe(sessionId);
  // The fork goes on from the session's history.
  const asked = requests().find((r) => r.lastUserText.includes("which number"));
  expect(JSON.stringify(asked?.body)).toContain("remember 42");
}

describe("ACP session/list and session/fork against real agents", () => {
  it(`codex-acp ${CODEX_ACP_VERSION}: lists the session (dir filter); fork refused (not declared)`, {
    timeout,
  }, async () => {
    await using bed = await codexAcpBed([]);
    await listThenFork({ ...bed.options(), cwd: bed.cwd }, false, () => []);
  });

  it(`claude-code-acp ${CLAUDE_CODE_ACP_VERSION}: lists the session, forks it with its history`, {
    timeout,
  }, async () => {
    await using bed = await claudeAcpBed([], ANSWER);
    const configDir = bed.model.env().CLAUDE_CONFIG_DIR ?? "";
    await listThenFork(
      { ...bed.options(), cwd: bed.cwd },
      true,
      () => bed.model.requests,
      // Claude Code writes its transcript behind the turn's end: listed (and forkable) once there.
      async (id) => {
        expect(await eventually(() => transcriptHas(configDir, id, "remember 42"), 30_000)).toBe(true);
      },
    );
  });

  const agents: { agent: AcpAgentName; fork: boolean; slow?: boolean }[] = [
    { agent: "droid", fork: false },
    { agent: "copilot", fork: false, slow: true },
    { agent: "qwen", fork: false, slow: true },
    { agent: "opencode", fork: true, slow: true },
    { agent: "kilo", fork: true, slow: true },
    // Needs Node >= 22.19 (skipped with the reason on older Node).
    { agent: "kimi", fork: true },
  ];
  for (const { agent, fork, slow } of agents) {
    const preset = ACP_AGENTS[agent];
    const reason =
      acpAgentUnavailableReason(agent) ?? (slow && !SLOW ? "slow: CODE_AGENT_SDK_SLOW_TESTS=1" : undefined);
    it.skipIf(reason !== undefined)(
      `${preset.displayName} ${preset.testedVersion}: lists the session${fork ? ", forks it with its history" : "; fork refused (not declared)"}`,
      { timeout },
      async () => {
        await using model = await startFakeModelForAgent(agent, { defaultTurn: ANSWER });
        const env = createAcpAgentEnv(agent, { baseUrl: model.url });
        try {
          await listThenFork(
            {
              backend: "acp",
              acp: { agent, args: [...preset.acpArgs] },
              cwd: env.cwd,
              env: env.env,
              inheritEnv: false,
            },
            fork,
            () => model.requests,
          );
        } finally {
          await env.cleanup();
        }
      },
    );
  }
});

describe("ACP listSessions where the agent does not declare session/list", () => {
  const reason = acpAgentUnavailableReason("gemini");
  it.skipIf(reason !== undefined)(
    `${ACP_AGENTS.gemini.displayName} ${ACP_AGENTS.gemini.testedVersion}: UnsupportedFeatureError naming the agent`,
    { timeout },
    async () => {
      await using model = await startFakeModelForAgent("gemini");
      const env = createAcpAgentEnv("gemini", { baseUrl: model.url });
      try {
        const error = await listSessions({
          acp: { agent: "gemini", args: [...ACP_AGENTS.gemini.acpArgs] },
          cwd: env.cwd,
          env: env.env,
          inheritEnv: false,
        }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(UnsupportedFeatureError);
        expect((error as UnsupportedFeatureError).feature).toContain("sessionCapabilities.list");
        expect((error as UnsupportedFeatureError).backend).toMatch(/^acp \(gemini/);
      } finally {
        await env.cleanup();
      }
    },
  );
});

/** Whether Claude Code's transcript of `sessionId` under `configDir` holds `text` yet. */
function transcriptHas(configDir: string, sessionId: string, text: string): boolean {
  const projects = join(configDir, "projects");
  if (!existsSync(projects)) return false;
  for (const project of readdirSync(projects)) {
    const file = join(projects, project, `${sessionId}.jsonl`);
    if (existsSync(file) && readFileSync(file, "utf8").includes(text)) return true;
  }
  return false;
}
