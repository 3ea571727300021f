/**
 * `createSdkMcpServer` does not need the MCP SDK loaded up front: `instance` is built on first use,
 * also synchronously, before any session has loaded the SDK (this file imports nothing of it).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createSdkMcpServer, tool } from "../../../src/index.js";
import { SdkMcpBridge } from "../../../src/mcp/bridge.js";

const signal = new AbortController().signal;

describe("createSdkMcpServer", () => {
  it("builds `instance` on first use, synchronously, and it serves the tools", async () => {
    const calc = createSdkMcpServer({
      name: "calc",
      tools: [
        tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
          content: [{ type: "text", text: `SUM=${a + b}` }],
        })),
      ],
    });
    const instance = calc.instance;
    expect(typeof instance.connect).toBe("function");
    expect(calc.instance).toBe(instance);

    const bridge = new SdkMcpBridge();
    await bridge.start(SdkMcpBridge.sdkConfigs({ own: { type: "sdk", name: "calc", instance } }));
    await bridge.handle(
      {
        server_name: "own",
        message: {
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        },
      },
      signal,
    );
    const call = await bridge.handle(
      {
        server_name: "own",
        message: {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "add", arguments: { a: 2, b: 3 } },
        },
      },
      signal,
    );
    expect(call).toMatchObject({ mcp_response: { id: 1, result: { content: [{ text: "SUM=5" }] } } });
    const bad = await bridge.handle(
      {
        server_name: "own",
        message: {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "add", arguments: { a: "x" } },
        },
      },
      signal,
    );
    expect(bad).toMatchObject({ mcp_response: { id: 2, result: { isError: true } } });
    await bridge.close();
  });

  it("builds a fresh server for every createInstance()", () => {
    const server = createSdkMcpServer({ name: "s" });
    expect(server.createInstance()).not.toBe(server.createInstance());
  });
});
