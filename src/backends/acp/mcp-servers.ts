/**
 * `mcpServers` as the `session/new` (and `session/load`) parameter: ACP passes MCP servers to the
 * agent per session, with environment variables and headers as name/value lists.
 */
import { UnsupportedFeatureError } from "../../errors.js";
import type { McpServerConfig } from "../../mcp/config.js";

/** An MCP server as ACP carries it. */
export type AcpMcpServer =
  | { name: string; command: string; args: string[]; env: { name: string; value: string }[] }
  | { type: "http" | "sse"; name: string; url: string; headers: { name: string; value: string }[] };

const pairs = (record: Record<string, string> | undefined) =>
  Object.entries(record ?? {}).map(([name, value]) => ({ name, value }));

/**
 * The ACP form of `servers`. HTTP and SSE servers need the agent's `mcpCapabilities.http`/`.sse`.
 *
 * @throws UnsupportedFeatureError for a transport the agent did not declare.
 */
export function acpMcpServers(
  servers: Record<string, McpServerConfig> | undefined,
  caps: { http: boolean; sse: boolean },
  agent: string,
): AcpMcpServer[] {
  return Object.entries(servers ?? {}).map(([name, server]): AcpMcpServer => {
    if (server.type === "http" || server.type === "sse") {
      if (!caps[server.type]) {
        throw new UnsupportedFeatureError(
          `${server.type} MCP servers (the agent does not declare mcpCapabilities.${server.type})`,
          `acp (${agent})`,
        );
      }
      return { type: server.type, name, url: server.url, headers: pairs(server.headers) };
    }
    if (server.type === "sdk") {
      // Refused by validation; kept here so the types stay exhaustive.
      throw new UnsupportedFeatureError("in-process (sdk) MCP servers", `acp (${agent})`);
    }
    return { name, command: server.command, args: server.args ?? [], env: pairs(server.env) };
  });
}
