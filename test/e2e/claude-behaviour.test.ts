/**
 * Behaviour the issue found by running the real CLI, and the official SDK's newer options that
 * cross the wire, against claude 2.1.330 offline.
 */

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildClaudeArgs } from "../../src/backends/claude/command.js";
import { findClaudeCli } from "../../src/backends/claude/discovery.js";
import { buildClaudeEnv } from "../../src/backends/claude/env.js";
import {
  type AgentOptions,
  AgentSdkClient,
  type ClaudeAgentOptions,
  type Message,
  query,
} from "../../src/index.js";
import { createClaudeTestEnv, type ScriptedTurn, structuredOutputTurns } from "../../src/testing/index.js";
import { SubprocessTransport, type Transport, type TransportItem } from "../../src/transport/index.js";
import type { SpawnOptions } from "../../src/transport/spawned-process.js";
import { SDK_VERSION } from "../../src/version.js";
import { type Bed, collect, results, testBed } from "./support.js";

/**
 * The real CLI behind a transport that notes, for every line it delivers, whether input had
 * already been closed: so a test can tell what the CLI said before and after its stdin closed.
 */
function watchedClaude(
  bed: Bed,
  options: AgentOptions,
): { transport: Transport; inputClosedAfter: () => number } {
  const env = buildClaudeEnv(options, SDK_VERSION);
  const inner = new SubprocessTransport({
    command: findClaudeCli({ env }),
    args: buildClaudeArgs(options, { sdkMcpServerNames: [], files: null }),
    env,
    cwd: bed.cwd,
    cliName: "claude",
  });
  let delivered = 0;
  let closedAt = -1;
  const transport: Transport = {
    connect: () => inner.connect(),
    write: (data) => inner.write(data),
    async *readMessages(): AsyncIterable<TransportItem> {
      for await (const item of inner.readMessages()) {
        delivered += 1;
        yield item;
      }
    },
    endInput: () => {
      closedAt = delivered;
      return inner.endInput();
    },
    close: () => inner.close(),
    isReady: () => inner.isReady(),
  };
  return { transport, inputClosedAfter: () => closedAt };
}

const backgroundScript = [
  {
    toolUse: {
      name: "Bash",
      input: { command: "sleep 2; echo background-done", description: "wait", run_in_background: true },
    },
  },
  { text: "Started it." },
  { text: "The background task finished." },
];

function raw(messages: Message[]): Record<string, unknown>[] {
  return messages.map((m) => m.raw);
}

describe("behaviour against claude 2.1.330", () => {
  it.each([
    ["a string prompt", false],
    ["a streamed prompt", true],
  ])(
    "keeps input open while a background task runs, for %s, and delivers its follow-up result",
    async (_, streamed) => {
      await using bed = await testBed(backgroundScript);
      const options = bed.options({ allowedTools: ["Bash"] });
      const watched = watchedClaude(bed, options);
      const prompt = streamed
        ? (async function* () {
            yield "start it";
          })()
        : "start it";
      const messages = await collect(
        query({ prompt, options: { ...options, transport: watched.transport } }),
      );

      expect(results(messages).map((r) => r.result)).toEqual([
        "Started it.",
        "The background task finished.",
      ]);
      const lines = raw(messages);
      const done = lines.findIndex((m) => m.subtype === "task_notification" && m.status === "completed");
      expect(done).toBeGreaterThan(lines.findIndex((m) => m.type === "result"));
      // Input closed only once the CLI said the task had finished (the delivered-line count at the
      // time is past the notification; a few lines the SDK does not yield, like keep-alives, may add).
      expect(watched.inputClosedAfter()).toBeGreaterThan(done);
      expect(bed.model.turnRequests).toHaveLength(3);
    },
  );

  it("keeps input open for a background subagent too, and delivers the main agent's follow-up", async () => {
    let mainTurns = 0;
    await using bed = await testBed();
    bed.model.push(
      ...Array.from({ length: 4 }, () => async (request: { lastUserText: string }): Promise<ScriptedTurn> => {
        // The subagent's model call: it takes a while, so the main turn ends first.
        if (request.lastUserText.includes("SUBTASK")) {
          await new Promise((done) => setTimeout(done, 1000));
          return { text: "subagent result" };
        }
        mainTurns += 1;
        if (mainTurns === 1) {
          return {
            toolUse: {
              name: "Task",
              input: {
                description: "background agent",
                prompt: "SUBTASK look around",
                subagent_type: "general-purpose",
                run_in_background: true,
              },
            },
          };
        }
        return { text: mainTurns === 2 ? "Launched." : "The agent reported back." };
      }),
    );
    const options = bed.options({ allowedTools: ["Task", "Agent"] });
    const watched = watchedClaude(bed, options);
    const messages = await collect(
      query({ prompt: "go", options: { ...options, transport: watched.transport } }),
    );
    expect(results(messages).map((r) => r.result)).toEqual(["Launched.", "The agent reported back."]);
    const lines = raw(messages);
    expect(lines.find((m) => m.subtype === "task_started")).toMatchObject({ task_type: "local_agent" });
    const done = lines.findIndex((m) => m.subtype === "task_notification" && m.status === "completed");
    expect(watched.inputClosedAfter()).toBeGreaterThan(done);
  });

  it("stopTask() stops a running background task", async () => {
    await using bed = await testBed([
      {
        toolUse: {
          name: "Bash",
          input: { command: "sleep 60", description: "long", run_in_background: true },
        },
      },
      { text: "Started." },
      { text: "Stopped." },
    ]);
    await using client = new AgentSdkClient(bed.options({ allowedTools: ["Bash"] }));
    await client.connect("start");
    let taskId: string | undefined;
    for await (const message of client.receiveResponse()) {
      if (message.raw.subtype === "task_started") taskId = String(message.raw.task_id);
    }
    expect(taskId).toBeDefined();
    await client.stopTask(taskId!);
    for await (const message of client.receiveMessages()) {
      if (message.raw.subtype === "task_notification") {
        expect(message.raw).toMatchObject({
          task_id: taskId,
          status: expect.stringMatching(/stopped|killed/),
        });
        break;
      }
    }
  });

  it("takes a z.toJSONSchema() schema (2020-12, with a tuple) as structured output", async () => {
    await using bed = await testBed(structuredOutputTurns({ answer: 4, pair: ["x", 1] }));
    const schema = z.toJSONSchema(z.object({ answer: z.number(), pair: z.tuple([z.string(), z.number()]) }));
    expect(schema.$schema).toContain("2020-12");
    const messages = await collect(
      query({ prompt: "2+2", options: bed.options({ outputFormat: { type: "json_schema", schema } }) }),
    );
    expect(results(messages)[0]).toMatchObject({
      isError: false,
      structuredOutput: { answer: 4, pair: ["x", 1] },
    });
  });

  it("loads project settings and CLAUDE.md by default, like the bare CLI; settingSources: [] loads none", async () => {
    const marker = "MARKER-FROM-CLAUDE-MD-4711";
    const requestOf = async (bed: Bed, extra: ClaudeAgentOptions) => {
      writeFileSync(join(bed.cwd, "CLAUDE.md"), `Always mention ${marker}.\n`);
      await collect(query({ prompt: "hi", options: bed.options(extra) }));
      return JSON.stringify(bed.model.turnRequests[0]?.body);
    };
    await using loaded = await testBed([{ text: "ok" }]);
    expect(await requestOf(loaded, {})).toContain(marker);
    await using isolated = await testBed([{ text: "ok" }]);
    expect(await requestOf(isolated, { settingSources: [] })).not.toContain(marker);
  });

  it("the kit's env makes an unreachable model fail at once, without API retries", async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, "127.0.0.1", done));
    const { port } = closed.address() as { port: number };
    await new Promise((done) => closed.close(done));
    const kit = createClaudeTestEnv(`http://127.0.0.1:${port}`);
    try {
      const messages = await collect(query({ prompt: "hi", options: { env: kit.env, inheritEnv: false } }));
      expect(messages.filter((m) => m.raw.subtype === "api_retry")).toEqual([]);
      expect(results(messages)[0]).toMatchObject({
        isError: true,
        result: expect.stringContaining("ECONNREFUSED"),
      });
    } finally {
      await kit.cleanup();
    }
  });
});

describe("the official SDK's newer options, over the wire", () => {
  it("systemPrompt and agents travel in initialize; --agent runs the main thread as one", async () => {
    await using bed = await testBed([{ text: "ok" }]);
    await using client = new AgentSdkClient(
      bed.options({
        systemPrompt: "You are SYSTEM-PROMPT-MARKER.",
        agents: {
          reviewer: { description: "Reviews code", prompt: "You are REVIEWER-MARKER.", background: false },
        },
      }),
    );
    await client.connect("hi");
    await collect(client.receiveResponse());
    expect((await client.supportedAgents()).map((a) => a.name)).toContain("reviewer");
    expect(JSON.stringify(bed.model.turnRequests[0]?.body.system)).toContain("SYSTEM-PROMPT-MARKER");

    await using asAgent = await testBed([{ text: "ok" }]);
    await collect(
      query({
        prompt: "hi",
        options: asAgent.options({
          agent: "reviewer",
          agents: { reviewer: { description: "Reviews code", prompt: "You are REVIEWER-MARKER." } },
        }),
      }),
    );
    expect(JSON.stringify(asAgent.model.turnRequests[0]?.body.system)).toContain("REVIEWER-MARKER");
  });

  it("sessionId names the session; persistSession: false writes no transcript", async () => {
    const sessionId = "5f0c2a1e-3b4d-4c5e-8f60-718293a4b5c6";
    await using bed = await testBed([{ text: "ok" }]);
    const messages = await collect(
      query({ prompt: "hi", options: bed.options({ sessionId, persistSession: false }) }),
    );
    expect(messages.find((m) => m.raw.subtype === "init")?.raw.session_id).toBe(sessionId);
    const projects = join(bed.model.env().CLAUDE_CONFIG_DIR!, "projects");
    const transcripts = existsSync(projects)
      ? readdirSync(projects, { recursive: true }).filter((f) => String(f).endsWith(".jsonl"))
      : [];
    expect(transcripts).toEqual([]);
  });

  it.each(["argv", "initialize"] as const)(
    "a local plugin and a stdio MCP server load with %s delivery",
    async (delivery) => {
      await using bed = await testBed([{ text: "ok" }]);
      const plugin = join(bed.cwd, "demo-plugin");
      mkdirSync(join(plugin, ".claude-plugin"), { recursive: true });
      mkdirSync(join(plugin, "commands"));
      writeFileSync(
        join(plugin, ".claude-plugin", "plugin.json"),
        JSON.stringify({ name: "demo-plugin", version: "1.0.0" }),
      );
      writeFileSync(join(plugin, "commands", "hello.md"), "---\ndescription: Say hello\n---\nSay hello.\n");
      await using client = new AgentSdkClient(
        bed.options({
          plugins: [{ type: "local", path: plugin }],
          pluginDelivery: delivery,
          mcpServers: {
            asker: { command: process.execPath, args: [resolve("test/fixtures/mcp/eliciting-server.mjs")] },
          },
          mcpServersDelivery: delivery,
        }),
      );
      await client.connect("hi");
      await collect(client.receiveResponse());
      expect((await client.supportedCommands()).map((c) => c.name)).toContain("demo-plugin:hello");
      expect(await client.getMcpStatus()).toEqual([
        expect.objectContaining({ name: "asker", status: "connected" }),
      ]);
      if (delivery === "initialize") expect((await client.initializationResult()).plugins_applied).toBe(true);
    },
  );

  it("claude 2.1.330 accepts every flag and initialize field the official SDK sends", async () => {
    await using bed = await testBed([{ text: "ok" }]);
    const debugFile = join(bed.cwd, "debug.log");
    const messages = await collect(
      query({
        prompt: "hi",
        options: bed.options({
          thinking: { type: "adaptive", display: "omitted" },
          effort: "high",
          taskBudget: { total: 50_000 },
          debugFile,
          permissionPrompts: "none",
          strictMcpConfig: true,
          includeHookEvents: true,
          managedSettings: { permissions: { deny: ["WebFetch"] } },
          projectConfigRoot: bed.cwd,
          skills: "all",
          persistSession: false,
          title: "T",
          promptSuggestions: true,
          agentProgressSummaries: true,
          forwardSubagentText: true,
          perTaskStopAffordance: true,
          planModeInstructions: "Plan briefly.",
          toolConfig: { askUserQuestion: { previewFormat: "html" } },
          verbatimPrompts: true,
          sandbox: {
            enabled: false,
            filesystem: { denyRead: ["/secret"] },
            network: { allowedDomains: ["example.com"] },
          },
        }),
      }),
    );
    expect(results(messages)[0]).toMatchObject({ isError: false, result: "ok" });
    expect(bed.model.turnRequests[0]?.body.output_config).toMatchObject({
      effort: "high",
      task_budget: { total: 50_000 },
    });
    expect(existsSync(debugFile)).toBe(true);
  });

  it("spawnClaudeCodeProcess starts the CLI the SDK describes, and the session runs over it", async () => {
    await using bed = await testBed([{ text: "spawned by you" }]);
    const calls: SpawnOptions[] = [];
    let child: ChildProcessWithoutNullStreams | undefined;
    const messages = await collect(
      query({
        prompt: "hi",
        options: bed.options({
          spawnClaudeCodeProcess: (options) => {
            calls.push(options);
            child = spawn(options.command, options.args, {
              cwd: options.cwd,
              env: options.env,
              stdio: "pipe",
            });
            return child;
          },
        }),
      }),
    );
    expect(results(messages)[0]?.result).toBe("spawned by you");
    expect(calls).toHaveLength(1);
    expect(calls[0]?.command).toMatch(/claude/);
    expect(calls[0]?.args.slice(0, 2)).toEqual(["--output-format", "stream-json"]);
    expect(calls[0]?.cwd).toBe(bed.cwd);
    expect(calls[0]?.env.CLAUDE_CODE_ENTRYPOINT).toBe("sdk-ts");
    expect(calls[0]?.signal.aborted).toBe(true);
    expect(child?.exitCode !== null || child?.signalCode !== null).toBe(true);
  });

  it("toolAliases route a model's tool name to another tool", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Shell", input: { command: "echo aliased-ok", description: "echo" } } },
      { text: "done" },
    ]);
    const messages = await collect(
      query({
        prompt: "run",
        options: bed.options({ toolAliases: { Shell: "Bash" }, allowedTools: ["Bash"] }),
      }),
    );
    expect(results(messages)[0]?.isError).toBe(false);
    expect(JSON.stringify(bed.model.turnRequests[1]?.body.messages)).toContain("aliased-ok");
  });

  it("unknown fields of CLI-owned nested objects reach the CLI, with a one-time warning", async () => {
    await using bed = await testBed([{ text: "ok" }, { text: "ok" }]);
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on("warning", onWarning);
    try {
      const options = bed.options({
        sandbox: { enabled: false, futureSandboxField: true },
        agents: { helper: { description: "d", prompt: "p", futureAgentField: 1 } },
      });
      const messages = await collect(query({ prompt: "hi", options }));
      expect(results(messages)[0]?.isError).toBe(false);
      await new Promise((done) => setImmediate(done));
      const warned = warnings.filter((w) => w.includes("does not know"));
      expect(warned).toHaveLength(1);
      expect(warned[0]).toContain("sandbox.futureSandboxField");
      expect(warned[0]).toContain("agents.helper.futureAgentField");
      // Once per process: the same fields again are not reported again.
      await collect(query({ prompt: "hi", options }));
      await new Promise((done) => setImmediate(done));
      expect(warnings.filter((w) => w.includes("does not know"))).toHaveLength(1);
    } finally {
      process.off("warning", onWarning);
    }
  });
});
