/**
 * `-c key=value` configuration overrides for the Codex CLI. The CLI parses each value as TOML, so
 * values are TOML-encoded here: a string is always quoted (an unquoted `-c k=true` would be a
 * boolean), tables and arrays are written inline.
 */
import { InvalidOptionsError } from "../../errors.js";
import type { McpServerConfig } from "../../mcp/config.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import type { CodexConfigValue } from "../../options.js";
import { isObject } from "../../wire/read.js";

/** A TOML value: what `codex.config` accepts. */
export type TomlValue = CodexConfigValue;

/** The configuration keys this SDK sets itself, each spelled once (the CLI's `config.toml` names). */
export const CONFIG_KEYS = {
  approvalPolicy: "approval_policy",
  reasoningEffort: "model_reasoning_effort",
  networkAccess: "sandbox_workspace_write.network_access",
  writableRoots: "sandbox_workspace_write.writable_roots",
  webSearch: "web_search",
  baseUrl: "openai_base_url",
} as const;

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
 * A table of overrides as dotted-key pairs, as the official Codex SDK flattens its `config`:
 * `{ a: { b: 1 }, c: {} }` → `[["a.b", 1], ["c", {}]]` (keys joined as given, `undefined` skipped,
 * arrays and their tables kept whole).
 * @throws InvalidOptionsError (with the `config.…` path) for what TOML cannot hold: `null`, a
 *   non-finite number, a function, an empty key; nothing is spawned.
 */
export function flattenConfig(config: unknown, name = "config"): [string, TomlValue][] {
  if (config === undefined) return [];
  if (!isObject(config)) throw new InvalidOptionsError([`${name}: must be a plain object`]);
  const out: [string, TomlValue][] = [];
  const walk = (table: Record<string, unknown>, prefix: string) => {
    const entries = Object.entries(table);
    if (prefix && entries.length === 0) out.push([prefix, {}]);
    for (const [key, child] of entries) {
      if (!key) throw new InvalidOptionsError([`${name}: keys must be non-empty strings`]);
      if (child === undefined) continue;
      const path = prefix ? `${prefix}.${key}` : key;
      if (isObject(child)) walk(child, path);
      else out.push([path, checkedTomlValue(child, `${name}.${path}`)]);
    }
  };
  walk(config, "");
  return out;
}

/** `value` as a {@link TomlValue} (`undefined` members dropped), or an `InvalidOptionsError` naming `path`. */
function checkedTomlValue(value: unknown, path: string): TomlValue {
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (Number.isFinite(value)) return value;
    throw new InvalidOptionsError([`${path}: must be a finite number`]);
  }
  if (Array.isArray(value)) return value.map((item, i) => checkedTomlValue(item, `${path}[${i}]`));
  if (isObject(value)) {
    const table: Record<string, TomlValue> = {};
    for (const [key, child] of Object.entries(value)) {
      if (!key) throw new InvalidOptionsError([`${path}: keys must be non-empty strings`]);
      if (child !== undefined) table[key] = checkedTomlValue(child, `${path}.${key}`);
    }
    return table;
  }
  throw new InvalidOptionsError([
    `${path}: ${value === null ? "cannot be null" : `unsupported ${typeof value}`}`,
  ]);
}

/**
 * The overrides as one `thread/start` config map, with every dotted key that falls inside an
 * earlier table (`mcp_servers.echo.enabled` after `mcp_servers.echo`) written into that table.
 * Codex reads the map unordered (a Rust `HashMap`), so two keys for the same setting would apply
 * in a random order; folded, the later override wins every time, as on the command line.
 */
export function foldIntoTables(overrides: [string, TomlValue][]): Record<string, TomlValue> {
  const config: Record<string, TomlValue> = {};
  for (const [key, value] of overrides) {
    const table = Object.keys(config).find(
      (prefix) => key.startsWith(`${prefix}.`) && isObject(config[prefix]),
    );
    if (table === undefined) {
      config[key] = value;
      continue;
    }
    const path = dottedPath(key.slice(table.length + 1));
    let at: Record<string, TomlValue> = { ...(config[table] as Record<string, TomlValue>) };
    config[table] = at;
    for (const part of path.slice(0, -1)) {
      const next = at[part];
      const inner: Record<string, TomlValue> = isObject(next) ? { ...next } : {};
      at[part] = inner;
      at = inner;
    }
    at[path[path.length - 1] as string] = value;
  }
  return config;
}

/** `a."b.c".d` → `["a", "b.c", "d"]` (TOML's dotted keys: bare or double-quoted parts). */
function dottedPath(key: string): string[] {
  const parts: string[] = [];
  const part = /\s*(?:"((?:[^"\\]|\\.)*)"|([^."\s]+))\s*(?:\.|$)/y;
  while (part.lastIndex < key.length) {
    const match = part.exec(key);
    if (!match) return [key];
    parts.push(match[1] !== undefined ? (JSON.parse(`"${match[1]}"`) as string) : (match[2] as string));
  }
  return parts;
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
export function codexConfigOverrides(options: ResolvedOptions): [string, TomlValue][] {
  const out: [string, TomlValue][] = [];
  const effort = options.codex?.reasoningEffort ?? options.effort;
  if (effort !== undefined) out.push([CONFIG_KEYS.reasoningEffort, effort]);
  if (options.codex?.networkAccess !== undefined) {
    out.push([CONFIG_KEYS.networkAccess, options.codex.networkAccess]);
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
