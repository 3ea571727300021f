/**
 * The ACP backend against the real claude-code-acp adapter (Zed's, 0.16.2, which runs the Claude
 * Code it bundles), offline, with the scripted Anthropic API. Its Bash tool runs through the
 * client's `terminal/*`, its Write tool through the client's `fs/write_text_file`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AgentSdkClient, type CanUseTool, type Message, query, type ResultMessage } from "../../src/index.js";
import { eventually } from "../lifecycle/support/processes.js";
import {
  assistantText,
  blocks,
  CLAUDE_CODE_ACP_VERSION,
  claudeAcpBed,
  collect,
  results,
  runningAgents,
} from "./acp-support.js";
import { expectRecoveryAfterCrash } from "./support.js";

/** The text of the Claude Code transcript of `sessionId` under `configDir`, or "" while there is none. */
function transcriptOf(configDir: string, sessionId: string): string {
  const projects = join(configDir, "projects");
  if (!existsSync(projects)) return "";
  for (const project of readdirSync(projects)) {
    const file = join(projects, project, `${sessionId}.jsonl`);
    if (existsSync(file)) return readFileSync(file, "utf8");
  }
  return "";
}

afterEach(() => {
  expect(runningAgents()).toBe(0);
});

/** A Bash call as claude-code-acp's `mcp__acp__Bash` takes it. */
function bash(command: string) {
  return { toolUse: { name: "mcp__acp__Bash", input: { command, timeout: 10_000, description: "run it" } } };
}

describe(`ACP backend against claude-code-acp ${CLAUDE_CODE_ACP_VERSION}`, () => {
  it("one-shot text: init from initialize and session/new, the reply, a success result", async () => {
    await using bed = await claudeAcpBed([{ text: "Hello from the fake model" }]);
    const messages = await collect(query({ prompt: "say hello", options: bed.options() }));
    const init = messages[0];
    expect(init?.type === "system" && init.subtype).toBe("init");
    if (init?.type !== "system") throw new Error("no init");
    expect(init.data.agentInfo).toMatchObject({
      name: "@zed-industries/claude-code-acp",
      version: CLAUDE_CODE_ACP_VERSION,
    });
    expect(typeof init.sessionId).toBe("string");
    expect(assistantText(messages)).toBe("Hello from the fake model");
    const [result] = results(messages);
    expect(result).toMatchObject({ subtype: "success", isError: false, stopReason: "end_turn" });
    expect(result?.result).toBe("Hello from the fake model");
    expect(result?.sessionId).toBe(init.sessionId);
    expect(bed.model.turnRequests[0]?.lastUserText).toBe("say hello");
  });

  it("a command allowed by canUseTool runs through the client's terminal, in the workspace", async () => {
    await using bed = await claudeAcpBed([
      bash("echo allow-ok > allow.txt && echo ran-allow"),
      { text: "done" },
    ]);
    const asked: { name: string; input: Record<string, unknown>; toolUseId: string | undefined }[] = [];
    const canUseTool: CanUseTool = async (name, input, ctx) => {
      asked.push({ name, input, toolUseId: ctx.toolUseId });
      return { behavior: "allow" };
    };
    const messages = await collect(query({ prompt: "run it", options: bed.options({ canUseTool }) }));
    expect(asked).toHaveLength(1);
    expect(asked[0]?.name).toBe("Bash");
    expect(asked[0]?.input.command).toBe("echo allow-ok > allow.txt && echo ran-allow");
    expect(readFileSync(join(bed.cwd, "allow.txt"), "utf8")).toBe("allow-ok\n");
    const all = blocks(messages);
    const use = all.find((b) => b.type === "tool_use");
    expect(use).toMatchObject({ name: "Bash", id: asked[0]?.toolUseId });
    const toolResult = all.find((b) => b.type === "tool_result");
    expect(toolResult).toMatchObject({ isError: false });
    expect(JSON.stringify(toolResult)).toContain("ran-allow");
    expect(results(messages)[0]).toMatchObject({ isError: false, result: "done" });
  });

  it("a denied command does not run; the tool result is an error and the turn ends", async () => {
    await using bed = await claudeAcpBed([bash("echo deny-ok > deny.txt")]);
    const canUseTool: CanUseTool = async () => ({ behavior: "deny", message: "not today" });
    const messages = await collect(query({ prompt: "run it", options: bed.options({ canUseTool }) }));
    expect(existsSync(join(bed.cwd, "deny.txt"))).toBe(false);
    expect(blocks(messages).find((b) => b.type === "tool_result")).toMatchObject({ isError: true });
    // claude-code-acp ends the turn at a refusal, without asking the model again.
    expect(results(messages)[0]).toMatchObject({ stopReason: "end_turn" });
  });

  it("without canUseTool every permission request is refused", async () => {
    await using bed = await claudeAcpBed([bash("echo nobody-asked > nobody.txt")]);
    await collect(query({ prompt: "run it", options: bed.options() }));
    expect(existsSync(join(bed.cwd, "nobody.txt"))).toBe(false);
  });

  it("a file write goes through the client's fs/write_text_file inside the workspace", async () => {
    await using bed = await claudeAcpBed([]);
    const target = join(bed.cwd, "sub", "written.txt");
    bed.model.push(
      { toolUse: { name: "mcp__acp__Write", input: { file_path: target, content: "written-by-fake\n" } } },
      { text: "wrote it" },
    );
    const messages = await collect(
      query({ prompt: "write it", options: bed.options({ canUseTool: () => ({ behavior: "allow" }) }) }),
    );
    expect(readFileSync(target, "utf8")).toBe("written-by-fake\n");
    expect(blocks(messages).find((b) => b.type === "tool_use")).toMatchObject({ name: "Edit" });
    expect(results(messages)[0]?.isError).toBe(false);
  });

  it("a write outside the workspace is refused by the client, and the agent is told", async () => {
    await using bed = await claudeAcpBed([]);
    const outside = join(bed.cwd, "..", `cas-acp-outside-${process.pid}.txt`);
    bed.model.push(
      { toolUse: { name: "mcp__acp__Write", input: { file_path: outside, content: "escaped\n" } } },
      { text: "tried" },
    );
    const messages = await collect(
      query({ prompt: "write outside", options: bed.options({ canUseTool: () => ({ behavior: "allow" }) }) }),
    );
    expect(existsSync(outside)).toBe(false);
    const toolResult = blocks(messages).find((b) => b.type === "tool_result");
    expect(toolResult).toMatchObject({ isError: true });
    expect(JSON.stringify(toolResult)).toContain("outside the session's working directory");
  });

  it("interrupt() sends session/cancel mid-turn: the result is cancelled, and the session goes on", async () => {
    await using bed = await claudeAcpBed([
      { stall: true, text: "thinking slowly..." },
      { text: "after the cancel" },
    ]);
    await using client = new AgentSdkClient(bed.options({ includePartialMessages: true }));
    await client.connect();
    await client.query("SLOW");
    const turn: Message[] = [];
    for await (const m of client.receiveResponse()) {
      turn.push(m);
      if (m.type === "stream_event") await client.interrupt();
    }
    const result = turn.at(-1) as ResultMessage;
    expect(result).toMatchObject({
      type: "result",
      isError: true,
      stopReason: "cancelled",
      terminalReason: "interrupted",
    });
    expect(assistantText(turn)).toBe("thinking slowly...");
    await client.query("next");
    const next = await collect(client.receiveResponse());
    expect(assistantText(next)).toBe("after the cancel");
  });

  it("the agent killed mid-run(): isConnected false, run()/query() reject NotConnectedError (cause: the exit), connect() starts anew", async () => {
    await using bed = await claudeAcpBed([], (request) => {
      if (request.lastUserText.includes("hang here")) return { stall: true, text: "partial" };
      if (request.lastUserText.includes("after reconnect")) return { text: "back" };
      return { text: "OK" };
    });
    await using client = new AgentSdkClient(bed.options());
    await expectRecoveryAfterCrash(client, { waitForRequest: (p) => bed.model.waitForRequest(p) });
  });

  it("multi-turn is one ACP session: the second prompt's model request carries the first turn", async () => {
    // Answered by what is asked, so a request Claude Code makes of its own cannot take an answer.
    await using bed = await claudeAcpBed([], (request) => {
      if (request.lastUserText === "one") return { text: "first answer" };
      if (request.lastUserText === "two") return { text: "second answer" };
      return { text: "OK" };
    });
    await using client = new AgentSdkClient(bed.options());
    expect(client.capabilities).toMatchObject({
      toolApproval: true,
      interrupt: true,
      persistentSession: true,
      warmStart: true,
      hooks: false,
    });
    await client.connect();
    const pid = client.pid;
    await client.query("one");
    expect(assistantText(await collect(client.receiveResponse()))).toBe("first answer");
    await client.query("two");
    expect(assistantText(await collect(client.receiveResponse()))).toBe("second answer");
    expect(client.pid).toBe(pid);
    const second = bed.model.requests.find((r) => r.lastUserText === "two");
    expect(JSON.stringify(second?.body?.messages)).toContain("first answer");
    // setModel takes one of the models the adapter offers (session/set_model); another is refused
    // with the choices (test/e2e/acp-config-claude-code.test.ts switches for real).
    await expect(client.setModel("x")).rejects.toThrow(/offers no "x"; its choices: default/);
  });

  it("resume is session/load: a new process continues the session with its history", async () => {
    // Answered by what is asked: Claude Code makes requests of its own now and then (titles), which
    // must not take the scripted answers.
    await using bed = await claudeAcpBed([], (request) => {
      if (request.lastUserText.includes("which number")) return { text: "it was 42" };
      if (request.lastUserText.includes("remember a number")) return { text: "remember 42" };
      return { text: "OK" };
    });
    let sessionId: string | undefined;
    {
      await using client = new AgentSdkClient(bed.options());
      await client.connect();
      await client.query("remember a number");
      const turn = await collect(client.receiveResponse());
      expect(results(turn)[0]?.result).toBe("remember 42");
      sessionId = results(turn)[0]?.sessionId;
      // Claude Code writes its transcript behind the turn's end: a load finds the session only once
      // the transcript holds the answer (closing earlier can lose it: "Session not found").
      const transcript = () => transcriptOf(bed.model.env().CLAUDE_CONFIG_DIR ?? "", sessionId ?? "");
      expect(await eventually(() => transcript().includes("remember 42"), 30_000)).toBe(true);
    }
    expect(sessionId).toBeTruthy();
    await using client = new AgentSdkClient(bed.options({ resume: sessionId }));
    await client.connect();
    const info = await client.getServerInfo();
    expect(info?.sessionId).toBe(sessionId);
    await client.query("which number?");
    const turn = await collect(client.receiveResponse());
    // The load replayed the history first: the user's turn as a replay, then the answer.
    const replayed = turn.find((m) => m.type === "user" && m.isReplay);
    expect(replayed?.type === "user" && replayed.content).toBe("remember a number");
    expect(assistantText(turn)).toContain("remember 42");
    expect(results(turn)[0]?.result).toBe("it was 42");
    const request = bed.model.requests.find((r) => r.lastUserText.includes("which number"));
    expect(JSON.stringify(request?.body?.messages)).toContain("remember 42");
  });
});
