/**
 * MCP server configuration accepted in `AgentOptions.mcpServers`.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

/** An MCP server the CLI starts as a subprocess. */
export interface McpStdioServerConfig {
  type?: "stdio";
  command: string;
  args?: string[];
  env?: Record<string, string>;
}

/** A remote MCP server over SSE. */
export interface McpSseServerConfig {
  type: "sse";
  url: string;
  headers?: Record<string, string>;
}

/** A remote MCP server over streamable HTTP. */
export interface McpHttpServerConfig {
  type: "http";
  url: string;
  headers?: Record<string, string>;
}

/**
 * An in-process MCP server: its tools run inside this Node process and the CLI reaches them over
 * the control protocol (`mcp_message`). Create one with `createSdkMcpServer()`, or wrap your own
 * `McpServer` instance.
 */
export interface McpSdkServerConfig {
  type: "sdk";
  name: string;
  instance: McpServer;
}

/** Any MCP server configuration. */
export type McpServerConfig =
  | McpStdioServerConfig
  | McpSseServerConfig
  | McpHttpServerConfig
  | McpSdkServerConfig;
