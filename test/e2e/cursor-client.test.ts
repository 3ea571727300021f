/**
 * `AgentSdkClient` with `backend: "cursor"`: a new `--print` process per turn, chained with
 * `--resume <chatId>`. Driven against the stand-in `fake-cursor-agent.mjs` (2025.11.25-d5b3271),
 * built from the documented shapes because no real Cursor binary can be installed here.
 */
import { describe, expect, it } from "vitest";
import { CURSOR_CAPABILITIES } from "../../src/backends/cursor/backend.js";
import {
  AgentSdkClient,
  CliConnectionError,
  CliNotFoundError,
  type Message,
  ProcessError,
  UnsupportedFeatureError,
  UnsupportedOptionsError,
} from "../../src/index.js";
import { cursorBed, flagValue, promptOf } from "./cursor-support.js";
import { collect, isAlive, results } from "./support.js";

/** Reads a subscription until `stop` matches (that message included). */
async function readUntil(
  messages: AsyncIterable<Message>,
  stop: (m: Message) => boolean,
): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of messages) {
    out.push(m);
    if (stop(m)) break;
  }
  return out;
}

describe("AgentSdkClient on cursor", () => {
  it("declares its capabilities: interrupt by ending the process, nothing that needs a control protocol", () => {
    const client = new AgentSdkClient({ backend: "cursor" });
    expect(client.backendName).toBe("cursor");
    expect(client.capabilities).toEqual({
      controlProtocol: false,
      toolApproval: false,
      hooks: false,
      sdkMcpRouting: false,
      persistentSession: false,
      warmStart: false,
      interrupt: true,
      runtimeConfigChanges: false,
      modelSwitching: false,
      mcpStatus: false,
      toolPolicy: "none",
    });
    expect(client.capabilities).toBe(CURSOR_CAPABILITIES);
  });

  it("runs each turn in a new process that resumes the chat named by the first system/init", async () => {
    await using bed = cursorBed();
    await using client = new AgentSdkClient(bed.options());
    await client.connect();
    // Connecting spawns nothing: Cursor has no process without a turn.
    expect(bed.invocations()).toEqual([]);
    expect(client.pid).toBeUndefined();

    await client.query("first question");
    const first = await collect(client.receiveResponse());
    const chatId = first[0]?.sessionId;
    expect(first[0]).toMatchObject({ type: "system", subtype: "init" });
    expect(results(first)[0]?.result).toBe('Turn 1 (0 prior turns): you said "first question"');

    await client.query("second question");
    const second = await collect(client.receiveResponse());
    expect(second[0]?.sessionId).toBe(chatId);
    expect(results(second)[0]).toMatchObject({
      sessionId: chatId,
      result: 'Turn 2 (1 prior turns): you said "second question"',
    });

    const [one, two] = bed.invocations();
    expect(flagValue(one?.argv ?? [], "--resume")).toBeUndefined();
    expect(flagValue(two?.argv ?? [], "--resume")).toBe(chatId);
    expect(two?.pid).not.toBe(one?.pid);
    expect(isAlive(one?.pid ?? 0)).toBe(false);
    expect(await client.getServerInfo()).toMatchObject({ backend: "cursor", sessionId: chatId });
  });

  it("sends the connect() prompt as the first turn", async () => {
    await using bed = cursorBed();
    await using client = new AgentSdkClient(bed.options());
    await client.connect("hello");
    expect(results(await collect(client.receiveResponse()))[0]?.result).toContain('you said "hello"');
  });

  it("options.resume seeds the chat of the first turn", async () => {
    await using bed = cursorBed();
    let chatId: string | undefined;
    {
      await using client = new AgentSdkClient(bed.options());
      await client.connect("remember 42");
      chatId = results(await collect(client.receiveResponse()))[0]?.sessionId;
    }
    await using resumed = new AgentSdkClient(bed.options({ resume: chatId }));
    await resumed.connect("what was it?");
    const messages = await collect(resumed.receiveResponse());
    expect(results(messages)[0]).toMatchObject({
      sessionId: chatId,
      result: expect.stringContaining("1 prior turns"),
    });
    expect(flagValue(bed.invocations()[1]?.argv ?? [], "--resume")).toBe(chatId);
  });

  it("a turn sent while another runs waits for that process to end, then resumes the chat", async () => {
    await using bed = cursorBed();
    await using client = new AgentSdkClient(bed.options());
    await client.connect();
    await client.query("GATE first");
    // The stand-in echoes the prompt, then waits for the gate before answering.
    const beforeGate = await readUntil(client.receiveMessages(), (m) => m.type === "user");
    expect(beforeGate.map((m) => m.type)).toEqual(["system", "user"]);

    await client.query("queued second");
    // Queued, not started: the first turn's process is still running.
    expect(bed.invocations().map(promptOf)).toEqual(["GATE first"]);
    expect(client.pid).toBe(bed.invocations()[0]?.pid);

    bed.openGate();
    const rest = await readUntil(
      client.receiveMessages(),
      (m) => m.type === "result" && m.result?.includes("queued") === true,
    );
    const [firstResult, secondResult] = results(rest);
    expect(firstResult?.result).toContain('"GATE first"');
    expect(secondResult?.result).toBe('Turn 2 (1 prior turns): you said "queued second"');
    const [one, two] = bed.invocations();
    expect(flagValue(two?.argv ?? [], "--resume")).toBe(firstResult?.sessionId);
    expect(two?.pid).not.toBe(one?.pid);
  });

  it("interrupt() ends the running turn; the next turn continues the same chat", async () => {
    await using bed = cursorBed();
    await using client = new AgentSdkClient(bed.options());
    await client.connect("HANG");
    const interrupted: Message[] = [];
    for await (const m of client.receiveResponse()) {
      interrupted.push(m);
      if (m.type === "assistant") await client.interrupt();
    }
    const result = results(interrupted)[0];
    expect(result).toMatchObject({
      isError: true,
      subtype: "error_during_execution",
      terminalReason: "interrupted",
    });
    expect(isAlive(bed.invocations()[0]?.pid ?? 0)).toBe(false);
    // Nothing runs now: interrupting again is a no-op.
    await client.interrupt();

    await client.query("are you there?");
    const next = await collect(client.receiveResponse());
    expect(results(next)[0]).toMatchObject({ isError: false, sessionId: result?.sessionId });
    expect(results(next)[0]?.result).toContain("1 prior turns");
  });

  it("gated controls throw UnsupportedFeatureError", async () => {
    await using bed = cursorBed();
    // Compile-time errors on a client known to be Cursor's; refused at run time where the backend
    // is not known statically (or from JavaScript).
    await using client: AgentSdkClient = new AgentSdkClient(bed.options());
    await client.connect();
    const attempts: [string, () => Promise<unknown>][] = [
      ["setModel", () => client.setModel("other")],
      ["setPermissionMode", () => client.setPermissionMode("plan")],
      ["setMaxThinkingTokens", () => client.setMaxThinkingTokens(1)],
      ["rewindFiles", () => client.rewindFiles("uuid")],
      ["getMcpStatus", () => client.getMcpStatus()],
      ["controlRequest", () => client.controlRequest({ subtype: "mcp_status" })],
    ];
    for (const [feature, attempt] of attempts) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnsupportedFeatureError);
      expect(error).toMatchObject({ feature, backend: "cursor" });
    }
    expect(bed.invocations()).toEqual([]);
  });

  it("disconnect() kills the running turn and ends every reader", async () => {
    await using bed = cursorBed();
    const client = new AgentSdkClient(bed.options());
    await client.connect("HANG");
    await readUntil(client.receiveMessages(), (m) => m.type === "assistant");
    const pid = client.pid;
    expect(pid).toBe(bed.invocations()[0]?.pid);
    const reader = collect(client.receiveMessages());
    await client.disconnect();
    expect(isAlive(pid ?? 0)).toBe(false);
    // The waiting reader finishes, with no result: the turn was cut off.
    expect(await reader).toEqual([]);
  });

  it("a turn that crashes ends the session with a ProcessError; later turns are refused", async () => {
    await using bed = cursorBed();
    await using client = new AgentSdkClient(bed.options());
    await client.connect("CRASH");
    const error = await collect(client.receiveResponse()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProcessError);
    expect(error).toMatchObject({ exitCode: 2 });
    await expect(client.query("again")).rejects.toBeInstanceOf(CliConnectionError);
  });

  it("connect() refuses unsupported options and a missing binary before spawning", async () => {
    await using bed = cursorBed();
    // @ts-expect-error: not an option of this backend (refused at compile time, and at run time for JavaScript)
    const refused = await new AgentSdkClient(bed.options({ hooks: {}, agents: {} }))
      .connect()
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UnsupportedOptionsError);
    expect(refused).toMatchObject({ options: ["hooks", "agents"] });
    await expect(
      new AgentSdkClient(bed.options({ cliPath: "/nonexistent/agent" })).connect(),
    ).rejects.toBeInstanceOf(CliNotFoundError);
    expect(bed.invocations()).toEqual([]);
  });
});
