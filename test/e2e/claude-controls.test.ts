/**
 * The official SDK's Query control methods, against the real claude 2.1.330 offline: each one
 * crosses the wire and comes back with the CLI's answer.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AgentSdkClient,
  ControlRequestError,
  createSdkMcpServer,
  query,
  tool,
  UnsupportedFeatureError,
} from "../../src/index.js";
import { collect, results, testBed } from "./support.js";

const numberTool = (name: string) =>
  tool(name, `${name} a number`, { a: z.number() }, async ({ a }) => ({
    content: [{ type: "text", text: `${name}:${a}` }],
  }));

describe("control methods against claude 2.1.330", () => {
  it("answers every read-only control of the official Query on a client", async () => {
    await using bed = await testBed([{ text: "hi" }]);
    writeFileSync(join(bed.cwd, "a.txt"), "hello file");
    await using client = new AgentSdkClient(bed.options());
    await client.connect("hello");
    await collect(client.receiveResponse());

    const models = await client.supportedModels();
    expect(models.length).toBeGreaterThan(0);
    expect(models[0]).toEqual(
      expect.objectContaining({ value: expect.any(String), displayName: expect.any(String) }),
    );
    expect((await client.supportedAgents()).map((a) => a.name)).toContain("general-purpose");
    expect((await client.supportedCommands()).length).toBeGreaterThan(0);
    expect(await client.accountInfo()).toMatchObject({ apiKeySource: "ANTHROPIC_API_KEY" });
    expect((await client.initializationResult()).claude_code_version).toBe("2.1.330");
    expect(await client.reinitialize()).toHaveProperty("models");

    const context = await client.getContextUsage();
    expect(context.totalTokens).toBeGreaterThan(0);
    expect(context.maxTokens).toBeGreaterThan(context.totalTokens);
    const usage = await client.getUsage();
    expect(usage.session.total_cost_usd).toBeGreaterThan(0);

    expect(await client.readFile(join(bed.cwd, "a.txt"))).toMatchObject({ contents: "hello file" });
    expect(await client.readFile(join(bed.cwd, "missing.txt"))).toBeNull();
    await client.seedReadState(join(bed.cwd, "a.txt"), statSync(join(bed.cwd, "a.txt")).mtimeMs);

    expect(Array.isArray((await client.reloadPlugins()).commands)).toBe(true);
    expect(Array.isArray((await client.reloadSkills()).skills)).toBe(true);
    expect((await client.reloadOutputStyles()).available_output_styles).toContain("default");
    expect(await client.backgroundTasks()).toEqual(expect.any(Boolean));
    await client.stopTask("no-such-task");
    expect(await client.interrupt()).toEqual({ still_queued: [] });
    await client.setMaxThinkingTokens(1000, "summarized");
  });

  it("changes settings: flag settings in memory, an output style in the local settings file", async () => {
    await using bed = await testBed([{ text: "hi" }]);
    await using client = new AgentSdkClient(bed.options());
    await client.connect("hello");
    await collect(client.receiveResponse());

    await client.applyFlagSettings({ permissions: { allow: ["Bash(ls)"] } });
    const settings = await client.controlRequest({ subtype: "get_settings" });
    expect(JSON.stringify(settings.effective)).toContain("Bash(ls)");

    await client.updateSettings("localSettings", { outputStyle: "Concise" });
    const local = join(bed.cwd, ".claude", "settings.local.json");
    expect(JSON.parse(readFileSync(local, "utf8"))).toMatchObject({ outputStyle: "Concise" });
    // The CLI owns which keys each file takes; its refusal arrives as a typed error.
    await expect(client.updateSettings("localSettings", { permissions: {} })).rejects.toThrow(
      ControlRequestError,
    );
  });

  it("manages MCP servers: toggle, replace an in-process server with another the model then calls", async () => {
    await using bed = await testBed([
      { text: "first" },
      { toolUse: { name: "mcp__other__mul", input: { a: 7 } } },
      { text: "done" },
    ]);
    const calc = createSdkMcpServer({ name: "calc", tools: [numberTool("add")] });
    const other = createSdkMcpServer({ name: "other", tools: [numberTool("mul")] });
    await using client = new AgentSdkClient(
      bed.options({ mcpServers: { calc }, allowedTools: ["mcp__other__mul"] }),
    );
    await client.connect("first");
    await collect(client.receiveResponse());

    await client.toggleMcpServer("calc", false);
    expect((await client.getMcpStatus())[0]).toMatchObject({ name: "calc", status: "disabled" });
    await client.toggleMcpServer("calc", true);
    // 2.1.330 reconnects only servers it runs itself; its refusal for an in-process one is typed.
    await expect(client.reconnectMcpServer("calc")).rejects.toThrow(/mcp_reconnect/);
    await expect(client.readMcpResource("calc", "file:///x")).rejects.toThrow(ControlRequestError);
    expect(await client.setMcpPermissionModeOverride("calc", "auto")).toEqual({});

    expect(await client.setMcpServers({ other })).toEqual({
      added: ["other"],
      removed: ["calc"],
      errors: {},
    });
    await client.query("multiply");
    const messages = await collect(client.receiveResponse());
    expect(results(messages)[0]?.result).toBe("done");
    expect(JSON.stringify(bed.model.turnRequests[2]?.body.messages)).toContain("mul:7");
  });

  it("query(): controls, a raw controlRequest, and streamInput that keeps a string prompt's input open", async () => {
    await using bed = await testBed([{ text: "one" }, { text: "two" }]);
    const q = query({ prompt: "first", options: bed.options() });
    const seen: string[] = [];
    for await (const message of q) {
      if (message.type !== "result") continue;
      seen.push(String(message.result));
      if (seen.length === 1) {
        expect((await q.supportedModels()).length).toBeGreaterThan(0);
        expect(await q.controlRequest({ subtype: "get_settings" })).toHaveProperty("effective");
        await q.streamInput(
          (async function* () {
            yield "second";
          })(),
        );
      }
    }
    expect(seen).toEqual(["one", "two"]);
    expect(bed.model.turnRequests.map((r) => r.lastUserText)).toEqual(["first", "second"]);
  });

  it("answers an MCP elicitation with onElicitation", async () => {
    await using bed = await testBed([{ toolUse: { name: "mcp__asker__ask", input: {} } }, { text: "done" }]);
    const asked: unknown[] = [];
    const messages = await collect(
      query({
        prompt: "ask me",
        options: bed.options({
          allowedTools: ["mcp__asker__ask"],
          mcpServers: {
            asker: { command: process.execPath, args: [resolve("test/fixtures/mcp/eliciting-server.mjs")] },
          },
          onElicitation: async (request, { requestId }) => {
            asked.push({ ...request, requestId });
            return { action: "accept", content: { name: "Ada" } };
          },
        }),
      }),
    );
    expect(results(messages)[0]?.isError).toBe(false);
    expect(asked).toEqual([
      expect.objectContaining({
        serverName: "asker",
        message: "What is your name?",
        mode: "form",
        requestedSchema: expect.objectContaining({ required: ["name"] }),
        requestId: expect.any(String),
      }),
    ]);
    expect(JSON.stringify(bed.model.turnRequests[1]?.body.messages)).toContain('\\"name\\":\\"Ada\\"');
  });

  it("other backends refuse the Claude controls with UnsupportedFeatureError, before connecting", async () => {
    // Compile-time errors on a client known to be Cursor's; refused at run time where the backend
    // is not known statically (or from JavaScript).
    const client: AgentSdkClient = new AgentSdkClient({ backend: "cursor" });
    await expect(client.supportedModels()).rejects.toThrow(UnsupportedFeatureError);
    await expect(client.getContextUsage()).rejects.toThrow(UnsupportedFeatureError);
  });
});
