/**
 * MCP server configuration accepted in `AgentOptions.mcpServers`.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

/** The permission policy of one tool of an MCP server. */
export interface McpServerToolPolicy {
  name: string;
  permission_policy?: "always_allow" | "always_ask" | "always_deny";
  org_max_permission?: "allow" | "ask" | "blocked";
}

/** An MCP server the CLI starts as a subprocess. */
export interface McpStdioServerConfig {
  type?: "stdio";
  command: string;
  args?: string[];
  env?: Record<string, string>;
  /** Seconds the CLI waits for the server's tool calls. */
  timeout?: number;
  /** Load the server's tools up front instead of behind tool search. */
  alwaysLoad?: boolean;
  /** Fields of newer CLIs: passed through unchanged (with a one-time warning). */
  [field: string]: unknown;
}

/** A remote MCP server over SSE. */
export interface McpSseServerConfig {
  type: "sse";
  url: string;
  headers?: Record<string, string>;
  /** Per-tool permission policy. */
  tools?: McpServerToolPolicy[];
  /** Seconds the CLI waits for the server's tool calls. */
  timeout?: number;
  /** Load the server's tools up front instead of behind tool search. */
  alwaysLoad?: boolean;
  /** Fields of newer CLIs: passed through unchanged (with a one-time warning). */
  [field: string]: unknown;
}

/** A remote MCP server over streamable HTTP. */
export interface McpHttpServerConfig {
  type: "http";
  url: string;
  headers?: Record<string, string>;
  /** Per-tool permission policy. */
  tools?: McpServerToolPolicy[];
  /** Seconds the CLI waits for the server's tool calls. */
  timeout?: number;
  /** Load the server's tools up front instead of behind tool search. */
  alwaysLoad?: boolean;
  /** Fields of newer CLIs: passed through unchanged (with a one-time warning). */
  [field: string]: unknown;
}

/**
 * An in-process MCP server: its tools run inside this Node process and the CLI reaches them over
 * the control protocol (`mcp_message`). Create one with `createSdkMcpServer()`, or wrap your own
 * `McpServer` instance.
 */
export interface McpSdkServerConfig {
  type: "sdk";
  /** Informational; the CLI addresses the server by its key in `mcpServers`. */
  name: string;
  /** The server. Used when `createInstance` is absent; one session at a time can use it. */
  instance: McpServer;
  /** Builds a fresh server per session, so concurrent sessions never share one connection. */
  createInstance?: () => McpServer;
  /** Milliseconds the CLI waits for each of the server's tool calls (the CLI ignores values below 1000). */
  timeout?: number;
  /** Per-tool permission policy. */
  tools?: McpServerToolPolicy[];
}

/** Any MCP server configuration. */
export type McpServerConfig =
  | McpStdioServerConfig
  | McpSseServerConfig
  | McpHttpServerConfig
  | McpSdkServerConfig;
