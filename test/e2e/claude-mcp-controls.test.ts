/**
 * The MCP control methods and `backgroundTasks()` against the real claude 2.1.330 offline, with a
 * stdio MCP server the test controls (test/fixtures/mcp/resource-server.mjs) and a Bash command
 * that blocks on a fifo the test releases.
 */
import { execFileSync } from "node:child_process";
import { closeSync, constants, openSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentSdkClient, ControlRequestError, isSystemMessage, type Message } from "../../src/index.js";
import { eventually, isAlive } from "../lifecycle/support/processes.js";
import { collect, testBed } from "./support.js";

const serverScript = resolve("test/fixtures/mcp/resource-server.mjs");

/** Lets a `cat` still blocked on `fifo` finish (after a failed assertion); no-op without a reader. */
function release(fifo: string): void {
  try {
    const fd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    closeSync(fd);
  } catch {
    // ENXIO: nobody reads it any more.
  }
}

describe("MCP control methods against claude 2.1.330", () => {
  it("reads a ui:// resource, toggles the server off and on, and reconnects it (a new process)", async () => {
    await using bed = await testBed([{ text: "hi" }]);
    const pidLog = join(bed.cwd, "pids.log");
    const pids = () => readFileSync(pidLog, "utf8").trim().split("\n").map(Number);
    await using client = new AgentSdkClient(
      bed.options({
        mcpServers: {
          res: { command: process.execPath, args: [serverScript], env: { MCP_PID_LOG: pidLog } },
        },
      }),
    );
    await client.connect("hello");
    await collect(client.receiveResponse());
    const status = async () => (await client.getMcpStatus()).find((s) => s.name === "res");
    expect(await status()).toMatchObject({ status: "connected", serverInfo: { name: "resources" } });
    const [first] = pids();

    // The CLI reads MCP Apps UI resources only; the answer is the server's resources/read result.
    expect(await client.readMcpResource("res", "ui://demo/widget")).toEqual({
      contents: [
        {
          uri: "ui://demo/widget",
          mimeType: "text/html;profile=mcp-app",
          text: "<p>demo widget</p>",
          _meta: { ui: { prefersBorder: true } },
        },
      ],
    });
    const plain = client.readMcpResource("res", "note://plain");
    await expect(plain).rejects.toThrow(ControlRequestError);
    await expect(plain).rejects.toThrow("uri must use the ui:// scheme");
    await expect(client.readMcpResource("nope", "ui://demo/widget")).rejects.toThrow(
      "Server not found: nope",
    );

    await client.toggleMcpServer("res", false);
    expect(await status()).toMatchObject({ status: "disabled" });
    expect(await eventually(() => !isAlive(first!))).toBe(true);
    // A disabled server is refused by the other controls, with the CLI's reason.
    await expect(client.readMcpResource("res", "ui://demo/widget")).rejects.toThrow(/res is disabled/);
    await expect(client.reconnectMcpServer("res")).rejects.toThrow(/enable it \(mcp_toggle\)/);

    await client.toggleMcpServer("res", true);
    expect(await status()).toMatchObject({ status: "connected", tools: [{ name: "ping" }] });
    expect(pids()).toHaveLength(2);
    const second = pids()[1]!;

    await client.reconnectMcpServer("res");
    expect(await status()).toMatchObject({ status: "connected" });
    expect(pids()).toHaveLength(3);
    expect(await eventually(() => !isAlive(second))).toBe(true);
    expect(isAlive(pids()[2]!)).toBe(true);
    await expect(client.reconnectMcpServer("nope")).rejects.toThrow("Server not found: nope");
  });

  it("backgroundTasks() moves a running foreground Bash command to the background", async () => {
    await using bed = await testBed([
      { toolUse: { name: "Bash", input: { command: "cat release.fifo", description: "wait for release" } } },
      { text: "moved to background" },
      { text: "task finished" },
    ]);
    const fifo = join(bed.cwd, "release.fifo");
    execFileSync("mkfifo", [fifo]);
    await using client = new AgentSdkClient(bed.options({ allowedTools: ["Bash"] }));
    await client.connect("run it");

    const seen: Message[] = [];
    let toolUseId: string | undefined;
    const messages = client.receiveMessages()[Symbol.asyncIterator]();
    const until = async (predicate: (m: Message) => boolean): Promise<Message> => {
      for (;;) {
        const next = await messages.next();
        if (next.done) throw new Error(`the stream ended; saw ${seen.map((m) => m.type).join(", ")}`);
        seen.push(next.value);
        if (next.value.type === "assistant") {
          for (const block of next.value.content) if (block.type === "tool_use") toolUseId = block.id;
        }
        if (predicate(next.value)) return next.value;
      }
    };
    // The CLI registers a foreground command as a task (and says so) once it has run for 2 s;
    // before that there is nothing to background and the answer is false.
    const started = await until((m) => isSystemMessage(m, "task_started"));
    expect(started.raw).toMatchObject({
      task_type: "local_bash",
      is_backgrounded: false,
      tool_use_id: toolUseId,
    });

    try {
      expect(await client.backgroundTasks(toolUseId)).toBe(true);
      await until(
        (m) =>
          isSystemMessage(m, "task_updated") &&
          (m.raw as { patch?: { is_backgrounded?: boolean } }).patch?.is_backgrounded === true,
      );
      const firstResult = await until((m) => m.type === "result");
      expect(firstResult).toMatchObject({ result: "moved to background" });
      expect(JSON.stringify(bed.model.turnRequests[1]?.body.messages)).toContain("manually backgrounded");

      await writeFile(fifo, "released\n");
      const notification = await until((m) => isSystemMessage(m, "task_notification"));
      expect(notification.raw).toMatchObject({ status: "completed", tool_use_id: toolUseId });
      expect(await until((m) => m.type === "result")).toMatchObject({ result: "task finished" });
    } finally {
      release(fifo);
      await messages.return?.();
    }
  });
});
