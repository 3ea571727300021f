/**
 * `-c key=value` configuration overrides for the Codex CLI. The CLI parses each value as TOML, so
 * values are TOML-encoded here: a string is always quoted (an unquoted `-c k=true` would be a
 * boolean), tables and arrays are written inline.
 */
import type { McpServerConfig } from "../../mcp/config.js";
import type { AgentOptions, CodexConfigValue } from "../../options.js";

/** A TOML value: what `codex.config` accepts. */
export type TomlValue = CodexConfigValue;

/** Encodes a value as inline TOML. Throws `TypeError` for what TOML cannot hold (non-finite numbers). */
export function tomlValue(value: TomlValue): string {
  if (typeof value === "string") return tomlString(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`TOML cannot encode the number ${value}`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(", ")}]`;
  const pairs = Object.entries(value).map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`);
  return pairs.length === 0 ? "{}" : `{ ${pairs.join(", ")} }`;
}

/** A TOML basic string: quotes, backslashes and control characters escaped. */
export function tomlString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** One TOML key segment: bare when it can be, else quoted. */
export function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

/** `-c` argument pairs (`["-c", "k=v", …]`) for the given overrides, in order. */
export function configArgs(overrides: [key: string, value: TomlValue][]): string[] {
  return overrides.flatMap(([key, value]) => ["-c", `${key}=${tomlValue(value)}`]);
}

/**
 * The config overrides both Codex commands get from `options`, in the order they are applied (a
 * later override wins, so `codex.config` comes last and can adjust anything before it).
 *
 * - `codex.reasoningEffort` (or `effort`) → `model_reasoning_effort`;
 * - `codex.networkAccess` → `sandbox_workspace_write.network_access`;
 * - stdio / http `mcpServers` → `mcp_servers.<name>` tables, with
 *   `default_tools_approval_mode = "approve"`: configuring a server in code approves its tools;
 * - `codex.config` → verbatim.
 */
export function codexConfigOverrides(options: AgentOptions): [string, TomlValue][] {
  const out: [string, TomlValue][] = [];
  const effort = options.codex?.reasoningEffort ?? options.effort;
  if (effort !== undefined) out.push(["model_reasoning_effort", effort]);
  if (options.codex?.networkAccess !== undefined) {
    out.push(["sandbox_workspace_write.network_access", options.codex.networkAccess]);
  }
  if (typeof options.mcpServers === "object") {
    for (const [name, server] of Object.entries(options.mcpServers)) {
      const table = mcpServerTable(server);
      if (table) out.push([`mcp_servers.${tomlKey(name)}`, table]);
    }
  }
  for (const [key, value] of Object.entries(options.codex?.config ?? {})) out.push([key, value]);
  return out;
}

/** The Codex `mcp_servers.<name>` table of a server, or `undefined` for a type Codex cannot run. */
export function mcpServerTable(server: McpServerConfig): Record<string, TomlValue> | undefined {
  if (server.type === undefined || server.type === "stdio") {
    const table: Record<string, TomlValue> = { command: server.command, args: server.args ?? [] };
    if (server.env && Object.keys(server.env).length > 0) table.env = server.env;
    table.default_tools_approval_mode = "approve";
    return table;
  }
  if (server.type === "http") {
    const table: Record<string, TomlValue> = { url: server.url };
    if (server.headers && Object.keys(server.headers).length > 0) table.http_headers = server.headers;
    table.default_tools_approval_mode = "approve";
    return table;
  }
  return undefined;
}
