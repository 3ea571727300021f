/**
 * Command-line parsing for `code-agent`, on `node:util` `parseArgs`.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { INSTALLABLE_BACKENDS, type InstallableBackend, isInstallableBackend } from "../install/packages.js";
import { ACP_AGENT_PRESETS } from "../options/acp-presets.js";
import { PERMISSION_MODES as ALL_PERMISSION_MODES } from "../options/plain.js";
import { BACKEND_KINDS } from "../options/support.js";
import type { BackendKind, SettingSource } from "../options.js";
import type { PermissionMode } from "../permissions.js";
import { closest } from "./suggest.js";

/** A bad command line: exit code 2, message and usage on stderr. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Everything `code-agent PROMPT` was asked to do. */
export interface RunArgs {
  command: "run";
  backend: BackendKind;
  /** `--agent`: the ACP agent, a preset name or its command (`--backend acp` only). */
  agent: string | undefined;
  model: string | undefined;
  cwd: string | undefined;
  allow: string[];
  deny: string[];
  permissionMode: PermissionMode | undefined;
  /** Where "always allow" keeps its rule: `session` (default) or a settings file. */
  rememberIn: RememberDestination;
  maxTurns: number | undefined;
  /**
   * `--setting-sources`: which Claude Code settings files load. Unset: all of them in a terminal,
   * only the user's own without one.
   */
  settingSources: SettingSource[] | undefined;
  resume: string | undefined;
  /** `--cli-path`: the agent CLI executable, instead of searching for it. */
  cliPath: string | undefined;
  json: boolean;
  interactive: boolean;
  thinking: boolean;
  demo: boolean;
  /** The prompt words joined with spaces, or undefined when none were given. */
  prompt: string | undefined;
}

/** Where `--remember-in` may keep an "always allow" rule. */
export const REMEMBER_DESTINATIONS = ["session", "localSettings", "projectSettings", "userSettings"] as const;

/** One of {@link REMEMBER_DESTINATIONS}. */
export type RememberDestination = (typeof REMEMBER_DESTINATIONS)[number];

/** `code-agent install claude|codex [VERSION]`. */
export interface InstallArgs {
  command: "install";
  backend: InstallableBackend;
  version: string | undefined;
  cacheDir: string | undefined;
  force: boolean;
  json: boolean;
}

export type CliArgs = RunArgs | InstallArgs | { command: "help" } | { command: "version" };

export const BACKENDS: readonly BackendKind[] = BACKEND_KINDS;

/** The ACP agents `--agent` knows by name (see the ACP backend's presets). */
export const ACP_AGENTS = ACP_AGENT_PRESETS;
export const PERMISSION_MODES: readonly PermissionMode[] = ALL_PERMISSION_MODES;

export const USAGE = `Usage: code-agent [options] PROMPT          (or the prompt on stdin)
       code-agent -i [options] [PROMPT]      multi-turn session
       code-agent --demo [PROMPT]            offline, against the built-in scripted model
       code-agent install claude|codex [VERSION] [--cache-dir DIR] [--force]

Runs a coding agent (Claude Code, Codex, Cursor Agent, or any ACP agent) on PROMPT and shows what
it does.

Options:
  --backend claude|codex|cursor|acp  which agent CLI to drive (default: claude)
  --agent NAME|COMMAND            the ACP agent: ${ACP_AGENTS.join(", ")},
                                  or its command (implies --backend acp)
  --model M                       model to use
  --cwd DIR                       working directory of the agent (default: the current one)
  --allow TOOL                    allow a tool without asking, e.g. Bash or "Bash(npm test)" (repeatable)
  --deny TOOL                     refuse a tool (repeatable)
  --permission-mode MODE          ${PERMISSION_MODES.join(" | ")}
  --remember-in WHERE             where "always allow" keeps its rule: session (default),
                                  localSettings, projectSettings or userSettings (Claude)
  --max-turns N                   stop after N model turns
  --setting-sources LIST          Claude Code settings to load: comma-separated user, project, local,
                                  or "" for none (default: all in a terminal; only user without one,
                                  so an untrusted checkout's .claude/settings.json hooks do not run)
  --resume ID                     continue the session with this id
  --cli-path PATH                 the agent CLI executable to run (default: searched for; see below)
  --json                          print the messages as JSON lines (nothing else on stdout)
  -i, --interactive               a multi-turn session: one prompt line per turn
  --thinking                      show the model's thinking (hidden by default)
  --demo                          use the built-in scripted model (no API key, no network)
  -h, --help                      this help
  -V, --version                   the version of code-agent

Permissions: in a terminal you are asked for each tool call the agent needs permission for
(allow once / allow always / deny). Without a terminal, calls are denied unless --allow covers them.

The agent CLI is looked for in node_modules, on PATH and in its usual install places; install it with
\`npm install -g @anthropic-ai/claude-code\` (or @openai/codex), or \`code-agent install claude|codex\`.

Exit codes: 0 success, 1 the agent run failed, 2 usage error, 3 agent CLI not found,
130 interrupted (Ctrl-C).`;

/** Parses `argv` (without `node` and the script). Throws {@link UsageError}. */
export function parseCliArgs(argv: string[]): CliArgs {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw usageErrorFor(error);
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: "help" };
  if (values.version) return { command: "version" };

  if (positionals[0] === "install" && positionals.length >= 2 && positionals.length <= 3) {
    const [, target = "", explicitVersion] = positionals;
    const [name = "", atVersion] = target.split("@");
    if (isInstallableBackend(name)) {
      return parseInstall(values, name, explicitVersion ?? atVersion);
    }
    if (BACKENDS.includes(name as BackendKind)) {
      throw new UsageError(
        `${name} cannot be installed by code-agent (it is not on npm); only ${INSTALLABLE_BACKENDS.join(" and ")} can`,
      );
    }
  }
  for (const flag of ["cache-dir", "force"] as const) {
    if (values[flag] !== undefined) throw new UsageError(`--${flag} only applies to \`code-agent install\``);
  }

  const agent = values.agent;
  const backend = values.backend ?? (agent !== undefined ? "acp" : "claude");
  if (!BACKENDS.includes(backend as BackendKind)) {
    throw new UsageError(
      `--backend must be one of ${BACKENDS.join(", ")} (got ${JSON.stringify(backend)})${didYouMean(backend, BACKENDS)}`,
    );
  }
  if (agent !== undefined && backend !== "acp") {
    throw new UsageError(`--agent names an ACP agent; it does not apply to --backend ${backend}`);
  }
  if (agent !== undefined && agent.trim() === "")
    throw new UsageError("--agent needs an agent name or command");
  if (backend === "acp" && agent === undefined && !values.demo) {
    throw new UsageError(`--backend acp needs --agent (${ACP_AGENTS.join(", ")}, or the agent's command)`);
  }
  const permissionMode = values["permission-mode"];
  if (permissionMode !== undefined && !PERMISSION_MODES.includes(permissionMode as PermissionMode)) {
    throw new UsageError(
      `--permission-mode must be one of ${PERMISSION_MODES.join(", ")} (got ${JSON.stringify(permissionMode)})${didYouMean(permissionMode, PERMISSION_MODES)}`,
    );
  }
  const rememberIn = values["remember-in"] ?? "session";
  if (!REMEMBER_DESTINATIONS.includes(rememberIn as RememberDestination)) {
    throw new UsageError(`--remember-in must be one of ${REMEMBER_DESTINATIONS.join(", ")}`);
  }
  let maxTurns: number | undefined;
  if (values["max-turns"] !== undefined) {
    maxTurns = Number(values["max-turns"]);
    if (!/^\d+$/.test(values["max-turns"]) || !Number.isSafeInteger(maxTurns) || maxTurns < 1) {
      throw new UsageError(
        `--max-turns must be a whole number of at least 1 (got ${JSON.stringify(values["max-turns"])})`,
      );
    }
  }
  let cwd: string | undefined;
  if (values.cwd !== undefined) {
    cwd = resolve(values.cwd);
    if (!isDirectory(cwd)) throw new UsageError(`--cwd ${JSON.stringify(values.cwd)} is not a directory`);
  }
  for (const [flag, list] of [
    ["--allow", values.allow],
    ["--deny", values.deny],
  ] as const) {
    for (const entry of list ?? []) {
      if (entry.trim() === "") throw new UsageError(`${flag} needs a tool name`);
    }
  }
  const settingSources = parseSettingSources(values["setting-sources"]);
  const prompt = positionals.length > 0 ? positionals.join(" ") : undefined;
  return {
    command: "run",
    backend: backend as BackendKind,
    agent,
    model: values.model,
    cwd,
    allow: values.allow ?? [],
    deny: values.deny ?? [],
    permissionMode: permissionMode as PermissionMode | undefined,
    rememberIn: rememberIn as RememberDestination,
    maxTurns,
    settingSources,
    resume: values.resume,
    cliPath: values["cli-path"] !== undefined ? resolve(values["cli-path"]) : undefined,
    json: values.json ?? false,
    interactive: values.interactive ?? false,
    thinking: values.thinking ?? false,
    demo: values.demo ?? false,
    prompt,
  };
}

function parseInstall(
  values: ReturnType<typeof parse>["values"],
  backend: InstallableBackend,
  version?: string,
): InstallArgs {
  const runOnly = [
    "backend",
    "agent",
    "model",
    "cwd",
    "allow",
    "deny",
    "permission-mode",
    "remember-in",
    "max-turns",
    "setting-sources",
    "resume",
    "cli-path",
    "interactive",
    "thinking",
    "demo",
  ] as const;
  const misplaced = runOnly.filter((flag) => values[flag] !== undefined);
  if (misplaced.length > 0) {
    throw new UsageError(`\`code-agent install\` does not take ${misplaced.map((f) => `--${f}`).join(", ")}`);
  }
  if (version !== undefined && version.trim() === "") throw new UsageError("the version after @ is empty");
  return {
    command: "install",
    backend,
    version,
    cacheDir: values["cache-dir"] !== undefined ? resolve(values["cache-dir"]) : undefined,
    force: values.force ?? false,
    json: values.json ?? false,
  };
}

/**
 * `parseArgs`' errors rewritten for a person at a shell: an unknown flag gets the nearest known
 * one, and every message names the flag as typed.
 */
function usageErrorFor(error: unknown): UsageError {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code;
  const flag = /'(-[^'\s]*)/.exec(message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && flag !== undefined) {
    const name = flag.replace(/^--?/, "").split("=")[0] ?? "";
    const known = Object.keys(OPTIONS);
    const suggestion = flag.startsWith("--") ? closest(name, known) : undefined;
    if (suggestion !== undefined)
      return new UsageError(`unknown option ${flag}; did you mean --${suggestion}?`);
    return new UsageError(
      `unknown option ${flag} (a prompt that starts with "-" goes after --, as in: code-agent -- '${flag} …')`,
    );
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const name = /'(--?[\w-]+)/.exec(message)?.[1];
    if (name !== undefined && message.includes("argument missing"))
      return new UsageError(`${name} needs a value`);
    if (name !== undefined && message.includes("does not take an argument")) {
      return new UsageError(`${name} does not take a value`);
    }
  }
  return new UsageError(message.split("\n")[0] ?? message);
}

const SETTING_SOURCES: readonly SettingSource[] = ["user", "project", "local"];

function parseSettingSources(value: string | undefined): SettingSource[] | undefined {
  if (value === undefined) return undefined;
  const sources = value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  for (const source of sources) {
    if (!SETTING_SOURCES.includes(source as SettingSource)) {
      throw new UsageError(
        `--setting-sources takes a comma-separated list of ${SETTING_SOURCES.join(", ")} (got ${JSON.stringify(source)})${didYouMean(source, SETTING_SOURCES)}`,
      );
    }
  }
  return [...new Set(sources)] as SettingSource[];
}

function didYouMean(value: string, candidates: readonly string[]): string {
  const suggestion = closest(value, candidates);
  return suggestion !== undefined ? `; did you mean ${suggestion}?` : "";
}

const OPTIONS = {
  backend: { type: "string" },
  agent: { type: "string" },
  model: { type: "string" },
  cwd: { type: "string" },
  allow: { type: "string", multiple: true },
  deny: { type: "string", multiple: true },
  "permission-mode": { type: "string" },
  "remember-in": { type: "string" },
  "max-turns": { type: "string" },
  "setting-sources": { type: "string" },
  resume: { type: "string" },
  "cli-path": { type: "string" },
  json: { type: "boolean" },
  interactive: { type: "boolean", short: "i" },
  thinking: { type: "boolean" },
  demo: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
  "cache-dir": { type: "string" },
  force: { type: "boolean" },
} as const;

function parse(argv: string[]) {
  return parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
