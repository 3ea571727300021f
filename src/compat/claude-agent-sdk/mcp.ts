/**
 * The official `tool()` and `createSdkMcpServer()` on this SDK's in-process MCP support.
 */
import { InvalidOptionsError } from "../../errors.js";
import {
  type SdkMcpToolDefinition as CoreTool,
  createSdkMcpServer as coreCreateSdkMcpServer,
} from "../../mcp/tool.js";
import type {
  AnyZodRawShape,
  InferShape,
  McpSdkServerConfigWithInstance,
  SdkMcpToolDefinition,
  ToolAnnotations,
} from "./types.js";

/**
 * Defines an in-process MCP tool (the official signature: annotations in the fifth argument).
 * `searchHint` and `alwaysLoad` are tool-search metadata this engine does not send; they are refused.
 */
export function tool<Schema extends AnyZodRawShape>(
  name: string,
  description: string,
  inputSchema: Schema,
  handler: (
    args: InferShape<Schema>,
    extra: unknown,
  ) => Promise<import("@modelcontextprotocol/sdk/types.js").CallToolResult>,
  extras?: { annotations?: ToolAnnotations; searchHint?: string; alwaysLoad?: boolean },
): SdkMcpToolDefinition<Schema> {
  if (extras?.searchHint !== undefined || extras?.alwaysLoad !== undefined) {
    throw new InvalidOptionsError([`tool ${name}: searchHint and alwaysLoad are not implemented`]);
  }
  return {
    name,
    description,
    inputSchema,
    handler,
    ...(extras?.annotations ? { annotations: extras.annotations } : {}),
  };
}

/** Bundles tools into an in-process MCP server; pass it in `options.mcpServers`. */
export function createSdkMcpServer(options: {
  name: string;
  version?: string;
  tools?: Array<SdkMcpToolDefinition<any>>;
  instructions?: string;
  alwaysLoad?: boolean;
  timeout?: number;
}): McpSdkServerConfigWithInstance {
  const unsupported = (["instructions", "alwaysLoad"] as const).filter((k) => options[k] !== undefined);
  if (unsupported.length > 0) {
    throw new InvalidOptionsError(unsupported.map((k) => `createSdkMcpServer ${k}: not implemented`));
  }
  for (const def of options.tools ?? []) {
    if (def._meta !== undefined)
      throw new InvalidOptionsError([`tool ${def.name}: _meta is not implemented`]);
  }
  const server = coreCreateSdkMcpServer({
    name: options.name,
    ...(options.version !== undefined ? { version: options.version } : {}),
    tools: (options.tools ?? []) as unknown as CoreTool<any>[],
  });
  // The per-server tool-call timeout (milliseconds) goes to the CLI with the server's declaration.
  if (options.timeout !== undefined) {
    if (typeof options.timeout !== "number" || !Number.isFinite(options.timeout) || options.timeout < 0)
      throw new InvalidOptionsError(["createSdkMcpServer timeout: must be a number of milliseconds"]);
    return Object.defineProperties(server, {
      timeout: { value: options.timeout, enumerable: true, writable: true, configurable: true },
    }) as McpSdkServerConfigWithInstance;
  }
  return server as McpSdkServerConfigWithInstance;
}
