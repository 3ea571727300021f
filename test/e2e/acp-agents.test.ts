/**
 * The real ACP agents (installed as devDependencies) against the testing kit's fake model servers,
 * offline: one ACP prompt with a permitted shell command and text, a cancel of a stalled turn, and a
 * headless run. Proves the kit's env helpers and fakes; the SDK's ACP backend has its own suite.
 */

import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ACP_AGENT_NAMES,
  ACP_AGENTS,
  type AcpAgentName,
  acpAgentUnavailableReason,
  createAcpAgentEnv,
  startFakeModelForAgent,
  toolResultTexts,
} from "../../src/testing/index.js";
import { agentText, killGroup, openSession, startAcpAgent } from "./acp-agents-support.js";

/** Qwen starts ACP sessions in mode `auto` (an LLM classifier instead of permission prompts). */
async function preparePermissionMode(
  agent: AcpAgentName,
  run: Awaited<ReturnType<typeof startAcpAgent>>,
  sessionId: string,
): Promise<void> {
  if (agent === "qwen") await run.ctx.request("session/set_mode", { sessionId, modeId: "default" });
}

/** The `content` and `text` strings of a JSON event stream, concatenated in order. */
function textFields(events: unknown[]): string {
  const out: string[] = [];
  const walk = (v: unknown, key: string): void => {
    if (typeof v === "string") {
      if (key === "content" || key === "text") out.push(v);
    } else if (Array.isArray(v)) {
      for (const x of v) walk(x, key);
    } else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) walk(x, k);
    }
  };
  walk(events, "");
  return out.join("");
}

for (const agent of ACP_AGENT_NAMES) {
  const reason = acpAgentUnavailableReason(agent);
  const preset = ACP_AGENTS[agent];
  describe.skipIf(reason !== undefined)(
    `${preset.displayName} ${preset.testedVersion} against the fake ${preset.api} server${reason ? ` (skipped: ${reason})` : ""}`,
    () => {
      it("ACP: initialize, session/new, a prompt whose shell command is permitted, then text", async () => {
        await using model = await startFakeModelForAgent(agent);
        await using env = createAcpAgentEnv(agent, { baseUrl: model.url });
        const target = join(env.cwd, "allowed.txt");
        model.push(
          { shell: `echo acp-ok > ${target} && echo ran-ok`, text: "Running it." },
          { text: "All done." },
        );
        await using run = await startAcpAgent(env);
        try {
          const sessionId = await openSession(run, env.cwd);
          await preparePermissionMode(agent, run, sessionId);
          const res = await run.ctx.request("session/prompt", {
            sessionId,
            prompt: [{ type: "text", text: "RUN: write allowed.txt" }],
          });
          expect(res.stopReason).toBe("end_turn");
          expect(agentText(run.updates)).toContain("All done.");
          expect(run.permissions).toHaveLength(1);
          expect(readFileSync(target, "utf8")).toBe("acp-ok\n");
          // Two scripted requests: the tool call, and the follow-up carrying the command's output.
          expect(model.turnRequests).toHaveLength(2);
          expect(model.turnRequests.map((r) => r.lastUserText)).toEqual([
            "RUN: write allowed.txt",
            "RUN: write allowed.txt",
          ]);
          expect(toolResultTexts(model.turnRequests[1]!).join("\n")).toContain("ran-ok");
        } catch (err) {
          throw new Error(`${String(err)}\n--- ${agent} stderr ---\n${run.stderr().slice(-4000)}`);
        }
      });

      it("ACP: session/cancel during a stalled model stream ends the turn as cancelled", async () => {
        await using model = await startFakeModelForAgent(agent, {
          turns: [{ stall: true, text: "thinking…" }],
        });
        await using env = createAcpAgentEnv(agent, { baseUrl: model.url });
        await using run = await startAcpAgent(env);
        const sessionId = await openSession(run, env.cwd);
        const prompt = run.ctx.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "SLOW" }],
        });
        await model.waitForRequest((r) => r.scripted, { timeoutMs: 60_000 });
        await run.ctx.notify("session/cancel", { sessionId });
        const res = await prompt;
        expect(res.stopReason).toBe("cancelled");
      });

      // `kilo run` takes ~40 s from a fresh home on two loaded cores: opt in with CODE_AGENT_SDK_SLOW_TESTS=1.
      const headlessSkip = agent === "kilo" && process.env.CODE_AGENT_SDK_SLOW_TESTS !== "1";
      it.skipIf(headlessSkip)(
        "headless: one prompt with a shell command prints a JSON event stream",
        async () => {
          await using model = await startFakeModelForAgent(agent);
          await using env = createAcpAgentEnv(agent, { baseUrl: model.url, askPermissions: false });
          const target = join(env.cwd, "headless.txt");
          model.push({ shell: `echo headless-ok > ${target}` }, { text: "Headless done." });
          const child = spawn(env.command, env.headlessArgs("RUN: write headless.txt"), {
            cwd: env.cwd,
            env: env.env,
            stdio: ["ignore", "pipe", "pipe"],
            detached: true,
          });
          let stdout = "";
          let stderr = "";
          child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
          child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-4000)));
          try {
            const code = await new Promise<number | null>((done) => child.once("exit", (c) => done(c)));
            expect(code, stderr).toBe(0);
          } finally {
            killGroup(child);
          }
          const events = stdout
            .split("\n")
            .filter((l) => l.trim().startsWith("{"))
            .map((l) => JSON.parse(l) as Record<string, unknown>);
          expect(events.length, stdout).toBeGreaterThan(0);
          // Gemini streams the answer as `message` deltas; the others print it whole.
          expect(
            stdout.includes("Headless done.") || textFields(events).includes("Headless done."),
            stdout,
          ).toBe(true);
          expect(existsSync(target) && readFileSync(target, "utf8")).toBe("headless-ok\n");
        },
      );
    },
  );
}
