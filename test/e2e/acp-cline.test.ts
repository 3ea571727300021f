/**
 * Cline over the ACP backend, beyond the matrix every agent runs (acp-backend-agents.test.ts):
 * environments of the testing kit run side by side (each Cline is pointed at its own fake server by
 * CLINE_API_BASE_URL: nothing shares the `local` environment's fixed localhost:7777), and the
 * preset keeps Cline's sessions in its own process, so no hub daemon outlives a session.
 */
import { readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type AcpAgentOptions, query } from "../../src/index.js";
import {
  ACP_AGENTS,
  type AcpAgentEnv,
  acpAgentUnavailableReason,
  createAcpAgentEnv,
  startFakeModelForAgent,
} from "../../src/testing/index.js";
import { collect, results, runningAgents } from "./acp-support.js";

afterEach(() => {
  expect(runningAgents()).toBe(0);
});

const agent = "cline";
const preset = ACP_AGENTS[agent];
const reason =
  acpAgentUnavailableReason(agent) ??
  (process.platform !== "linux" ? "reads /proc to find Cline's hub daemon" : undefined);

/** Processes running Cline's hub daemon for the workspace `cwd` (its argv names the workspace). */
function hubDaemons(cwd: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
    } catch {
      continue; // gone meanwhile
    }
    if (argv.includes("--cline-hub-daemon") && argv.includes(cwd)) pids.push(Number(entry));
  }
  return pids;
}

function options(env: AcpAgentEnv, childEnv: Record<string, string>): AcpAgentOptions {
  return {
    backend: "acp",
    acp: { agent, args: [...preset.acpArgs] },
    cwd: env.cwd,
    env: childEnv,
    inheritEnv: false,
  };
}

describe.skipIf(reason !== undefined)(
  `Cline ${preset.testedVersion} over ACP${reason ? ` (skipped: ${reason})` : ""}`,
  () => {
    it("two kit environments at once, each answered by its own fake; no hub daemon outlives a session", {
      timeout: 180_000,
    }, async () => {
      const beds = await Promise.all(
        [0, 1].map(async (i) => {
          const model = await startFakeModelForAgent(agent, { turns: [{ text: `answer ${i}` }] });
          return { model, env: createAcpAgentEnv(agent, { baseUrl: model.url }) };
        }),
      );
      const leftovers: number[] = [];
      try {
        // The second one without the kit's CLINE_SESSION_BACKEND_MODE: the preset's default applies.
        const { CLINE_SESSION_BACKEND_MODE: _, ...withoutMode } = beds[1]!.env.env;
        const runs = await Promise.all([
          collect(query({ prompt: "which one?", options: options(beds[0]!.env, beds[0]!.env.env) })),
          collect(query({ prompt: "which one?", options: options(beds[1]!.env, withoutMode) })),
        ]);
        for (const [i, messages] of runs.entries()) {
          expect(results(messages)[0]).toMatchObject({ isError: false, result: `answer ${i}` });
          // Each agent called its own server.
          expect(beds[i]!.model.turnRequests).toHaveLength(1);
          expect(beds[i]!.model.turnRequests[0]?.path).toBe("/api/v1/chat/completions");
          leftovers.push(...hubDaemons(beds[i]!.env.cwd));
        }
        expect(leftovers).toEqual([]);
      } finally {
        for (const pid of leftovers) process.kill(pid, "SIGKILL");
        for (const b of beds) {
          await b.model.close();
          await b.env.cleanup();
        }
      }
    });
  },
);
