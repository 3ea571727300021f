/**
 * Factory Droid 0.225.2 through the ACP backend, offline against the kit's fake model: what its own
 * approval policy decides before `canUseTool` is asked (pinned as the agent does it), a permission
 * mode given at start, and what is left of a running command when the client disconnects — through
 * the client terminal (nothing) and with `acp.terminal: false` (its own supervisor, in a process group
 * of its own, gone once its watcher sees the agent gone).
 */
import { readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type AcpAgentOptions, AgentSdkClient, type CanUseTool } from "../../src/index.js";
import {
  ACP_AGENTS,
  type AcpAgentEnv,
  type AgentModelServer,
  acpAgentUnavailableReason,
  createAcpAgentEnv,
  startFakeModelForAgent,
} from "../../src/testing/index.js";
import { collect, results, runningAgents } from "./acp-support.js";

afterEach(() => {
  expect(runningAgents()).toBe(0);
});

const reason = acpAgentUnavailableReason("droid");
const preset = ACP_AGENTS.droid;
const timeout = 120_000;

async function bed(): Promise<{ model: AgentModelServer; env: AcpAgentEnv } & AsyncDisposable> {
  const model = await startFakeModelForAgent("droid", { defaultTurn: { text: "OK" } });
  const env = createAcpAgentEnv("droid", { baseUrl: model.url });
  return {
    model,
    env,
    async [Symbol.asyncDispose]() {
      await model.close();
      await env.cleanup();
    },
  };
}

function options(env: AcpAgentEnv, extra: Omit<AcpAgentOptions, "backend"> = {}): AcpAgentOptions {
  return {
    backend: "acp",
    cwd: env.cwd,
    env: env.env,
    inheritEnv: false,
    ...extra,
    acp: { agent: "droid", ...extra.acp },
  };
}

/** Droid's shell tool with the risk level the model declares. */
const execute = (command: string, riskLevel: "low" | "medium" | "high") => ({
  tool: { name: "Execute", args: { command, riskLevelReason: "scripted", riskLevel } },
});

/** Pids of the processes whose command line contains `needle` (Linux /proc). */
function processesWith(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(needle)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

function describeProcess(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return `${stat.slice(0, 80)} | ${readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ")}`;
  } catch {
    return `${pid} (gone)`;
  }
}

/** Waits until `check` is true, polling every 50 ms, for at most `ms`; the last value. */
async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

describe.skipIf(reason !== undefined || process.platform !== "linux")(
  `ACP backend against ${preset.displayName} ${preset.testedVersion}: its own approvals, modes, leftovers${reason ? ` (skipped: ${reason})` : ""}`,
  () => {
    it("every command reaches canUseTool through the client terminal; without it, only what Droid's own policy asks", {
      timeout,
    }, async () => {
      const seen: Record<string, string[]> = {};
      for (const terminal of [true, false]) {
        await using b = await bed();
        const asked: string[] = [];
        const canUseTool: CanUseTool = async (name, input) => {
          asked.push(`${name}: ${String(input.command)}`);
          return { behavior: "allow" };
        };
        await using client = new AgentSdkClient(
          options(b.env, { canUseTool, acp: { agent: "droid", terminal } }),
        );
        await client.connect();
        const turn = async (prompt: string, command: string, risk: "low" | "medium" | "high") => {
          b.model.push(execute(command, risk), { text: "done" });
          await client.query(prompt);
          expect(results(await collect(client.receiveResponse()))[0]?.isError).toBe(false);
        };
        // Mode normal ("Auto (Off)"): Droid runs a command it deems read-only without asking.
        await turn("list", "ls", "low");
        await turn("echo", "echo normal-asks", "low");
        // acceptEdits is auto-low: Droid runs the model's own "low" unasked, asks for its "high".
        await client.setPermissionMode("acceptEdits");
        await turn("low", "echo low-unasked", "low");
        await turn("high", "echo high-asks", "high");
        seen[String(terminal)] = asked;
      }
      // Through the client terminal (the default) what Droid did not ask comes as terminal/create;
      // what it asked (Bash) is not put a second time.
      expect(seen.true).toEqual([
        "terminal/create: ls",
        "Bash: echo normal-asks",
        "terminal/create: echo low-unasked",
        "Bash: echo high-asks",
      ]);
      // acp.terminal: false — Droid runs commands itself, and its own policy decides what is asked.
      expect(seen.false).toEqual(["Bash: echo normal-asks", "Bash: echo high-asks"]);
    });

    it("acp.mode at start: plan is its spec mode", { timeout }, async () => {
      await using b = await bed();
      await using client = new AgentSdkClient(options(b.env, { acp: { agent: "droid", mode: "plan" } }));
      await client.connect();
      const info = (await client.getServerInfo()) as { session?: { configOptions?: unknown[] } };
      b.model.push({ text: "planned" });
      await client.query("plan something");
      const turn = await collect(client.receiveResponse());
      expect(results(turn)[0]?.result).toContain("planned");
      // Spec mode tells the model so in the request.
      expect(JSON.stringify(b.model.turnRequests.at(-1)?.body)).toMatch(/[Ss]pec mode is active/);
      expect(JSON.stringify(info)).toContain('"autonomy_level"');
    });

    // ~10 s here (two agent starts and Droid's 2 s watcher): only with CODE_AGENT_SDK_SLOW_TESTS=1. The
    // client-terminal half is covered without an agent by test/unit/acp/terminals-close-race.test.ts.
    it.skipIf(process.env.CODE_AGENT_SDK_SLOW_TESTS !== "1")(
      "a command running at disconnect: none left through the client terminal; its own supervisor ends on its own without one",
      {
        timeout,
      },
      async () => {
        for (const terminal of [true, false]) {
          await using b = await bed();
          const marker = `droid-leftover-${terminal ? "terminal" : "own"}-${process.pid}`;
          const command = `sleep 313 # ${marker}`;
          const client = new AgentSdkClient(
            options(b.env, {
              acp: { agent: "droid", terminal },
              canUseTool: async () => ({ behavior: "allow" }),
            }),
          );
          try {
            await client.connect();
            b.model.push(execute(command, "low"));
            await client.query("sleep");
            expect(await until(() => processesWith(marker).length > 0, 60_000)).toBe(true);
          } finally {
            await client.disconnect();
          }
          if (terminal) {
            // The client terminal's process group is ended with the session.
            expect(processesWith(marker).map(describeProcess)).toEqual([]);
          } else {
            // Droid runs it in a process group of its own (factory-execute-supervisor), which outlives
            // the agent's group until its watcher (a 2 s poll of its owner) kills it: pinned, bounded.
            expect(await until(() => processesWith(marker).length === 0, 10_000)).toBe(true);
          }
        }
      },
    );
  },
);
