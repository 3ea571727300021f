/**
 * The ACP backend (`backend: "acp"`, presets found by the backend's own discovery) against the real
 * agents installed as devDependencies (Gemini CLI, Qwen Code, OpenCode, Copilot CLI, Kilo Code),
 * offline, each pointed at the testing kit's fake model server by `createAcpAgentEnv`. Per agent:
 * one client session with a command allowed and one denied, a file write, and a cancel mid-turn;
 * a one-shot query() whose session a new process resumes through `session/load`. Known agent bugs
 * are pinned as limitations.
 */
import { existsSync, readdirSync, readFileSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type AcpAgentOptions,
  AgentSdkClient,
  type CanUseTool,
  ControlRequestError,
  type Message,
  query,
  type ResultMessage,
} from "../../src/index.js";
import {
  ACP_AGENT_NAMES,
  ACP_AGENTS,
  type AcpAgentEnv,
  type AcpAgentName,
  type AgentModelServer,
  acpAgentUnavailableReason,
  createAcpAgentEnv,
  startFakeModelForAgent,
} from "../../src/testing/index.js";
import { assistantText, blocks, collect, results, runningAgents } from "./acp-support.js";

afterEach(() => {
  expect(runningAgents()).toBe(0);
});

/** Backend options for `agent` in `env`: the preset (found by the backend), the kit's ACP flags. */
function options(
  agent: AcpAgentName,
  env: AcpAgentEnv,
  extra: Omit<AcpAgentOptions, "backend"> = {},
): AcpAgentOptions {
  return {
    backend: "acp",
    // Qwen starts sessions in mode `auto` (an LLM classifier instead of permission prompts).
    acp: { agent, args: [...ACP_AGENTS[agent].acpArgs], ...(agent === "qwen" ? { mode: "default" } : {}) },
    cwd: env.cwd,
    env: env.env,
    inheritEnv: false,
    ...extra,
  };
}

/**
 * Gemini CLI 0.61.0 names a session's file by the minute it started
 * (`session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl`), and its `session/load` first starts a recording of its
 * own under the loaded id: in the same minute that is the same file, and the fresh history it `$set`s
 * replaces the stored one — the load finds nothing resumable ("No previous sessions found") and the
 * session is gone. The tests date the stored file to choose the case instead of waiting on the clock.
 */
function geminiSessionFiles(home: string, sessionId: string): string[] {
  const root = join(home, ".gemini", "tmp");
  const suffix = `-${sessionId.slice(0, 8)}.jsonl`;
  const found: string[] = [];
  for (const project of readdirSync(root)) {
    const chats = join(root, project, "chats");
    if (!existsSync(chats)) continue;
    for (const name of readdirSync(chats)) {
      if (name.startsWith("session-") && name.endsWith(suffix)) found.push(join(chats, name));
    }
  }
  return found;
}

/** The minute a Gemini session file is named by: `YYYY-MM-DDTHH-MM` (UTC). */
const minuteStamp = (at: number) => new Date(at).toISOString().slice(0, 16).replace(/:/g, "-");

/** Renames the one stored file of `sessionId` to the minute of `at`; returns the new path. */
function redateGeminiSession(home: string, sessionId: string, at: number): string {
  const found = geminiSessionFiles(home, sessionId);
  expect(found).toHaveLength(1);
  const file = found[0] as string;
  const renamed = join(dirname(file), `session-${minuteStamp(at)}-${sessionId.slice(0, 8)}.jsonl`);
  renameSync(file, renamed);
  return renamed;
}

/**
 * OpenCode and Kilo take ~20 s per process start from a fresh home on two loaded cores (they build
 * their databases and plugins first); the others a few seconds.
 */
const timeout = 240_000;

/**
 * CodeBuddy Code loads a 16 MB bundle at each start (5–8 s on two loaded cores; Node 20 has no
 * compile cache for it): its resume case, two process starts (~19 s), runs only with
 * CODE_AGENT_SDK_SLOW_TESTS=1; its session case stays in `npm test`.
 */
const slowResume = (agent: AcpAgentName): boolean =>
  agent === "codebuddy" && process.env.CODE_AGENT_SDK_SLOW_TESTS !== "1";

/**
 * Kilo Code (an OpenCode fork, not among the agents the issue requires) needs ~20 s per process start
 * here; its three cases take ~2 minutes, so they run only with CODE_AGENT_SDK_SLOW_TESTS=1.
 */
function skipReason(agent: AcpAgentName): string | undefined {
  const missing = acpAgentUnavailableReason(agent);
  if (missing !== undefined) return missing;
  if (agent === "kilo" && process.env.CODE_AGENT_SDK_SLOW_TESTS !== "1") {
    return "Kilo Code takes ~2 minutes here: set CODE_AGENT_SDK_SLOW_TESTS=1 to run it";
  }
  return undefined;
}

for (const agent of ACP_AGENT_NAMES) {
  const reason = skipReason(agent);
  const preset = ACP_AGENTS[agent];
  describe.skipIf(reason !== undefined)(
    `ACP backend against ${preset.displayName} ${preset.testedVersion}${reason ? ` (skipped: ${reason})` : ""}`,
    () => {
      async function bed(): Promise<{ model: AgentModelServer; env: AcpAgentEnv } & AsyncDisposable> {
        const model = await startFakeModelForAgent(agent, { defaultTurn: { text: "OK" } });
        const env = createAcpAgentEnv(agent, { baseUrl: model.url });
        return {
          model,
          env,
          async [Symbol.asyncDispose]() {
            await model.close();
            await env.cleanup();
          },
        };
      }

      it("one session: a command allowed, one denied, a file write, then a cancel mid-turn", {
        timeout,
      }, async () => {
        await using b = await bed();
        const asked: string[] = [];
        const inputs: { name: string; input: Record<string, unknown> }[] = [];
        const canUseTool: CanUseTool = async (name, input) => {
          asked.push(name);
          inputs.push({ name, input });
          return JSON.stringify(input).includes("denied")
            ? { behavior: "deny", message: "no" }
            : { behavior: "allow" };
        };
        await using client = new AgentSdkClient(
          options(agent, b.env, { canUseTool, includePartialMessages: true }),
        );
        await client.connect();

        const allowed = join(b.env.cwd, "allowed.txt");
        b.model.push({ shell: `echo allow-ok > ${allowed}` }, { text: "Ran it." });
        await client.query("RUN: allowed");
        const first = await collect(client.receiveResponse());
        expect(readFileSync(allowed, "utf8")).toBe("allow-ok\n");
        expect(blocks(first).some((b) => b.type === "tool_use")).toBe(true);
        expect(results(first)[0]?.isError).toBe(false);

        const denied = join(b.env.cwd, "denied.txt");
        b.model.push({ shell: `echo denied > ${denied}` });
        await client.query("RUN: denied");
        const second = await collect(client.receiveResponse());
        expect(existsSync(denied)).toBe(false);
        expect(results(second)).toHaveLength(1);
        if (agent === "codebuddy") {
          // CodeBuddy Code 2.117.0 ends a turn whose tool was refused as cancelled (pinned).
          expect(results(second)[0]).toMatchObject({ stopReason: "cancelled", isError: true });
        }
        expect(asked.length).toBeGreaterThanOrEqual(2);

        const written = join(b.env.cwd, "written.txt");
        b.model.push({ writeFile: { path: written, content: "written-by-fake\n" } }, { text: "Wrote it." });
        await client.query("WRITE: written.txt");
        const third = await collect(client.receiveResponse());
        if (agent === "gemini") {
          // Known Gemini CLI 0.61.0 bug, pinned: through client fs it reads the new file first, takes
          // the client's "Resource not found" (-32002) as a failure, and gives up: no permission is
          // asked and no file is written. The turn itself ends normally.
          expect(existsSync(written)).toBe(false);
          expect(JSON.stringify(third)).toMatch(/Resource not found/);
        } else {
          expect(readFileSync(written, "utf8")).toBe("written-by-fake\n");
        }
        expect(results(third)).toHaveLength(1);
        if (agent === "cline") {
          // The unified vocabulary from Cline's own inputs (run_commands' list, editor's new_text).
          expect(inputs).toEqual([
            expect.objectContaining({
              name: "Bash",
              input: expect.objectContaining({ command: `echo allow-ok > ${allowed}` }),
            }),
            expect.objectContaining({
              name: "Bash",
              input: expect.objectContaining({ command: `echo denied > ${denied}` }),
            }),
            expect.objectContaining({
              name: "Edit",
              input: expect.objectContaining({ file_path: written, new_string: "written-by-fake\n" }),
            }),
          ]);
        }
        if (agent === "kimi") {
          // Kimi sends no rawInput with its permission requests: the command and path come back from
          // its approval text (the command, longer than its 50-character preview, from the arguments
          // it streamed). Its shell runs in the client's terminal, asked for too.
          expect(inputs).toEqual([
            { name: "Bash", input: expect.objectContaining({ command: `echo allow-ok > ${allowed}` }) },
            expect.objectContaining({ name: "terminal/create" }),
            { name: "Bash", input: expect.objectContaining({ command: `echo denied > ${denied}` }) },
            {
              name: "Edit",
              input: expect.objectContaining({ file_path: written, content: "written-by-fake\n" }),
            },
          ]);
          // The tool_use waited for the permission request, which named the command.
          expect(blocks(first).filter((b) => b.type === "tool_use")).toEqual([
            expect.objectContaining({
              name: "Bash",
              input: expect.objectContaining({ command: `echo allow-ok > ${allowed}` }),
            }),
          ]);
        }
        if (agent === "codebuddy") {
          // CodeBuddy's Bash and Write in the unified vocabulary; its write through the client's fs is
          // the one allowed (same path and content), not asked again. The tool_use waited for the input.
          expect(inputs).toEqual([
            { name: "Bash", input: expect.objectContaining({ command: `echo allow-ok > ${allowed}` }) },
            { name: "Bash", input: expect.objectContaining({ command: `echo denied > ${denied}` }) },
            {
              name: "Edit",
              input: expect.objectContaining({ file_path: written, content: "written-by-fake\n" }),
            },
          ]);
          expect(blocks(first).filter((b) => b.type === "tool_use")).toEqual([
            expect.objectContaining({
              name: "Bash",
              input: expect.objectContaining({ command: `echo allow-ok > ${allowed}` }),
            }),
          ]);
          // An Edit shows the whole new file as a diff: the client write it leads to is not asked again.
          b.model.push(
            {
              tool: {
                name: "Edit",
                args: { file_path: written, old_string: "written-by-fake", new_string: "edited-by-fake" },
              },
            },
            { text: "Edited it." },
          );
          await client.query("EDIT: written.txt");
          expect(results(await collect(client.receiveResponse()))[0]?.isError).toBe(false);
          expect(readFileSync(written, "utf8")).toBe("edited-by-fake\n");
          expect(inputs.slice(3)).toEqual([
            {
              name: "Edit",
              input: expect.objectContaining({ file_path: written, new_string: "edited-by-fake" }),
            },
          ]);
        }

        b.model.push({ stall: true, text: "thinking slowly" });
        await client.query("SLOW");
        const fourth: Message[] = [];
        // Factory Droid 0.225.2 holds back a model response's text until the response ends (its ACP
        // adapter buffers each attempt to retract a failed one): no delta arrives from a stalled
        // stream, so it is interrupted once the model has the request.
        const stalled =
          agent === "droid"
            ? b.model
                .waitForRequest((r) => r.scripted && r.lastUserText === "SLOW", {
                  includePast: true,
                  timeoutMs: 60_000,
                })
                .then(() => client.interrupt())
            : undefined;
        for await (const m of client.receiveResponse()) {
          fourth.push(m);
          if (m.type === "stream_event") await client.interrupt();
        }
        await stalled;
        expect(fourth.at(-1) as ResultMessage).toMatchObject({
          stopReason: "cancelled",
          terminalReason: "interrupted",
        });
      });

      it.skipIf(slowResume(agent))(
        "one-shot query(), then resume: session/load in a new process carries the history",
        {
          timeout,
        },
        async () => {
          await using b = await bed();
          b.model.push({ text: "remember 42" });
          const messages = await collect(
            query({ prompt: "remember a number", options: options(agent, b.env) }),
          );
          expect(messages[0]).toMatchObject({ type: "system", subtype: "init" });
          expect(assistantText(messages)).toContain("remember 42");
          const [result] = results(messages);
          expect(result).toMatchObject({ isError: false, stopReason: "end_turn" });
          const sessionId = result?.sessionId;
          expect(sessionId).toBeTruthy();
          // A session from an earlier minute (see redateGeminiSession; the same minute is pinned below).
          if (agent === "gemini") redateGeminiSession(b.env.home, sessionId as string, Date.now() - 60_000);
          await using client = new AgentSdkClient(options(agent, b.env, { resume: sessionId }));
          await client.connect();
          b.model.push({ text: "it was 42" });
          await client.query("which number?");
          const turn = await collect(client.receiveResponse());
          expect(results(turn)[0]?.result).toContain("it was 42");
          expect(JSON.stringify(b.model.turnRequests.at(-1)?.body)).toContain("remember 42");
        },
      );

      it.runIf(agent === "gemini")(
        "pinned Gemini CLI 0.61.0 bug: session/load in the minute the session's file is named by fails",
        { timeout },
        async () => {
          await using b = await bed();
          b.model.push({ text: "remember 42" });
          const [result] = results(
            await collect(query({ prompt: "remember a number", options: options(agent, b.env) })),
          );
          const sessionId = result?.sessionId as string;
          // Named by the current minute; whether the loader's own recording starts in that minute is
          // read back from the files afterwards (the clock may turn between), and decides the outcome.
          const stored = redateGeminiSession(b.env.home, sessionId, Date.now());
          await using client = new AgentSdkClient(options(agent, b.env, { resume: sessionId }));
          const connected = await client.connect().then(
            () => undefined,
            (error: unknown) => error,
          );
          const files = geminiSessionFiles(b.env.home, sessionId);
          const collided = files.length === 1;
          if (collided) {
            expect(connected).toBeInstanceOf(ControlRequestError);
            expect(String(connected)).toContain("No previous sessions found");
            // The loader's recording went into the stored file, after the history.
            const starts = readFileSync(stored, "utf8")
              .split("\n")
              .filter((line) => line.includes(`"sessionId":"${sessionId}"`));
            expect(starts.length).toBeGreaterThanOrEqual(2);
          } else {
            expect(files).toHaveLength(2);
            expect(connected).toBeUndefined();
          }
        },
      );
    },
  );
}
