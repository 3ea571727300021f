/**
 * Isolated `CODEX_HOME` for running the real `codex` CLI offline against a local fake Responses API
 * (see `startFakeOpenAI`).
 *
 * @module
 */

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeDirOnce } from "./shared/temp-dir.js";

/** One stdio MCP server entry of the generated `config.toml`. */
export interface CodexMcpServerConfig {
  /** Executable, e.g. `process.execPath` (node). */
  command: string;
  /** Arguments. */
  args?: string[];
  /** Extra environment for the server process. */
  env?: Record<string, string>;
  /**
   * Codex's `required` (default `true`): the CLI waits for the server to start before its first
   * request and fails when it cannot. Without it `codex exec` (0.169) sends the first request
   * without a server still starting (its tools missing), which a loaded machine makes likely.
   */
  required?: boolean;
}

/** Options for {@link createCodexHome}. */
export interface CodexHomeOptions {
  /**
   * Base URL of the fake API, with or without the `/v1` suffix (e.g. a fake server's `url`). The
   * provider's `base_url` is this plus `/v1` when missing.
   */
  baseUrl: string;
  /**
   * Model name. Default `"gpt-5.5"`. It must be in the CLI's bundled model catalog: unknown names make
   * the CLI fall back to a degraded tool set.
   */
  model?: string;
  /** `approval_policy`: `never` (default), `untrusted`, `on-request`, `on-failure`. */
  approvalPolicy?: string;
  /** `sandbox_mode`: `read-only` (default), `workspace-write`, `danger-full-access`. */
  sandboxMode?: string;
  /**
   * Stdio MCP servers, keyed by server name. Each gets `default_tools_approval_mode = "approve"` so its
   * tools run without an approval prompt under `approval_policy = "never"`.
   */
  mcpServers?: Record<string, CodexMcpServerConfig>;
  /**
   * `stream_idle_timeout_ms` of the provider: how long the CLI waits for the next SSE event before it
   * gives up on a stream (relevant for `{ stall: true }` turns). Default 10000.
   */
  streamIdleTimeoutMs?: number;
  /**
   * Extra TOML, inserted after the generated top-level keys and before the first table, so it may hold
   * top-level keys (e.g. `model_reasoning_effort = "low"`) and further tables (e.g.
   * `[tools]\nupdate_plan = { enabled = true }`). It must not redefine a key or table the helper writes
   * (`model`, `model_provider`, `approval_policy`, `sandbox_mode`, `check_for_update_on_startup`,
   * `[model_providers.fake]`, `[analytics]`, `[features]`, `[mcp_servers.*]`): TOML forbids duplicates.
   */
  extraToml?: string;
  /** Extra environment variables merged into {@link CodexHome.env}. */
  env?: Record<string, string>;
}

/** Result of {@link createCodexHome}. */
export interface CodexHome {
  /** The `CODEX_HOME` directory (holds `config.toml`; the CLI writes sessions, logs, ... into it). */
  home: string;
  /** Path of the generated `config.toml`. */
  configPath: string;
  /** The scratch directory used as `TMPDIR` (a sibling of {@link home}, not a parent). */
  tmpDir: string;
  /**
   * An empty directory used as `HOME`, so the login shell the CLI runs commands in (`bash -lc`) does not
   * source the real user's `~/.bashrc` / `~/.profile` (whose noise would end up in command output), and
   * nothing is read from the real `~/.codex` or `~/.agents`.
   */
  userHome: string;
  /**
   * Environment for the CLI process (pass as the whole `env`, not merged with `process.env`):
   * `HOME` ({@link userHome}), `CODEX_HOME`, `FAKE_API_KEY`, `TMPDIR`, `PATH` (from `process.env`), plus
   * `options.env` (which may override any of them).
   */
  env: Record<string, string>;
  /** Removes the home, tmp and user directories recursively. Safe to call more than once. */
  cleanup(): Promise<void>;
}

/** Name of the custom model provider the config defines. */
export const CODEX_FAKE_PROVIDER = "fake";
/** Environment variable holding the API key (`env_key` of the provider). */
export const CODEX_FAKE_API_KEY_ENV = "FAKE_API_KEY";
/** Value put in {@link CODEX_FAKE_API_KEY_ENV}; the CLI sends it as `Authorization: Bearer <value>`. */
export const CODEX_FAKE_API_KEY = "sk-fake-openai-key";
/** Default model (present in the 0.169 CLI's bundled catalog). */
export const CODEX_DEFAULT_MODEL = "gpt-5.5";

/**
 * Creates an isolated `CODEX_HOME` under `os.tmpdir()` whose `config.toml` makes the `codex` CLI talk
 * only to `baseUrl`, fail fast, and skip every startup network call:
 *
 * - a custom provider `fake` (`wire_api = "responses"`, `env_key = "FAKE_API_KEY"`,
 *   `request_max_retries = 0`, `stream_max_retries = 0`, `stream_idle_timeout_ms`);
 * - `check_for_update_on_startup = false`, `[analytics] enabled = false`;
 * - `[features]` `plugins`, `remote_plugin`, `apps`, `shell_snapshot` and
 *   `unbounded_connection_retries` off (else it contacts GitHub / chatgpt.com, sources the login shell
 *   profile at startup, or retries a dead server forever);
 * - `approval_policy` / `sandbox_mode`, and MCP servers with `default_tools_approval_mode = "approve"`.
 *
 * Layout: `<root>/home` is `CODEX_HOME`, `<root>/tmp` is `TMPDIR` (the CLI refuses to create its helper
 * binaries under a `TMPDIR` that contains `CODEX_HOME`), `<root>/user` is an empty `HOME`.
 *
 * @param opts - Base URL, model, policies, MCP servers, extra TOML.
 * @returns The directories, env and a cleanup function.
 */
export function createCodexHome(opts: CodexHomeOptions): CodexHome {
  const root = mkdtempSync(join(tmpdir(), "codex-test-"));
  const home = join(root, "home");
  const tmpDir = join(root, "tmp");
  const userHome = join(root, "user");
  mkdirSync(home, { recursive: true });
  mkdirSync(tmpDir, { recursive: true });
  mkdirSync(userHome, { recursive: true });
  const configPath = join(home, "config.toml");
  writeFileSync(configPath, codexConfigToml(opts));
  const env: Record<string, string> = {};
  if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
  Object.assign(env, {
    HOME: userHome,
    CODEX_HOME: home,
    [CODEX_FAKE_API_KEY_ENV]: CODEX_FAKE_API_KEY,
    TMPDIR: tmpDir,
    ...opts.env,
  });
  return { home, configPath, tmpDir, userHome, env, cleanup: removeDirOnce(root) };
}

/**
 * The `config.toml` text {@link createCodexHome} writes.
 *
 * @param opts - Same options as {@link createCodexHome}.
 * @returns TOML text.
 */
export function codexConfigToml(opts: CodexHomeOptions): string {
  const baseUrl = providerBaseUrl(opts.baseUrl);
  const lines: string[] = [
    "# Generated by code-agent-sdk/testing createCodexHome(): offline config for a fake Responses API.",
    `model = ${tomlString(opts.model ?? CODEX_DEFAULT_MODEL)}`,
    `model_provider = ${tomlString(CODEX_FAKE_PROVIDER)}`,
    `approval_policy = ${tomlString(opts.approvalPolicy ?? "never")}`,
    `sandbox_mode = ${tomlString(opts.sandboxMode ?? "read-only")}`,
    "check_for_update_on_startup = false",
  ];
  if (opts.extraToml !== undefined && opts.extraToml.trim() !== "") {
    lines.push("", opts.extraToml.replace(/\s+$/, ""));
  }
  lines.push(
    "",
    `[model_providers.${tomlKey(CODEX_FAKE_PROVIDER)}]`,
    `name = ${tomlString("Fake local Responses API")}`,
    `base_url = ${tomlString(baseUrl)}`,
    `wire_api = "responses"`,
    `env_key = ${tomlString(CODEX_FAKE_API_KEY_ENV)}`,
    "request_max_retries = 0",
    "stream_max_retries = 0",
    `stream_idle_timeout_ms = ${Math.max(1, Math.floor(opts.streamIdleTimeoutMs ?? 10_000))}`,
    "",
    "[analytics]",
    "enabled = false",
    "",
    "[features]",
    "plugins = false",
    "remote_plugin = false",
    "apps = false",
    "shell_snapshot = false",
    "unbounded_connection_retries = false",
  );
  for (const [name, server] of Object.entries(opts.mcpServers ?? {})) {
    lines.push(
      "",
      `[mcp_servers.${tomlKey(name)}]`,
      `command = ${tomlString(server.command)}`,
      `args = [${(server.args ?? []).map(tomlString).join(", ")}]`,
    );
    if (server.env !== undefined && Object.keys(server.env).length > 0) {
      const pairs = Object.entries(server.env).map(([k, v]) => `${tomlKey(k)} = ${tomlString(v)}`);
      lines.push(`env = { ${pairs.join(", ")} }`);
    }
    lines.push(`default_tools_approval_mode = "approve"`, `required = ${server.required ?? true}`);
  }
  return `${lines.join("\n")}\n`;
}

/** `http://host:port` or `http://host:port/v1` (trailing slashes ignored) → `http://host:port/v1`. */
function providerBaseUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  return /\/v1$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

/**
 * A TOML basic string: `"` and `\` escaped, control characters as `\b \t \n \f \r` or `\uXXXX`.
 *
 * @param value - Any string.
 * @returns The quoted TOML string.
 */
export function tomlString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        break;
      case "\\":
        out += "\\\\";
        break;
      case "\b":
        out += "\\b";
        break;
      case "\t":
        out += "\\t";
        break;
      case "\n":
        out += "\\n";
        break;
      case "\f":
        out += "\\f";
        break;
      case "\r":
        out += "\\r";
        break;
      default:
        out += code < 0x20 || code === 0x7f ? `\\u${code.toString(16).padStart(4, "0")}` : ch;
    }
  }
  return `${out}"`;
}

/**
 * A TOML key: bare when it only holds `A-Za-z0-9_-`, else quoted.
 *
 * @param key - Any key.
 * @returns The key as written in TOML.
 */
export function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}
