/**
 * The app-server session against an in-memory stand-in for `codex app-server` that answers like
 * codex 0.169.0 does (shapes from the capture).
 */
import { describe, expect, it } from "vitest";
import type { Session } from "../../../src/backends/backend.js";
import { CodexAppServerSession } from "../../../src/backends/codex/app-server-session.js";
import {
  AbortError,
  type CanUseTool,
  type CodexAgentOptions,
  type Message,
  ProcessError,
  type ResultMessage,
} from "../../../src/index.js";
import { FakeTransport } from "./fake-transport.js";

const THREAD = "thread-1";

/** A stand-in server: answers the handshake and each turn/start; `turn` scripts what a turn emits. */
function fakeServer(turn: (t: FakeTransport, turnId: string, index: number) => void = finishTurn) {
  let turns = 0;
  return new FakeTransport((message, t) => {
    if (typeof message !== "object" || typeof message.method !== "string" || message.id === undefined) return;
    const reply = (result: unknown) => t.emit({ id: message.id, result });
    switch (message.method) {
      case "initialize":
        t.emit({ method: "configWarning", params: { summary: "bubblewrap missing", details: null } });
        reply({
          userAgent: "code-agent-sdk/0.169.0",
          codexHome: "/h",
          platformFamily: "unix",
          platformOs: "linux",
        });
        return;
      case "thread/start":
      case "thread/resume": {
        const params = message.params as { threadId?: string };
        reply({ thread: { id: params.threadId ?? THREAD }, model: "gpt-5.5", cwd: "/w" });
        return;
      }
      case "turn/start": {
        const turnId = `turn-${++turns}`;
        reply({ turn: { id: turnId, status: "inProgress", error: null } });
        t.emit({
          method: "turn/started",
          params: { threadId: THREAD, turn: { id: turnId, status: "inProgress" } },
        });
        turn(t, turnId, turns);
        return;
      }
      case "turn/interrupt":
        reply({});
        t.emit({
          method: "turn/completed",
          params: {
            threadId: THREAD,
            turn: { id: (message.params as { turnId: string }).turnId, status: "interrupted", error: null },
          },
        });
        return;
      case "mcpServerStatus/list":
        reply({ data: [{ name: "echo", tools: {} }], nextCursor: null });
        return;
    }
  });
}

function finishTurn(t: FakeTransport, turnId: string, index: number): void {
  t.emit({
    method: "item/completed",
    params: {
      threadId: THREAD,
      turnId,
      item: { type: "agentMessage", id: `msg_${index}`, text: `answer ${index}` },
    },
  });
  t.emit({
    method: "turn/completed",
    params: { threadId: THREAD, turn: { id: turnId, status: "completed", error: null } },
  });
}

async function open(options: Partial<CodexAgentOptions> = {}, transport = fakeServer()) {
  const session = new CodexAppServerSession({ options, transport });
  await session.start();
  return { session, t: transport };
}

async function untilResult(session: CodexAppServerSession): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of session.subscribe({ untilResult: true })) out.push(m);
  return out;
}

/** A turn that asks for approval of `touch x` and completes once answered. */
function approvalTurn(t: FakeTransport, turnId: string): void {
  t.emit({
    method: "item/started",
    params: {
      threadId: THREAD,
      turnId,
      item: { type: "commandExecution", id: "call_1", command: "touch x", cwd: "/w", status: "inProgress" },
    },
  });
  t.emit({
    id: 0,
    method: "item/commandExecution/requestApproval",
    params: {
      threadId: THREAD,
      turnId,
      itemId: "call_1",
      command: "touch x",
      cwd: "/w",
      availableDecisions: ["accept", "cancel"],
    },
  });
  void t.waitForSent((m) => m.id === 0 && "result" in m).then(() => finishTurn(t, turnId, 1));
}

async function decisionFor(canUseTool: CanUseTool | undefined, options: Partial<CodexAgentOptions> = {}) {
  const { session, t } = await open(
    { ...options, ...(canUseTool ? { canUseTool } : {}) },
    fakeServer(approvalTurn),
  );
  await session.send("touch it");
  const messages = await untilResult(session);
  const answer = (await t.waitForSent((m) => m.id === 0 && "result" in m)).result as { decision: unknown };
  await session.close();
  return { decision: answer.decision, messages };
}

describe("CodexAppServerSession", () => {
  it("initializes as code-agent-sdk, starts a thread, and makes init the first message", async () => {
    const { session, t } = await open({
      cwd: "/w",
      model: "gpt-5.5",
      codex: { approvalPolicy: "untrusted", sandboxMode: "read-only" },
    });
    expect(t.sent.slice(0, 3)).toMatchObject([
      { jsonrpc: "2.0", id: 0, method: "initialize", params: { clientInfo: { name: "code-agent-sdk" } } },
      { jsonrpc: "2.0", method: "initialized" },
      {
        id: 1,
        method: "thread/start",
        params: { cwd: "/w", model: "gpt-5.5", approvalPolicy: "untrusted", sandbox: "read-only" },
      },
    ]);
    await session.send("hi");
    const messages = await untilResult(session);
    expect(messages.map((m) => (m.type === "system" ? `system:${m.subtype}` : m.type))).toEqual([
      "system:init",
      "system:codex_warning",
      "assistant",
      "result",
    ]);
    expect(messages[0]).toMatchObject({ sessionId: THREAD, data: { session_id: THREAD, model: "gpt-5.5" } });
    expect(session.serverInfo()).toMatchObject({
      userAgent: "code-agent-sdk/0.169.0",
      threadId: THREAD,
      model: "gpt-5.5",
    });
    await session.close();
  });

  it("resumes a thread with thread/resume", async () => {
    const { session, t } = await open({ resume: "old-thread", cwd: "/w" });
    expect(t.sent[2]).toMatchObject({
      method: "thread/resume",
      params: { threadId: "old-thread", cwd: "/w" },
    });
    await session.close();
  });

  it("runs one turn per send, starting the next only after the previous one's result", async () => {
    let finishFirst!: () => void;
    const transport = fakeServer((t, turnId, index) => {
      if (index === 1) finishFirst = () => finishTurn(t, turnId, 1);
      else finishTurn(t, turnId, index);
    });
    const { session, t } = await open({}, transport);
    await session.send("first");
    const second = session.send("second");
    await new Promise((r) => setTimeout(r, 10));
    expect(t.sent.filter((m) => m.method === "turn/start")).toHaveLength(1);

    let idle = false;
    void session.idle().then(() => {
      idle = true;
    });
    finishFirst();
    await second;
    expect(
      t.sent.filter((m) => m.method === "turn/start").map((m) => (m.params as { input: unknown }).input),
    ).toEqual([
      [{ type: "text", text: "first", text_elements: [] }],
      [{ type: "text", text: "second", text_elements: [] }],
    ]);
    await session.idle();
    expect(idle).toBe(true);
    const results: ResultMessage[] = [];
    for await (const m of session.subscribe()) {
      if (m.type === "result") results.push(m);
      if (results.length === 2) break;
    }
    expect(results.map((r) => r.result)).toEqual(["answer 1", "answer 2"]);
    await session.close();
  });

  it("streams every item of an AsyncIterable prompt as its own turn", async () => {
    const { session, t } = await open();
    await session.send(
      (async function* () {
        yield "one";
        yield [{ type: "text" as const, text: "two" }];
      })(),
    );
    await session.idle();
    expect(t.sent.filter((m) => m.method === "turn/start")).toHaveLength(2);
    await session.close();
  });

  it("sends images as data URLs and the output schema with each turn", async () => {
    const schema = { type: "object", properties: { a: { type: "number" } } };
    const { session, t } = await open({ outputFormat: { type: "json_schema", schema } });
    await session.send([
      { type: "text", text: "look" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
    ]);
    expect(t.sent.find((m) => m.method === "turn/start")?.params).toEqual({
      threadId: THREAD,
      input: [
        { type: "image", url: "data:image/png;base64,AAAA" },
        { type: "text", text: "look", text_elements: [] },
      ],
      outputSchema: schema,
    });
    await session.close();
  });

  it("applies setModel to the following turns, and setModel() restores the thread's model", async () => {
    const { session, t } = await open();
    await session.setModel("gpt-5.4");
    await session.send("a");
    await session.idle();
    await session.setModel();
    await session.send("b");
    await session.idle();
    const models = t.sent
      .filter((m) => m.method === "turn/start")
      .map((m) => (m.params as { model?: string }).model);
    expect(models).toEqual(["gpt-5.4", "gpt-5.5"]);
    await session.close();
  });

  it("interrupts the running turn with turn/interrupt and reports an interrupted result", async () => {
    const { session, t } = await open(
      {},
      fakeServer(() => {}),
    );
    await session.send("stall");
    await session.interrupt();
    expect(t.sent.find((m) => m.method === "turn/interrupt")?.params).toEqual({
      threadId: THREAD,
      turnId: "turn-1",
    });
    const messages = await untilResult(session);
    expect(messages.at(-1)).toMatchObject({ type: "result", isError: true, terminalReason: "interrupted" });
    await session.interrupt(); // nothing running: a no-op
    expect(t.sent.filter((m) => m.method === "turn/interrupt")).toHaveLength(1);
    await session.close();
  });

  it("lists MCP servers through mcpServerStatus/list", async () => {
    const { session } = await open();
    await expect(session.mcpServerStatus()).resolves.toEqual([{ name: "echo", tools: {} }]);
    await session.close();
  });

  it("has no method for what Codex lacks (the engine refuses those from its capabilities)", async () => {
    const { session: codex } = await open();
    const session: Session = codex;
    expect([
      session.setPermissionMode,
      session.setMaxThinkingTokens,
      session.rewindFiles,
      session.controlRequest,
    ]).toEqual([undefined, undefined, undefined, undefined]);
    await codex.close();
  });

  describe("approvals", () => {
    it("calls canUseTool with Bash { command, cwd } and answers accept", async () => {
      const calls: unknown[] = [];
      const { decision } = await decisionFor((name, input, ctx) => {
        calls.push([name, input, ctx.toolUseId]);
        return { behavior: "allow" };
      });
      expect(decision).toBe("accept");
      expect(calls).toEqual([["Bash", { command: "touch x", cwd: "/w" }, "call_1"]]);
    });

    it("remembering (updatedPermissions) answers acceptForSession", async () => {
      const { decision } = await decisionFor((_n, _i, ctx) => ({
        behavior: "allow",
        updatedPermissions: ctx.suggestions,
      }));
      expect(decision).toBe("acceptForSession");
    });

    it("deny answers decline, deny with interrupt answers cancel", async () => {
      expect((await decisionFor(() => ({ behavior: "deny", message: "no" }))).decision).toBe("decline");
      expect(
        (await decisionFor(() => ({ behavior: "deny", message: "stop", interrupt: true }))).decision,
      ).toBe("cancel");
    });

    it("a throwing callback declines and reports the error as a system message", async () => {
      const { decision, messages } = await decisionFor(() => {
        throw new Error("policy service down");
      });
      expect(decision).toBe("decline");
      expect(messages.find((m) => m.type === "system" && m.subtype === "codex_approval_error")).toMatchObject(
        {
          data: { error: "policy service down", tool_name: "Bash", decision: "decline" },
        },
      );
    });

    it("a callback returning nonsense declines too", async () => {
      const { decision } = await decisionFor(() => undefined as never);
      expect(decision).toBe("decline");
    });

    it("an allow that rewrites the input declines: Codex can only run what the model asked for", async () => {
      const { decision, messages } = await decisionFor(() => ({
        behavior: "allow",
        updatedInput: { command: "touch y", cwd: "/w" },
      }));
      expect(decision).toBe("decline");
      expect(messages.some((m) => m.type === "system" && m.subtype === "codex_approval_error")).toBe(true);
      const same = await decisionFor(() => ({
        behavior: "allow",
        updatedInput: { cwd: "/w", command: "touch x" },
      }));
      expect(same.decision).toBe("accept");
    });

    it("a callback slower than callbackTimeoutMs declines, and its signal aborts", async () => {
      let signal: AbortSignal | undefined;
      const { decision, messages } = await decisionFor(
        (_n, _i, ctx) => {
          signal = ctx.signal;
          return new Promise(() => {});
        },
        { callbackTimeoutMs: 20 },
      );
      expect(decision).toBe("decline");
      expect(signal?.aborted).toBe(true);
      expect(messages.find((m) => m.type === "system" && m.subtype === "codex_approval_error")).toMatchObject(
        {
          data: { error: "The canUseTool callback did not answer within 20 ms" },
        },
      );
    });

    it("without canUseTool, requests are declined unless the approval policy is 'never'", async () => {
      expect((await decisionFor(undefined, { codex: { approvalPolicy: "untrusted" } })).decision).toBe(
        "decline",
      );
      expect((await decisionFor(undefined)).decision).toBe("decline");
      expect((await decisionFor(undefined, { codex: { approvalPolicy: "never" } })).decision).toBe("accept");
    });
  });

  it("answers an unknown server request with -32601 and reports it; declines MCP elicitations", async () => {
    const { session, t } = await open();
    t.emit({ id: 5, method: "item/tool/requestUserInput", params: { threadId: THREAD, questions: [] } });
    t.emit({
      id: 6,
      method: "mcpServer/elicitation/request",
      params: { threadId: THREAD, serverName: "s", mode: "form" },
    });
    expect(await t.waitForSent((m) => m.id === 5)).toMatchObject({ error: { code: -32601 } });
    expect(await t.waitForSent((m) => m.id === 6)).toEqual({
      jsonrpc: "2.0",
      id: 6,
      result: { action: "decline", content: null, _meta: null },
    });
    await session.send("x");
    const messages = await untilResult(session);
    expect(messages.find((m) => m.type === "system" && m.subtype === "codex_server_request")).toMatchObject({
      data: { method: "item/tool/requestUserInput", answer: "method not found" },
    });
    await session.close();
  });

  it("ends the stream with the ProcessError when the server dies mid-turn; idle() resolves", async () => {
    const { session, t } = await open(
      {},
      fakeServer(() => {}),
    );
    await session.send("x");
    const death = new ProcessError("codex process failed: exit code 101", {
      exitCode: 101,
      stderrTail: "panic",
    });
    t.finish(death);
    await expect(untilResult(session)).rejects.toBe(death);
    await session.idle();
    await expect(session.send("more")).rejects.toBeDefined();
  });

  it("does not throw for an exit after a failed turn was already reported", async () => {
    const transport = fakeServer((t, turnId) => {
      t.emit({
        method: "turn/completed",
        params: { threadId: THREAD, turn: { id: turnId, status: "failed", error: { message: "HTTP 500" } } },
      });
      t.finish(new ProcessError("codex process failed: exit code 1", { exitCode: 1 }));
    });
    const { session } = await open({}, transport);
    await session.send("x");
    const all: Message[] = [];
    for await (const m of session.subscribe()) all.push(m);
    expect(all.at(-1)).toMatchObject({ type: "result", isError: true, result: "HTTP 500" });
  });

  it("close(reason) ends the stream with that reason; pid() is the transport's", async () => {
    const { session } = await open(
      {},
      fakeServer(() => {}),
    );
    expect(session.pid()).toBeUndefined();
    await session.send("x");
    const reading = untilResult(session);
    const reason = new Error("prompt stream failed");
    await session.close(reason);
    await expect(reading).rejects.toBe(reason);
  });

  it("endInput closes stdin, which ends the server and the stream", async () => {
    const { session, t } = await open();
    await session.send("x");
    await session.idle();
    await session.endInput();
    const all: Message[] = [];
    for await (const m of session.subscribe()) all.push(m);
    expect(t.inputEnded).toBe(true);
    expect(all.at(-1)?.type).toBe("result");
  });

  it("an aborted signal closes the session and readers get an AbortError", async () => {
    const controller = new AbortController();
    const { session, t } = await open(
      { signal: controller.signal },
      fakeServer(() => {}),
    );
    await session.send("x");
    const reading = untilResult(session);
    controller.abort();
    await expect(reading).rejects.toBeInstanceOf(AbortError);
    expect(t.closed).toBe(true);
  });
});
