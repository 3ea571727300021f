/**
 * AgentSdkClient (and streamed query()) against the real Codex CLI (0.169.0, `codex app-server`),
 * offline, with a scripted Responses API.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  AbortError,
  AgentSdkClient,
  type CanUseTool,
  type Message,
  query,
  UnsupportedFeatureError,
} from "../../src/index.js";
import {
  CODEX_CLI_VERSION,
  codexBed,
  collect,
  ECHO_MCP,
  results,
  runningCliProcesses,
} from "./codex-support.js";
import { isAlive } from "./support.js";

afterEach(() => {
  expect(runningCliProcesses()).toBe(0);
});

const approvals = { approvalPolicy: "untrusted", sandboxMode: "workspace-write" } as const;

function blocks(messages: Message[]) {
  return messages.flatMap((m) =>
    (m.type === "assistant" || m.type === "user") && Array.isArray(m.content) ? m.content : [],
  );
}

describe(`AgentSdkClient against codex ${CODEX_CLI_VERSION} (codex app-server)`, () => {
  it("answers two turns in one process, with both stream views consumed at once", async () => {
    await using bed = await codexBed([{ text: "answer one" }, { text: "answer two" }]);
    await using client = new AgentSdkClient(bed.options());
    expect(client.capabilities).toEqual({
      controlProtocol: false,
      toolApproval: true,
      hooks: false,
      sdkMcpRouting: false,
      persistentSession: true,
      warmStart: true,
      interrupt: true,
      runtimeConfigChanges: false,
      modelSwitching: true,
      mcpStatus: true,
      toolPolicy: "asked-calls",
    });
    await client.connect();
    const info = await client.getServerInfo();
    expect(info?.userAgent).toContain(`/${CODEX_CLI_VERSION} `);
    const pid = client.pid;
    expect(pid).toBeGreaterThan(0);

    const everything: Message[] = [];
    const monitor = (async () => {
      for await (const m of client.receiveMessages()) everything.push(m);
    })();

    await client.query("first question");
    const first = await collect(client.receiveResponse());
    expect(first.at(-1)).toMatchObject({ type: "result", result: "answer one", isError: false });

    await client.query("second question");
    const second = await collect(client.receiveResponse());
    expect(second.at(-1)).toMatchObject({ type: "result", result: "answer two", sessionId: info?.threadId });
    expect(bed.api.turnRequests.map((r) => r.lastUserText)).toEqual(["first question", "second question"]);

    await client.disconnect();
    await monitor;
    expect(isAlive(pid!)).toBe(false);
    expect(everything[0]).toMatchObject({ type: "system", subtype: "init", sessionId: info?.threadId });
    expect(results(everything).map((r) => r.result)).toEqual(["answer one", "answer two"]);
  });

  it("sends the connect() prompt as the first turn", async () => {
    await using bed = await codexBed([{ text: "hello back" }]);
    await using client = new AgentSdkClient(bed.options());
    await client.connect("hello");
    expect(results(await collect(client.receiveResponse()))[0]?.result).toBe("hello back");
  });

  describe("command approval through canUseTool", () => {
    async function runApproval(decide: CanUseTool, after: { text: string }[] = [{ text: "finished" }]) {
      const bed = await codexBed([{ execCommand: { cmd: "touch approved.txt" } }, ...after]);
      const calls: [string, Record<string, unknown>][] = [];
      const client = new AgentSdkClient(
        bed.options({
          codex: approvals,
          canUseTool: (name, input, ctx) => {
            calls.push([name, input]);
            return decide(name, input, ctx);
          },
        }),
      );
      await client.connect();
      await client.query("touch the file");
      const messages = await collect(client.receiveResponse());
      await client.disconnect();
      return { bed, calls, messages, created: existsSync(join(bed.cwd, "approved.txt")) };
    }

    it("allowed: canUseTool sees Bash { command, cwd } and the command runs", async () => {
      const { bed, calls, messages, created } = await runApproval(() => ({ behavior: "allow" }));
      await using _ = bed;
      expect(calls).toEqual([
        [
          "Bash",
          { command: expect.stringMatching(/^touch approved\.txt/), cwd: bed.cwd, argv: expect.any(Array) },
        ],
      ]);
      expect(created).toBe(true);
      expect(blocks(messages).find((b) => b.type === "tool_result")).toMatchObject({ isError: false });
      expect(results(messages)).toMatchObject([{ isError: false, result: "finished" }]);
    });

    it("declined: the command does not run, the model is told, and the turn goes on", async () => {
      const { bed, messages, created } = await runApproval(() => ({
        behavior: "deny",
        message: "not allowed",
      }));
      await using _ = bed;
      expect(created).toBe(false);
      expect(blocks(messages).find((b) => b.type === "tool_result")).toMatchObject({ isError: true });
      expect(results(messages)).toMatchObject([{ isError: false, result: "finished" }]);
      expect(JSON.stringify(bed.api.turnRequests[1]?.toolOutputs)).toMatch(/reject/i);
    });

    it("cancelled (deny with interrupt): nothing runs and the turn ends as interrupted", async () => {
      const { bed, messages, created } = await runApproval(() => ({
        behavior: "deny",
        message: "stop",
        interrupt: true,
      }));
      await using _ = bed;
      expect(created).toBe(false);
      expect(results(messages)).toMatchObject([{ isError: true, terminalReason: "interrupted" }]);
      expect(bed.api.turnRequests).toHaveLength(1);
    });

    it("a throwing callback declines the command and reports the error; the turn still ends", async () => {
      const { bed, messages, created } = await runApproval(() => {
        throw new Error("approval service unreachable");
      });
      await using _ = bed;
      expect(created).toBe(false);
      expect(messages.find((m) => m.type === "system" && m.subtype === "codex_approval_error")).toMatchObject(
        {
          data: { error: "approval service unreachable", decision: "decline" },
        },
      );
      expect(results(messages)).toMatchObject([{ isError: false, result: "finished" }]);
    });

    it("remembering the decision (updatedPermissions) approves the same command for the session", async () => {
      const bed = await codexBed([
        { execCommand: { cmd: "touch again.txt" } },
        { text: "one" },
        { execCommand: { cmd: "touch again.txt" } },
        { text: "two" },
      ]);
      await using _ = bed;
      let asked = 0;
      await using client = new AgentSdkClient(
        bed.options({
          codex: approvals,
          canUseTool: (_n, _i, ctx) => {
            asked += 1;
            return { behavior: "allow", updatedPermissions: ctx.suggestions };
          },
        }),
      );
      await client.connect();
      await client.query("first");
      await collect(client.receiveResponse());
      await client.query("second");
      const second = await collect(client.receiveResponse());
      expect(results(second)[0]?.result).toBe("two");
      expect(asked).toBe(1);
    });
  });

  it("asks canUseTool to approve a file change (Write, in the unified vocabulary) and applies it when allowed", async () => {
    await using bed = await codexBed([
      { applyPatch: "*** Begin Patch\n*** Add File: approved-patch.txt\n+patched\n*** End Patch\n" },
      { text: "patched" },
    ]);
    const calls: [string, Record<string, unknown>][] = [];
    await using client = new AgentSdkClient(
      bed.options({
        codex: approvals,
        canUseTool: (name, input) => {
          calls.push([name, input]);
          return { behavior: "allow" };
        },
      }),
    );
    await client.connect();
    await client.query("patch it");
    const messages = await collect(client.receiveResponse());
    expect(calls).toEqual([
      [
        "Write",
        {
          file_path: join(bed.cwd, "approved-patch.txt"),
          content: "patched\n",
          changes: [{ path: join(bed.cwd, "approved-patch.txt"), kind: "add", diff: "patched\n" }],
          reason: null,
          grantRoot: null,
        },
      ],
    ]);
    expect(readFileSync(join(bed.cwd, "approved-patch.txt"), "utf8")).toBe("patched\n");
    expect(results(messages)).toMatchObject([{ isError: false, result: "patched" }]);
  });

  it("asks canUseTool before an MCP tool runs when the server's tools need approval", async () => {
    await using bed = await codexBed([
      { mcpCall: { server: "echo", tool: "echo", arguments: { text: "hi mcp" } } },
      { text: "done" },
    ]);
    const calls: unknown[] = [];
    await using client = new AgentSdkClient(
      bed.options({
        mcpServers: { echo: { command: process.execPath, args: [ECHO_MCP] } },
        codex: { ...approvals, config: { "mcp_servers.echo.default_tools_approval_mode": "prompt" } },
        canUseTool: (name, input, ctx) => {
          calls.push([name, input, ctx.mcpServer, ctx.toolUseId]);
          return { behavior: "allow" };
        },
      }),
    );
    await client.connect();
    await client.query("call the tool");
    const messages = await collect(client.receiveResponse());
    const use = blocks(messages).find((b) => b.type === "tool_use");
    expect(calls).toEqual([
      ["mcp__echo__echo", { text: "hi mcp" }, { name: "echo" }, use?.type === "tool_use" ? use.id : ""],
    ]);
    expect(blocks(messages).find((b) => b.type === "tool_result")).toMatchObject({
      content: [{ type: "text", text: "echo: hi mcp" }],
      isError: false,
    });
  });

  it("reports the thread's sandbox: workspace-write with network access and the extra writable directories", async () => {
    await using bed = await codexBed();
    await using client = new AgentSdkClient(
      bed.options({
        codex: { sandboxMode: "workspace-write", networkAccess: true },
        addDirs: [bed.home.tmpDir],
      }),
    );
    await client.connect();
    const info = await client.getServerInfo();
    expect(info?.sandbox).toMatchObject({
      type: "workspaceWrite",
      networkAccess: true,
      writableRoots: expect.arrayContaining([bed.home.tmpDir]),
    });
    expect(info?.cwd).toBe(bed.cwd);
  });

  it("interrupts a stalled turn; the session stays usable", async () => {
    await using bed = await codexBed([
      { stall: true, text: "partial answer" },
      { text: "after the interrupt" },
    ]);
    await using client = new AgentSdkClient(bed.options({ includePartialMessages: true }));
    await client.connect();
    await client.query("stall please");
    const first: Message[] = [];
    for await (const m of client.receiveResponse()) {
      first.push(m);
      // The model is mid-answer once its first delta arrives.
      if (m.type === "stream_event") await client.interrupt();
    }
    expect(first.find((m) => m.type === "stream_event")).toMatchObject({
      event: { type: "content_block_delta", delta: { type: "text_delta", text: expect.any(String) } },
    });
    expect(first.at(-1)).toMatchObject({ type: "result", isError: true, terminalReason: "interrupted" });

    await client.query("again");
    expect(results(await collect(client.receiveResponse()))[0]?.result).toBe("after the interrupt");
  });

  it("switches the model for the following turns with setModel()", async () => {
    await using bed = await codexBed([{ text: "a" }, { text: "b" }]);
    await using client = new AgentSdkClient(bed.options());
    await client.connect();
    await client.query("one");
    await collect(client.receiveResponse());
    await client.setModel("gpt-5.4");
    await client.query("two");
    const second = await collect(client.receiveResponse());
    expect(bed.api.turnRequests.map((r) => r.body.model)).toEqual(["gpt-5.5", "gpt-5.4"]);
    expect(second.find((m) => m.type === "assistant")).toMatchObject({ model: "gpt-5.4" });
  });

  it("surfaces a failed model stream as result.isError, and the next turn still works", async () => {
    await using bed = await codexBed([{ failed: { message: "model overloaded" } }, { text: "recovered" }]);
    await using client = new AgentSdkClient(bed.options());
    await client.connect();
    await client.query("hi");
    const failed = await collect(client.receiveResponse());
    expect(results(failed)[0]).toMatchObject({
      isError: true,
      subtype: "error_during_execution",
      terminalReason: "failed",
      result: expect.stringContaining("model overloaded"),
    });
    await client.query("again");
    expect(results(await collect(client.receiveResponse()))[0]).toMatchObject({
      isError: false,
      result: "recovered",
    });
  });

  it("resumes a thread (thread/resume) in a new process", async () => {
    await using bed = await codexBed([{ text: "noted" }, { text: "it was apricot" }]);
    let threadId: string;
    {
      await using client = new AgentSdkClient(bed.options());
      await client.connect("remember apricot");
      threadId = results(await collect(client.receiveResponse()))[0]!.sessionId;
    }
    await using client = new AgentSdkClient(bed.options({ resume: threadId }));
    await client.connect("what was it?");
    expect(results(await collect(client.receiveResponse()))[0]).toMatchObject({
      sessionId: threadId,
      result: "it was apricot",
    });
    expect(JSON.stringify(bed.api.turnRequests[1]?.body.input)).toContain("remember apricot");
  });

  it("refuses what Codex cannot do with UnsupportedFeatureError", async () => {
    await using bed = await codexBed();
    // Compile-time errors on a client known to be Codex's; refused at run time where the backend
    // is not known statically (or from JavaScript).
    await using client: AgentSdkClient = new AgentSdkClient(bed.options());
    await client.connect();
    await expect(client.setPermissionMode("plan")).rejects.toBeInstanceOf(UnsupportedFeatureError);
    await expect(client.setMaxThinkingTokens(10)).rejects.toBeInstanceOf(UnsupportedFeatureError);
    await expect(client.rewindFiles("x")).rejects.toBeInstanceOf(UnsupportedFeatureError);
    await expect(client.controlRequest({ subtype: "x" })).rejects.toBeInstanceOf(UnsupportedFeatureError);
  });

  it("an aborted signal ends the session with AbortError and kills the server", async () => {
    await using bed = await codexBed([{ stall: true }]);
    const controller = new AbortController();
    await using client = new AgentSdkClient(bed.options({ signal: controller.signal }));
    await client.connect();
    await client.query("stall please");
    const stalled = bed.api.waitForRequest((r) => r.lastUserText === "stall please");
    const reading = collect(client.receiveResponse());
    await stalled;
    controller.abort();
    await expect(reading).rejects.toBeInstanceOf(AbortError);
  });
});

describe(`query() with a streamed prompt against codex ${CODEX_CLI_VERSION} (codex app-server)`, () => {
  it("runs every item of the stream as a turn, then ends", async () => {
    await using bed = await codexBed([{ text: "one" }, { text: "two" }]);
    const prompt = (async function* () {
      yield "first";
      yield "second";
    })();
    const messages = await collect(query({ prompt, options: bed.options() }));
    expect(results(messages).map((r) => r.result)).toEqual(["one", "two"]);
    expect(new Set(results(messages).map((r) => r.sessionId)).size).toBe(1);
  });

  it("lists the thread's MCP servers (mcpServerStatus/list)", async () => {
    await using bed = await codexBed([{ text: "ok" }]);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const q = query({
      prompt: (async function* () {
        yield "hi";
        await gate;
      })(),
      options: bed.options({ mcpServers: { echo: { command: process.execPath, args: [ECHO_MCP] } } }),
    });
    let status: unknown[] = [];
    for await (const m of q) {
      if (m.type === "result") {
        status = await q.mcpServerStatus();
        release();
      }
    }
    expect(status).toMatchObject([{ name: "echo", tools: { echo: expect.anything() } }]);
  });

  it("getMcpStatus() on the client lists the MCP servers too", async () => {
    await using bed = await codexBed([{ text: "ok" }]);
    await using client = new AgentSdkClient(
      bed.options({ mcpServers: { echo: { command: process.execPath, args: [ECHO_MCP] } } }),
    );
    await client.connect("hi");
    await collect(client.receiveResponse());
    expect(await client.getMcpStatus()).toMatchObject([{ name: "echo" }]);
  });
});
