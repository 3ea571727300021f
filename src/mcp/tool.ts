/**
 * Define in-process MCP tools with zod schemas and bundle them into a server the CLI can call.
 * Built on `@modelcontextprotocol/sdk`'s `McpServer`: the MCP protocol is not re-implemented here.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { McpSdkServerConfig } from "./config.js";

/** A zod object shape, e.g. `{ a: z.number(), b: z.number() }`. */
export type ZodShape = Record<string, z.ZodType>;

/** The validated arguments a tool handler receives. */
export type ToolArgs<Shape extends ZodShape> = { [K in keyof Shape]: z.output<Shape[K]> };

/** A tool definition made by {@link tool}. */
export interface SdkMcpToolDefinition<Shape extends ZodShape = ZodShape> {
  name: string;
  description: string;
  inputSchema: Shape;
  handler: (args: ToolArgs<Shape>, extra: unknown) => Promise<CallToolResult> | CallToolResult;
  annotations?: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    title?: string;
  };
}

/**
 * Defines a tool. Arguments are validated against `inputSchema` before `handler` runs; invalid
 * arguments and handler errors reach the model as an `isError` tool result, never a dead session.
 *
 * @example
 * const add = tool("add", "Add two numbers", { a: z.number(), b: z.number() },
 *   async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }));
 */
export function tool<Shape extends ZodShape>(
  name: string,
  description: string,
  inputSchema: Shape,
  handler: (args: ToolArgs<Shape>, extra: unknown) => Promise<CallToolResult> | CallToolResult,
  annotations?: SdkMcpToolDefinition<Shape>["annotations"],
): SdkMcpToolDefinition<Shape> {
  return { name, description, inputSchema, handler, ...(annotations ? { annotations } : {}) };
}

/** The config returned by {@link createSdkMcpServer}; pass it in `mcpServers`. */
export interface SdkMcpServer extends McpSdkServerConfig {
  /** Builds a fresh, unconnected server with the same tools (one per session, so sessions can run concurrently). */
  createInstance: () => McpServer;
}

/**
 * Creates an in-process MCP server. Put it in `options.mcpServers` under any key; the model sees its
 * tools as `mcp__<name>__<tool>`.
 */
export function createSdkMcpServer(options: {
  name: string;
  version?: string;
  // biome-ignore lint/suspicious/noExplicitAny: tools of different shapes live in one list.
  tools?: SdkMcpToolDefinition<any>[];
}): SdkMcpServer {
  const build = (): McpServer => {
    const server = new McpServer(
      { name: options.name, version: options.version ?? "1.0.0" },
      { capabilities: { tools: {} } },
    );
    for (const def of options.tools ?? []) {
      server.registerTool(
        def.name,
        {
          description: def.description,
          inputSchema: def.inputSchema,
          ...(def.annotations ? { annotations: def.annotations } : {}),
        },
        // biome-ignore lint/suspicious/noExplicitAny: the MCP SDK has already validated args against the shape.
        (async (args: any, extra: unknown) => def.handler(args, extra)) as any,
      );
    }
    return server;
  };
  return { type: "sdk", name: options.name, instance: build(), createInstance: build };
}
