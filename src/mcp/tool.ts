/**
 * Define in-process MCP tools with zod schemas and bundle them into a server the CLI can call.
 * Built on `@modelcontextprotocol/sdk`'s `McpServer`: the MCP protocol is not re-implemented here.
 */
import { createRequire } from "node:module";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
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

type McpServerClass = typeof McpServer;

/** `@modelcontextprotocol/sdk`'s `McpServer`, once loaded; see {@link loadMcpServer}. */
let mcpServerClass: McpServerClass | undefined;
let mcpServerLoading: Promise<McpServerClass> | undefined;

/**
 * Loads `@modelcontextprotocol/sdk`'s `McpServer` (once per process). The MCP SDK is large, so it is
 * loaded when in-process MCP servers are first needed, not when this package is imported: every
 * path that starts a session with one awaits this first.
 */
export function loadMcpServer(): Promise<McpServerClass> {
  mcpServerLoading ??= import("@modelcontextprotocol/sdk/server/mcp.js").then(({ McpServer }) => {
    mcpServerClass ??= McpServer;
    return mcpServerClass;
  });
  return mcpServerLoading;
}

/**
 * `McpServer` for a synchronous use: the loaded one, or, for a server built before any session
 * loaded it (reading `instance` right after `createSdkMcpServer()`), the package's CommonJS build.
 */
function mcpServer(): McpServerClass {
  mcpServerClass ??= (
    createRequire(import.meta.url)("@modelcontextprotocol/sdk/server/mcp.js") as { McpServer: McpServerClass }
  ).McpServer;
  return mcpServerClass;
}

/**
 * Creates an in-process MCP server. Put it in `options.mcpServers` under any key; the model sees its
 * tools as `mcp__<name>__<tool>`.
 */
export function createSdkMcpServer(options: {
  name: string;
  version?: string;
  tools?: SdkMcpToolDefinition<any>[];
}): SdkMcpServer {
  const build = (): McpServer => {
    const McpServer = mcpServer();
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
        // The MCP SDK has already validated args against the shape.
        (async (args: any, extra: unknown) => def.handler(args, extra)) as any,
      );
    }
    return server;
  };
  // The MCP SDK is needed from here on; start loading it now so it is there when a session starts.
  loadMcpServer().catch(() => undefined);
  let instance: McpServer | undefined;
  return {
    type: "sdk",
    name: options.name,
    /** Built on first use (sessions use `createInstance`). */
    get instance(): McpServer {
      instance ??= build();
      return instance;
    },
    createInstance: build,
  };
}
