import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createSdkMcpServer, tool } from "../../../src/index.js";
import { SdkMcpBridge } from "../../../src/mcp/bridge.js";

const signal = new AbortController().signal;

async function bridgeWith(servers: Parameters<typeof SdkMcpBridge.sdkConfigs>[0]) {
  const bridge = new SdkMcpBridge();
  await bridge.start(SdkMcpBridge.sdkConfigs(servers));
  return bridge;
}

/** What the CLI sends, in the order Claude Code 2.1.330 sends it. */
async function handshake(bridge: SdkMcpBridge, server: string) {
  const init = await bridge.handle(
    {
      server_name: server,
      message: {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "claude-code", version: "2.1.330" },
        },
      },
    },
    signal,
  );
  await bridge.handle(
    { server_name: server, message: { jsonrpc: "2.0", method: "notifications/initialized" } },
    signal,
  );
  return init;
}

describe("SDK MCP bridge", () => {
  const calc = createSdkMcpServer({
    name: "calc",
    version: "2.0.0",
    tools: [
      tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
        content: [{ type: "text", text: `SUM=${a + b}` }],
      })),
      tool("fail", "Throws", {}, async () => {
        throw new Error("handler exploded");
      }),
    ],
  });

  it("answers initialize, tools/list and tools/call through the MCP SDK", async () => {
    const bridge = await bridgeWith({ calc });
    const init = await handshake(bridge, "calc");
    expect(init).toMatchObject({
      mcp_response: { id: 0, result: { serverInfo: { name: "calc", version: "2.0.0" } } },
    });
    const list = await bridge.handle(
      { server_name: "calc", message: { jsonrpc: "2.0", id: 1, method: "tools/list" } },
      signal,
    );
    const tools = (list.mcp_response as { result: { tools: { name: string; inputSchema: unknown }[] } })
      .result.tools;
    expect(tools.map((t) => t.name)).toEqual(["add", "fail"]);
    expect(tools[0]?.inputSchema).toMatchObject({ type: "object", required: ["a", "b"] });
    const call = await bridge.handle(
      {
        server_name: "calc",
        message: {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "add", arguments: { a: 2, b: 3 } },
        },
      },
      signal,
    );
    expect(call).toEqual({
      mcp_response: { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "SUM=5" }] } },
    });
    await bridge.close();
  });

  it("validates arguments before the handler runs and reports handler errors as isError results", async () => {
    const bridge = await bridgeWith({ calc });
    await handshake(bridge, "calc");
    const bad = await bridge.handle(
      {
        server_name: "calc",
        message: {
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: { name: "add", arguments: { a: "two" } },
        },
      },
      signal,
    );
    expect(bad).toMatchObject({ mcp_response: { id: 3, result: { isError: true } } });
    const thrown = await bridge.handle(
      {
        server_name: "calc",
        message: { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "fail", arguments: {} } },
      },
      signal,
    );
    expect(thrown).toMatchObject({
      mcp_response: {
        id: 4,
        result: {
          isError: true,
          content: [{ type: "text", text: expect.stringContaining("handler exploded") }],
        },
      },
    });
    await bridge.close();
  });

  it("answers two concurrent tools/call with the same JSON-RPC id, each with its own result", async () => {
    const bridge = await bridgeWith({ calc });
    await handshake(bridge, "calc");
    const call = (a: number, b: number) =>
      bridge.handle(
        {
          server_name: "calc",
          message: {
            jsonrpc: "2.0",
            id: 7,
            method: "tools/call",
            params: { name: "add", arguments: { a, b } },
          },
        },
        signal,
      );
    const [first, second] = await Promise.all([call(1, 2), call(10, 20)]);
    expect(first).toMatchObject({ mcp_response: { id: 7, result: { content: [{ text: "SUM=3" }] } } });
    expect(second).toMatchObject({ mcp_response: { id: 7, result: { content: [{ text: "SUM=30" }] } } });
    await bridge.close();
  });

  it("accepts a user's own McpServer instance, reusable after the session closes", async () => {
    const own = new McpServer({ name: "own", version: "1.0.0" });
    own.registerTool("ping", { description: "pong" }, async () => ({
      content: [{ type: "text", text: "pong" }],
    }));
    for (let round = 0; round < 2; round++) {
      const bridge = await bridgeWith({ mine: { type: "sdk", name: "own", instance: own } });
      await handshake(bridge, "mine");
      const call = await bridge.handle(
        {
          server_name: "mine",
          message: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ping" } },
        },
        signal,
      );
      expect(call).toMatchObject({ mcp_response: { result: { content: [{ text: "pong" }] } } });
      await bridge.close();
    }
  });

  it("answers a request for an unknown server with a JSON-RPC error", async () => {
    const bridge = await bridgeWith({ calc });
    const response = await bridge.handle(
      { server_name: "nope", message: { jsonrpc: "2.0", id: 9, method: "tools/list" } },
      signal,
    );
    expect(response).toMatchObject({ mcp_response: { id: 9, error: { code: -32601 } } });
    await bridge.close();
  });
});
