/**
 * What it takes to run each npm coding agent that speaks the Agent Client Protocol offline against
 * the fake model servers of `code-agent-sdk/testing`: its package, how to start it (the native binary
 * where the package has one, so no npm launcher sits between us and the process), its ACP and
 * headless flags, the credentials, config files and switches that point it at a fake model with no
 * telemetry or update checks, the tools its model is offered, and the side calls it makes on its own.
 * Everything an agent preset needs lives here, in one place.
 *
 * Verified offline (loopback only) with the versions in {@link AcpAgentPreset.testedVersion}; the
 * captures behind these settings are described in the project's ACP protocol notes.
 *
 * @module
 */

import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { nodeAtLeast } from "../backends/acp/presets.js";
import type { ChatSideCall } from "./chat/server.js";
import { tomlKey, tomlString } from "./codex-home.js";
import type { GeminiSideCall } from "./gemini/server.js";
import { nodeCompileCacheDir } from "./shared/compile-cache.js";
import { sampleFromJsonSchema } from "./shared/side-calls.js";
import { removeDirOnce } from "./shared/temp-dir.js";

/** The ACP agents the testing kit knows. */
export type AcpAgentName =
  | "gemini"
  | "qwen"
  | "opencode"
  | "copilot"
  | "kilo"
  | "droid"
  | "cline"
  | "codebuddy"
  | "kimi";

/** Every {@link AcpAgentName}, in the order of the README table. */
export const ACP_AGENT_NAMES: readonly AcpAgentName[] = [
  "gemini",
  "qwen",
  "opencode",
  "copilot",
  "kilo",
  "droid",
  "cline",
  "codebuddy",
  "kimi",
];

/** The model API an agent calls: Gemini `generateContent`, or OpenAI Chat Completions. */
export type AcpAgentModelApi = "gemini" | "chat-completions";

/** A tool call of the agent's own tool vocabulary: the function name and its arguments. */
export interface AgentToolCall {
  /** Function name as the agent offers it to the model. */
  name: string;
  /** Arguments in the agent's schema. */
  args: Record<string, unknown>;
}

/** Static knowledge about one ACP agent. */
export interface AcpAgentPreset {
  /** Short name, e.g. `"gemini"`. */
  name: AcpAgentName;
  /** Product name, e.g. `"Gemini CLI"`. */
  displayName: string;
  /** The npm package, e.g. `"@google/gemini-cli"`. */
  packageName: string;
  /** The version verified offline here. */
  testedVersion: string;
  /** The command it installs on `PATH` (used when the package is not found in `node_modules`). */
  pathCommand: string;
  /** Arguments that start the ACP server on stdio. */
  acpArgs: readonly string[];
  /** Arguments of one headless run that prints a JSON event stream, for `prompt`. */
  headlessArgs(prompt: string): string[];
  /** Which model API it calls (which fake server to start). */
  api: AcpAgentModelApi;
  /** The model's call of the agent's shell tool. */
  shellCall(command: string): AgentToolCall;
  /** The model's call of the agent's file-creating tool (absolute path). */
  writeFileCall(path: string, content: string): AgentToolCall;
  /**
   * Its own model requests that should not consume scripted turns (title generation, memory and
   * suggestion sub-agents). Gemini's JSON-mode router is answered by the Gemini fake by default.
   */
  chatSideCalls: readonly ChatSideCall[];
  /** Side calls for the Gemini fake (none beyond its built-in JSON-mode answer). */
  geminiSideCalls: readonly GeminiSideCall[];
  /** Known limitations, verbatim enough to act on. */
  notes: readonly string[];
  /**
   * After a `session/cancel`, prompts of that session that arrive within this many milliseconds are
   * answered `cancelled` at once without running (CodeBuddy Code's "cancel barrier", 500 ms): wait
   * this long after the cancelled turn's result before the next prompt. Absent: no such window.
   */
  cancelBarrierMs?: number;
  /**
   * The oldest Node (`major.minor.patch`) its Node script runs on: on an older Node the kit finds
   * no command for it and {@link acpAgentUnavailableReason} says so. Absent: any Node.
   */
  minNode?: string;
}

/** The resolved executable of an installed agent. */
export interface AcpAgentCommand {
  /** The executable (`process.execPath` for a Node script, else the native binary). */
  command: string;
  /** Arguments before the agent's own (the script path for a Node script). */
  prefixArgs: string[];
  /** Where it was found. */
  source: "node_modules" | "path";
}

const titleSideCall: ChatSideCall = {
  name: "title",
  match: (r) => r.systemText.startsWith("You are a title generator") && r.toolNames.length === 0,
  turn: { text: "Fake title" },
};

const qwenSideCalls: ChatSideCall[] = [
  {
    name: "qwen-suggestion",
    match: (r) => r.lastUserText.startsWith("[SUGGESTION MODE"),
    turn: { text: "" },
  },
  {
    name: "qwen-memory",
    match: (r) => r.lastUserText.includes("Managed memory has TWO directories"),
    turn: { text: "No memories to save." },
  },
  {
    // The auto-mode security classifier (only in mode `auto`): answer through its schema tool.
    name: "qwen-classifier",
    match: (r) => r.toolNames.includes("respond_in_schema"),
    turn: (r) => {
      const tools = (r.body?.tools ?? []) as Array<{ function?: { name?: string; parameters?: unknown } }>;
      const tool = tools.find((t) => t.function?.name === "respond_in_schema");
      return { toolCall: { name: "respond_in_schema", arguments: sampleArgs(tool?.function?.parameters) } };
    },
  },
];

/** CodeBuddy Code's session title request, sent without tools before each turn. */
const codebuddyTitleSideCall: ChatSideCall = {
  name: "codebuddy-title",
  match: (r) =>
    r.systemText.startsWith("Generate a concise, sentence-case title") && r.toolNames.length === 0,
  turn: { text: "Fake title" },
};

/** Factory Droid's session title request, sent without tools before the first turn. */
const droidTitleSideCall: ChatSideCall = {
  name: "droid-title",
  match: (r) => r.systemText.includes("generates concise session titles") && r.toolNames.length === 0,
  turn: { text: "Fake title" },
};

/** Filled-in arguments for a tool's parameter schema. */
function sampleArgs(schema: unknown): Record<string, unknown> {
  const value = sampleFromJsonSchema(schema);
  return value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** The presets, keyed by name. */
export const ACP_AGENTS: Readonly<Record<AcpAgentName, AcpAgentPreset>> = {
  gemini: {
    name: "gemini",
    displayName: "Gemini CLI",
    packageName: "@google/gemini-cli",
    testedVersion: "0.61.0",
    pathCommand: "gemini",
    acpArgs: ["--acp", "--skip-trust"],
    headlessArgs: (prompt) => [
      "-p",
      prompt,
      "--output-format",
      "stream-json",
      "--skip-trust",
      "--approval-mode",
      "yolo",
    ],
    api: "gemini",
    shellCall: (command) => ({ name: "run_shell_command", args: { command, description: "run a command" } }),
    writeFileCall: (path, content) => ({ name: "write_file", args: { file_path: path, content } }),
    chatSideCalls: [],
    geminiSideCalls: [],
    notes: [
      "session/load in the UTC minute the session's file is named by (the minute the session started) fails with -32603 'No previous sessions found for this project.' and destroys the stored history: the loader starts its own recording under the same id, which in that minute is the same file.",
      "write_file through client fs/* fails for a new file: it reads the target first and gives up on 'Resource not found'.",
      "Headless mode offers run_shell_command/write_file only with --approval-mode yolo.",
      "A refused permission is reported to the model ('Tool \"run_shell_command\" was canceled by the user.'), which answers in the same turn.",
    ],
  },
  qwen: {
    name: "qwen",
    displayName: "Qwen Code",
    packageName: "@qwen-code/qwen-code",
    testedVersion: "0.24.4",
    pathCommand: "qwen",
    acpArgs: ["--acp", "--auth-type", "openai"],
    headlessArgs: (prompt) => [
      "-p",
      prompt,
      "--output-format",
      "stream-json",
      "--auth-type",
      "openai",
      "--approval-mode",
      "yolo",
    ],
    api: "chat-completions",
    shellCall: (command) => ({ name: "run_shell_command", args: { command, description: "run a command" } }),
    writeFileCall: (path, content) => ({ name: "write_file", args: { file_path: path, content } }),
    chatSideCalls: qwenSideCalls,
    geminiSideCalls: [],
    notes: [
      "ACP sessions start in mode 'auto' (an LLM classifier runs before tools) unless settings say tools.approvalMode 'default' (createAcpAgentEnv writes that).",
      "Sends the non-standard request craft/drainMidTurnQueue (answer -32601) and qwen/notify/* notifications.",
      "Wants node >= 22 (EBADENGINE) but runs on node 20.",
      "A refused permission ends the turn (end_turn) without another model request.",
    ],
  },
  opencode: {
    name: "opencode",
    displayName: "OpenCode",
    packageName: "opencode-ai",
    testedVersion: "1.18.33",
    pathCommand: "opencode",
    acpArgs: ["acp"],
    headlessArgs: (prompt) => ["run", "--format", "json", "--auto", prompt],
    api: "chat-completions",
    shellCall: (command) => ({ name: "bash", args: { command, description: "run a command" } }),
    writeFileCall: (path, content) => ({ name: "write", args: { filePath: path, content } }),
    chatSideCalls: [titleSideCall],
    geminiSideCalls: [],
    notes: [
      "Asks permission only when its config says so (createAcpAgentEnv writes permission bash/edit 'ask' unless askPermissions is false).",
      "Looks up registry.npmjs.org at start (fails offline, harmless).",
      "A refused permission ends the turn (end_turn) without another model request.",
    ],
  },
  copilot: {
    name: "copilot",
    displayName: "GitHub Copilot CLI",
    packageName: "@github/copilot",
    testedVersion: "1.0.102",
    pathCommand: "copilot",
    acpArgs: ["--acp", "--no-auto-update"],
    headlessArgs: (prompt) => [
      "-p",
      prompt,
      "--output-format",
      "json",
      "--no-auto-update",
      "--allow-all-tools",
    ],
    api: "chat-completions",
    shellCall: (command) => ({ name: "bash", args: { command, description: "run a command" } }),
    writeFileCall: (path, content) => ({ name: "create", args: { path, file_text: content } }),
    chatSideCalls: [],
    geminiSideCalls: [],
    notes: [
      "Writes files itself (tool 'create'), not through client fs/*.",
      "Mode ids are URLs (https://agentclientprotocol.com/protocol/session-modes#agent).",
      "A refused permission ends the turn (end_turn) without another model request.",
    ],
  },
  kilo: {
    name: "kilo",
    displayName: "Kilo Code CLI",
    packageName: "@kilocode/cli",
    testedVersion: "7.7.7",
    pathCommand: "kilo",
    acpArgs: ["acp"],
    headlessArgs: (prompt) => ["run", "--format", "json", "--auto", prompt],
    api: "chat-completions",
    shellCall: (command) => ({ name: "bash", args: { command, description: "run a command" } }),
    writeFileCall: (path, content) => ({ name: "write", args: { filePath: path, content } }),
    chatSideCalls: [titleSideCall],
    geminiSideCalls: [],
    notes: [
      "7.8.1 does not install (its platform package is missing from the registry); 7.7.7 does.",
      "An OpenCode fork: same config schema, permission 'ask' needed for prompts.",
      "A refused permission ends the turn (end_turn) without another model request.",
    ],
  },
  droid: {
    name: "droid",
    displayName: "Factory Droid",
    packageName: "@factory/cli",
    testedVersion: "0.225.2",
    pathCommand: "droid",
    acpArgs: ["exec", "--output-format", "acp"],
    headlessArgs: (prompt) => ["exec", "--output-format", "stream-json", "--auto", "high", prompt],
    api: "chat-completions",
    // Execute refuses a call without its risk classification (riskLevelReason, riskLevel).
    shellCall: (command) => ({
      name: "Execute",
      args: { command, riskLevelReason: "a scripted test command", riskLevel: "low" },
    }),
    writeFileCall: (path, content) => ({ name: "Create", args: { file_path: path, content } }),
    chatSideCalls: [droidTitleSideCall],
    geminiSideCalls: [],
    notes: [
      "@factory/cli 0.225.1 does not install (its platform package @factory/cli-linux-x64@0.225.1 is missing from the registry); the platform package @factory/cli-linux-x64@0.225.2 alone does, and holds the whole native binary.",
      "Offline only in Airgap Mode (FACTORY_AIRGAP_ENABLED): otherwise it resolves api.factory.ai at start and offers Factory's hosted models beside the custom one.",
      "Sends a tool-less session title request ('generates concise session titles') with the first prompt.",
      "Its shell tool Execute fails a call without riskLevelReason and riskLevel. With a client terminal it runs commands through terminal/create; without one it runs them itself (factory-execute-supervisor, a process group of its own that its watcher kills up to ~2 s after the agent is gone) and its updates name a terminal id the client never saw.",
      "Its ACP adapter holds back a model response's text until the response ends (to retract a failed attempt): a stalled stream shows no agent_message_chunk until it is cancelled.",
      "In mode normal it runs commands it deems read-only (ls, git status) without asking; in auto-low / auto-medium it trusts the riskLevel the model declares.",
      "Writes files itself (Create / Edit, kind edit), not through client fs/*; a refused permission ends the turn (end_turn) without another model request.",
    ],
  },
  cline: {
    name: "cline",
    displayName: "Cline",
    packageName: "cline",
    testedVersion: "3.0.65",
    pathCommand: "cline",
    acpArgs: ["--acp"],
    headlessArgs: (prompt) => ["--json", "--auto-approve", "true", "--", prompt],
    api: "chat-completions",
    shellCall: (command) => ({ name: "run_commands", args: { commands: [command] } }),
    writeFileCall: (path, content) => ({ name: "editor", args: { path, new_text: content } }),
    chatSideCalls: [],
    geminiSideCalls: [],
    notes: [
      "Only the platform package (@cline/cli-<os>-<arch>) is needed: the `cline` package's bin is a Node launcher of it.",
      "Its `cline` provider calls `<CLINE_API_BASE_URL>/api/v1/chat/completions` (and GET /api/v1/users/me, answered 404 by the fake, harmless); the `local` environment's built-in http://localhost:7777 applies only when CLINE_API_BASE_URL is unset, so no port forwarder is needed.",
      "Without CLINE_SESSION_BACKEND_MODE=local it starts a detached hub daemon (127.0.0.1:25463) that outlives the process group; the SDK's preset adds it where the environment has none.",
      "A refused permission goes back to the model as the tool's error ('User rejected the tool call …'), which answers in the same turn.",
      "Announces a tool call with tool_call_update (pending) and asks permission before it sends tool_call.",
      "CLINE_MODEL (the kit's `model`) counts only when it names a model of Cline's catalog: otherwise its requests ask for its default, anthropic/claude-sonnet-5 (the fake answers any).",
      "PostHog feature flags (data.cline.bot) are off only with E2E_TEST=true; OpenTelemetry (otel.cline.bot) only with telemetryOptOut in global-settings.json.",
      "Writes files itself (tool 'editor', kind edit), not through client fs/*; run_commands takes an array of commands.",
    ],
  },
  codebuddy: {
    name: "codebuddy",
    displayName: "CodeBuddy Code",
    packageName: "@tencent-ai/agent-sdk",
    testedVersion: "0.3.201",
    pathCommand: "codebuddy",
    acpArgs: ["--acp"],
    headlessArgs: (prompt) => [
      "-p",
      prompt,
      "--output-format",
      "stream-json",
      "--permission-mode",
      "bypassPermissions",
    ],
    api: "chat-completions",
    shellCall: (command) => ({ name: "Bash", args: { command, description: "run a command" } }),
    writeFileCall: (path, content) => ({ name: "Write", args: { file_path: path, content } }),
    chatSideCalls: [codebuddyTitleSideCall],
    geminiSideCalls: [],
    notes: [
      "The CLI (@tencent-ai/codebuddy-code 2.117.0) is bundled in @tencent-ai/agent-sdk under cli/; its bin/codebuddy is a Node script that loads the bundle in-process (run on this Node).",
      "Wraps the prompt in <user_query>…</user_query> after <system-reminder> blocks (the fakes keep the user_query text).",
      "Sends a tool-less session title request ('Generate a concise, sentence-case title') before each turn.",
      "A refused permission ends the turn as cancelled (stopReason 'cancelled'), not end_turn, without another model request.",
      "After session/cancel, a prompt within 500 ms is answered 'cancelled' without running (its cancel barrier, see cancelBarrierMs).",
      "A session/cancel while no prompt runs (one racing a turn's end) is kept for the next prompt that runs: it runs whole (model called, tools run) but ends as cancelled.",
    ],
    cancelBarrierMs: 500,
  },
  kimi: {
    name: "kimi",
    displayName: "Kimi Code",
    packageName: "@moonshot-ai/kimi-code",
    testedVersion: "2.1.0",
    pathCommand: "kimi",
    acpArgs: ["acp"],
    // Prompt mode approves tools itself (it refuses --yolo / --auto beside --prompt).
    headlessArgs: (prompt) => ["-p", prompt, "--output-format", "stream-json"],
    api: "chat-completions",
    shellCall: (command) => ({ name: "Bash", args: { command } }),
    writeFileCall: (path, content) => ({ name: "Write", args: { path, content } }),
    chatSideCalls: [],
    geminiSideCalls: [],
    minNode: "22.19.0",
    notes: [
      "Needs Node >= 22.19 (its engines): on Node 20 the bundle does not load (node:zlib has no createZstdDecompress); the kit runs dist/main.mjs on this Node only from 22.19 on.",
      "Permission requests carry no rawInput: { title: 'Bash', content: 'Requesting approval to Running: <command, cut to 50 characters + …>' } ('Writing <path>' / 'Editing <path>' for files); the arguments come before as streamed JSON in tool_call_update content, rawInput only after the approval.",
      "Runs shell commands in a client terminal (terminal/create) when the client offers terminals, and reads its login shell's environment (bash -l -c /usr/bin/env) at start.",
      "Modes default / plan / yolo ('Ask When Needed': dangerous commands still ask) / auto ('Never Ask'); the ACP mode descriptions call yolo 'everything' and auto 'safe operations', the reverse of what they do. No acceptEdits.",
    ],
  },
};

/** Options for {@link createAcpAgentEnv}. */
export interface AcpAgentEnvOptions {
  /**
   * The fake model server's base URL, without `/v1` (a fake server's `url`): Gemini agents get it as
   * `GOOGLE_GEMINI_BASE_URL`, Chat Completions agents as `<url>/v1`.
   */
  baseUrl: string;
  /** The agent's working directory. Default: a new `work` directory inside the temp home. */
  cwd?: string;
  /** The model name sent to a Chat Completions server. Default `"fake-model"`. */
  model?: string;
  /**
   * OpenCode and Kilo only: write `permission: { bash: "ask", edit: "ask" }` into their config so they
   * send `session/request_permission` (they allow everything by default). Default true.
   */
  askPermissions?: boolean;
  /** Extra environment, merged last. */
  env?: Record<string, string>;
}

/** An isolated environment for one agent, from {@link createAcpAgentEnv}. */
export interface AcpAgentEnv extends AsyncDisposable {
  /** The agent. */
  agent: AcpAgentPreset;
  /** Executable to spawn. */
  command: string;
  /** Arguments that start its ACP server (prefix + `acpArgs`). */
  args: string[];
  /** The whole environment for the process (not merged with `process.env`). */
  env: Record<string, string>;
  /** Working directory for the process and the ACP session. */
  cwd: string;
  /** The temp `HOME` holding the agent's config files. */
  home: string;
  /** Arguments of a headless run of `prompt` (prefix + `headlessArgs`). */
  headlessArgs(prompt: string): string[];
  /** Removes the temp home. Idempotent. */
  cleanup(): Promise<void>;
}

const FAKE_KEY = "sk-fake-acp-agent-key";

/** Directories to search for `node_modules/<pkg>`: this module's ancestors, then the cwd's. */
function searchRoots(): string[] {
  const roots: string[] = [];
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    roots.push(dir);
    if (dirname(dir) === dir) break;
  }
  for (let dir = resolve(process.cwd()); ; dir = dirname(dir)) {
    if (!roots.includes(dir)) roots.push(dir);
    if (dirname(dir) === dir) break;
  }
  return roots;
}

function findPackageDir(pkg: string): string | undefined {
  for (const root of searchRoots()) {
    const dir = join(root, "node_modules", pkg);
    if (existsSync(join(dir, "package.json"))) return dir;
  }
  return undefined;
}

function binOf(pkgDir: string, name: string): string | undefined {
  try {
    const json = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { bin?: unknown };
    const bin =
      typeof json.bin === "string" ? json.bin : (json.bin as Record<string, string> | undefined)?.[name];
    return bin ? join(pkgDir, bin) : undefined;
  } catch {
    return undefined;
  }
}

function cpuHasAvx2(): boolean {
  try {
    return /\bavx2\b/.test(readFileSync("/proc/cpuinfo", "utf8"));
  } catch {
    return true;
  }
}

/** The first existing native binary among `<pkg>/<rel>` candidates. */
function nativeBinary(candidates: ReadonlyArray<[pkg: string, rel: string]>): string | undefined {
  for (const [pkg, rel] of candidates) {
    const dir = findPackageDir(pkg);
    const file = dir && join(dir, rel);
    if (file && existsSync(file)) return file;
  }
  return undefined;
}

/**
 * Finds an installed agent: the native binary of its platform package where it has one (OpenCode,
 * Copilot, Kilo — their npm launchers run it with `spawnSync` and do not forward signals), the Node
 * entry script otherwise (Gemini CLI's bundle; Qwen's `cli.js` under `--expose-gc`, as its launcher
 * would; CodeBuddy's `cli/bin/codebuddy` inside `@tencent-ai/agent-sdk`; Kimi Code's
 * `dist/main.mjs`, only on a Node as new as its {@link AcpAgentPreset.minNode}), searched in
 * `node_modules` of this package's and the working directory's ancestors.
 *
 * @param agent - The agent.
 * @returns The command, or undefined when the package is not installed there (or this Node is
 *   older than the agent needs).
 */
export function resolveAcpAgentCommand(agent: AcpAgentName): AcpAgentCommand | undefined {
  const platform = `${process.platform}-${process.arch}`;
  const fromModules = (command: string, prefixArgs: string[] = []): AcpAgentCommand => ({
    command,
    prefixArgs,
    source: "node_modules",
  });
  switch (agent) {
    case "gemini": {
      const dir = findPackageDir("@google/gemini-cli");
      const script = dir && binOf(dir, "gemini");
      return script && existsSync(script) ? fromModules(process.execPath, [script]) : undefined;
    }
    case "qwen": {
      const dir = findPackageDir("@qwen-code/qwen-code");
      const script = dir && join(dir, "cli.js");
      return script && existsSync(script)
        ? fromModules(process.execPath, ["--expose-gc", script])
        : undefined;
    }
    case "opencode": {
      const variants = cpuHasAvx2() ? ["", "-baseline"] : ["-baseline", ""];
      const bin = nativeBinary(
        variants.map((v) => [`opencode-${platform}${v}`, "bin/opencode"] as [string, string]),
      );
      return bin ? fromModules(bin) : undefined;
    }
    case "copilot": {
      const bin = nativeBinary([[`@github/copilot-${platform}`, "copilot"]]);
      return bin ? fromModules(bin) : undefined;
    }
    case "kilo": {
      const bin = nativeBinary([[`@kilocode/cli-${platform}`, "bin/kilo"]]);
      return bin ? fromModules(bin) : undefined;
    }
    case "droid": {
      // The platform package holds the whole CLI; @factory/cli's launcher is not needed.
      const variants = cpuHasAvx2() ? ["", "-baseline"] : ["-baseline", ""];
      const bin = nativeBinary(
        variants.map((v) => [`@factory/cli-${platform}${v}`, "bin/droid"] as [string, string]),
      );
      return bin ? fromModules(bin) : undefined;
    }
    case "cline": {
      const os = process.platform === "win32" ? "windows" : process.platform;
      const bin = nativeBinary([[`@cline/cli-${os}-${process.arch}`, "bin/cline"]]);
      return bin ? fromModules(bin) : undefined;
    }
    case "codebuddy": {
      // The bundled CLI's bin is a Node script that loads its bundle in-process: run it on this Node.
      const dir = findPackageDir("@tencent-ai/agent-sdk");
      const script = dir && join(dir, "cli", "bin", "codebuddy");
      return script && existsSync(script) ? fromModules(process.execPath, [script]) : undefined;
    }
    case "kimi": {
      // A Node bundle (no native package on npm): runs on this Node, if it is new enough.
      const dir = findPackageDir("@moonshot-ai/kimi-code");
      const script = dir && binOf(dir, "kimi");
      if (!script || !existsSync(script) || !nodeIsAtLeast(ACP_AGENTS.kimi.minNode)) return undefined;
      return fromModules(process.execPath, [script]);
    }
  }
}

/** Whether this Node is at least `min` (`major.minor.patch`); true without a minimum. */
function nodeIsAtLeast(min: string | undefined): boolean {
  return min === undefined || nodeAtLeast(process.versions.node, min);
}

/**
 * Why an agent cannot run here, or undefined when it can: for test `skipIf` messages.
 *
 * @param agent - The agent.
 * @returns The reason, e.g. `"@kilocode/cli is not installed (npm i -D @kilocode/cli@7.7.7)"`.
 */
export function acpAgentUnavailableReason(agent: AcpAgentName): string | undefined {
  if (resolveAcpAgentCommand(agent)) return undefined;
  const p = ACP_AGENTS[agent];
  if (!nodeIsAtLeast(p.minNode)) {
    return `${p.packageName} ${p.testedVersion} (${p.displayName}) needs Node >= ${p.minNode} (this is ${process.versions.node})`;
  }
  return `${p.packageName} (or its platform binary) is not installed: npm i -D ${p.packageName}@${p.testedVersion}`;
}

function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** opencode.json / kilo.json: one OpenAI-compatible provider `fake` pointing at the server. */
function openCodeConfig(baseUrlV1: string, model: string, ask: boolean): Record<string, unknown> {
  return {
    $schema: "https://opencode.ai/config.json",
    model: `fake/${model}`,
    small_model: `fake/${model}`,
    enabled_providers: ["fake"],
    autoupdate: false,
    share: "disabled",
    provider: {
      fake: {
        npm: "@ai-sdk/openai-compatible",
        name: "Fake",
        options: { baseURL: baseUrlV1, apiKey: FAKE_KEY },
        models: { [model]: { name: model, tool_call: true, limit: { context: 100_000, output: 4096 } } },
      },
    },
    ...(ask ? { permission: { bash: "ask", edit: "ask" } } : {}),
  };
}

/**
 * Creates a temp `HOME` with the agent's config files and returns how to start it against a fake
 * model server, offline:
 *
 * - **gemini**: `GEMINI_API_KEY`, `GOOGLE_GEMINI_BASE_URL`, `GEMINI_CLI_NO_RELAUNCH`, telemetry off;
 *   `~/.gemini/settings.json` with `security.auth.selectedType: "gemini-api-key"`, folder trust,
 *   auto-update and usage statistics off; `--skip-trust`.
 * - **qwen**: `OPENAI_API_KEY`/`OPENAI_BASE_URL`/`OPENAI_MODEL`, `--auth-type openai`,
 *   `QWEN_CODE_NO_RELAUNCH`; `~/.qwen/settings.json` with updates, statistics and telemetry off and
 *   `tools.approvalMode: "default"` (sessions ask permission instead of starting in mode `auto`).
 * - **opencode** / **kilo**: `~/.config/{opencode,kilo}/{opencode,kilo}.json` with an
 *   `@ai-sdk/openai-compatible` provider `fake` (and `permission` ask, see
 *   {@link AcpAgentEnvOptions.askPermissions}), XDG dirs in the home, the `*_DISABLE_*` switches for
 *   updates, model fetches, sharing, LSP downloads and telemetry.
 * - **droid**: `FACTORY_API_KEY`, `FACTORY_AIRGAP_ENABLED=1` (no Factory backend: no DNS lookup of
 *   api.factory.ai, feature flags, org settings, telemetry, update or changelog checks), auto-update
 *   and keyring off, `OTEL_SDK_DISABLED`; `~/.factory/settings.json` with one `customModels` entry
 *   (`provider: "generic-chat-completion-api"`, displayName = the model) selected as
 *   `custom:<model>-0` for ACP sessions and headless runs, cloud session sync off.
 * - **copilot**: `COPILOT_OFFLINE=true`, `COPILOT_PROVIDER_*` (type openai, wire API completions),
 *   `COPILOT_HOME`, auto-update off; no GitHub login.
 * - **codebuddy**: `~/.codebuddy/models.json` with one custom model (`url` = `<base>/v1/chat/completions`)
 *   selected by `CODEBUDDY_MODEL`, `CODEBUDDY_API_KEY` (no login), `CODEBUDDY_REMOTE_CONFIG_DISABLED`,
 *   telemetry, auto-update, memory sub-agents, session summaries and cloud audit off.
 * - **cline**: its `cline` provider with `CLINE_API_KEY` and `CLINE_API_BASE_URL` = the server's
 *   base (it calls `<base>/api/v1/chat/completions`, which the Chat Completions fake answers),
 *   `CLINE_ENVIRONMENT=local` (anything not covered by the override would go to loopback
 *   `localhost:7777`, not to cline.bot), `CLINE_SESSION_BACKEND_MODE=local` (no detached hub
 *   daemon), `CLINE_NO_AUTO_UPDATE`, `E2E_TEST=true` (no PostHog feature-flag client);
 *   `~/.cline/data/settings/global-settings.json` with `telemetryOptOut` (no OpenTelemetry export)
 *   and auto-update off. No port forwarder: the `local` environment's fixed `localhost:7777` is only
 *   the default that `CLINE_API_BASE_URL` replaces, so every environment has its own fake server on
 *   its own ephemeral port and any number of them (vitest workers included) run at once.
 *
 * - **kimi**: `~/.kimi-code/config.toml` (`KIMI_CODE_HOME`) with an `openai` provider `fake` at the
 *   server's `/v1` and the model as the default, telemetry off; `KIMI_DISABLE_TELEMETRY`,
 *   `KIMI_CODE_NO_AUTO_UPDATE`, no model-catalog refresh at start or on an interval;
 *   `NODE_COMPILE_CACHE` in a private per-user directory under the temp dir (its bundle's compile
 *   takes seconds at each start).
 *
 * `PATH` comes from `process.env`; `TMPDIR` is inside the home.
 *
 * @param agent - The agent.
 * @param options - Server URL, working directory, model, permissions, extra env.
 * @returns The environment; dispose it (or call `cleanup`) to remove the home.
 * @throws Error when the agent is not installed (see {@link acpAgentUnavailableReason}).
 */
export function createAcpAgentEnv(agent: AcpAgentName, options: AcpAgentEnvOptions): AcpAgentEnv {
  const preset = ACP_AGENTS[agent];
  const resolved = resolveAcpAgentCommand(agent);
  if (!resolved) throw new Error(acpAgentUnavailableReason(agent));
  const base = options.baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
  const baseV1 = `${base}/v1`;
  const model = options.model ?? "fake-model";
  const home = mkdtempSync(join(tmpdir(), `acp-${agent}-home-`));
  const tmp = join(home, "tmp");
  mkdirSync(tmp, { recursive: true });
  const cwd = options.cwd ?? join(home, "work");
  mkdirSync(cwd, { recursive: true });
  const env: Record<string, string> = {
    HOME: home,
    TMPDIR: tmp,
    DO_NOT_TRACK: "1",
    NO_UPDATE_NOTIFIER: "1",
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local", "state"),
  };
  if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
  switch (agent) {
    case "gemini":
      Object.assign(env, {
        GEMINI_API_KEY: FAKE_KEY,
        GOOGLE_GEMINI_BASE_URL: base,
        GEMINI_CLI_NO_RELAUNCH: "true",
        GEMINI_TELEMETRY_ENABLED: "false",
      });
      writeJson(join(home, ".gemini", "settings.json"), {
        security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
        privacy: { usageStatisticsEnabled: false },
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        telemetry: { enabled: false },
      });
      break;
    case "qwen":
      Object.assign(env, {
        OPENAI_API_KEY: FAKE_KEY,
        OPENAI_BASE_URL: baseV1,
        OPENAI_MODEL: model,
        QWEN_CODE_NO_RELAUNCH: "true",
      });
      writeJson(join(home, ".qwen", "settings.json"), {
        general: { enableAutoUpdate: false, disableAutoUpdate: true },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        // Sessions otherwise start in mode `auto`, where an LLM classifier replaces permission prompts.
        tools: { approvalMode: "default" },
      });
      break;
    case "opencode":
      Object.assign(env, {
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
        OPENCODE_DISABLE_SHARE: "1",
      });
      writeJson(
        join(home, ".config", "opencode", "opencode.json"),
        openCodeConfig(baseV1, model, options.askPermissions ?? true),
      );
      break;
    case "kilo":
      Object.assign(env, {
        KILO_DISABLE_AUTOUPDATE: "1",
        KILO_DISABLE_MODELS_FETCH: "1",
        KILO_DISABLE_SHARE: "1",
        KILO_DISABLE_SESSION_INGEST: "1",
        KILO_DISABLE_PRESENCE: "1",
        KILO_DISABLE_CODEBASE_INDEXING: "1",
        KILO_DISABLE_LSP_DOWNLOAD: "1",
        KILO_DISABLE_DEFAULT_PLUGINS: "1",
        KILO_NO_DAEMON: "1",
        KILO_TELEMETRY_LEVEL: "off",
      });
      writeJson(
        join(home, ".config", "kilo", "kilo.json"),
        openCodeConfig(baseV1, model, options.askPermissions ?? true),
      );
      break;
    case "droid": {
      Object.assign(env, {
        FACTORY_API_KEY: FAKE_KEY,
        // No Factory backend at all: no api.factory.ai lookups, feature flags, org settings,
        // OpenTelemetry export, update or changelog checks; only custom (BYOK) models.
        FACTORY_AIRGAP_ENABLED: "1",
        FACTORY_DROID_AUTO_UPDATE_ENABLED: "false",
        FACTORY_DISABLE_KEYRING: "1",
        OTEL_SDK_DISABLED: "true",
      });
      // Its model ids are `custom:<displayName, blanks as dashes>-<index>`.
      const id = `custom:${model.trim().replace(/\s+/g, "-")}-0`;
      writeJson(join(home, ".factory", "settings.json"), {
        customModels: [
          {
            model,
            displayName: model,
            baseUrl: baseV1,
            apiKey: FAKE_KEY,
            provider: "generic-chat-completion-api",
            maxOutputTokens: 4096,
          },
        ],
        // `model` is what `droid exec` (headless) runs; sessionDefaultSettings what ACP sessions start with.
        model: id,
        sessionDefaultSettings: { model: id },
        cloudSessionSync: false,
      });
      break;
    }
    case "copilot":
      Object.assign(env, {
        COPILOT_OFFLINE: "true",
        COPILOT_PROVIDER_BASE_URL: baseV1,
        COPILOT_PROVIDER_TYPE: "openai",
        COPILOT_PROVIDER_API_KEY: FAKE_KEY,
        COPILOT_PROVIDER_WIRE_API: "completions",
        COPILOT_PROVIDER_WIRE_MODEL: model,
        COPILOT_MODEL: "gpt-4.1",
        COPILOT_HOME: join(home, ".copilot"),
        COPILOT_AUTO_UPDATE: "false",
      });
      break;
    case "cline":
      Object.assign(env, {
        CLINE_ENVIRONMENT: "local",
        CLINE_API_BASE_URL: base,
        CLINE_API_KEY: FAKE_KEY,
        CLINE_PROVIDER: "cline",
        CLINE_MODEL: model,
        // In-process sessions: the default (`auto`) starts a detached hub daemon that outlives us.
        CLINE_SESSION_BACKEND_MODE: "local",
        CLINE_NO_AUTO_UPDATE: "1",
        // The only switch of its PostHog feature-flag client (data.cline.bot).
        E2E_TEST: "true",
      });
      writeJson(join(home, ".cline", "data", "settings", "global-settings.json"), {
        telemetryOptOut: true,
        autoUpdateEnabled: false,
      });
      break;
    case "codebuddy":
      Object.assign(env, {
        CODEBUDDY_API_KEY: FAKE_KEY,
        CODEBUDDY_MODEL: model,
        CODEBUDDY_REMOTE_CONFIG_DISABLED: "1",
        CODEBUDDY_DISABLE_BUILTIN_MODELS: "1",
        CODEBUDDY_SKIP_BUILTIN_MARKETPLACE: "1",
        CODEBUDDY_GIT_REPO_SCAN_DISABLED: "1",
        CODEBUDDY_DISABLE_AUTO_MEMORY: "1",
        CODEBUDDY_MEMORY_EXTRACTION_DISABLED: "1",
        CODEBUDDY_MEMORY_RELEVANCE_DISABLED: "1",
        CODEBUDDY_CODE_DISABLE_SESSION_SUMMARY: "1",
        CODEBUDDY_DISABLE_CRON: "1",
        CODEBUDDY_DISABLE_IDE: "1",
        CODEBUDDY_DISABLE_HOT_RELOAD: "1",
        CODEBUDDY_SANDBOX_CLOUD_AUDIT_DISABLED: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_AUTOUPDATER: "1",
      });
      // A custom model (`custom-local:<id>`) served by the fake: the URL gets `/chat/completions`.
      writeJson(join(home, ".codebuddy", "models.json"), {
        models: [
          {
            id: model,
            name: model,
            vendor: "OpenAI",
            url: `${baseV1}/chat/completions`,
            apiKey: FAKE_KEY,
            maxInputTokens: 100_000,
            maxOutputTokens: 4096,
            supportsToolCall: true,
            supportsImages: false,
          },
        ],
        availableModels: [model],
      });
      break;
    case "kimi": {
      const kimiHome = join(home, ".kimi-code");
      Object.assign(env, {
        KIMI_CODE_HOME: kimiHome,
        KIMI_DISABLE_TELEMETRY: "1",
        KIMI_CODE_NO_AUTO_UPDATE: "1",
        KIMI_CODE_MODEL_CATALOG_REFRESH_ON_START: "0",
        KIMI_CODE_MODEL_CATALOG_REFRESH_INTERVAL_MS: "0",
      });
      // Its 21 MB bundle compiles in seconds at each start: Node 22's compile cache keeps it.
      const cache = nodeCompileCacheDir();
      if (cache !== undefined) env.NODE_COMPILE_CACHE = cache;
      mkdirSync(kimiHome, { recursive: true });
      writeFileSync(
        join(kimiHome, "config.toml"),
        [
          `default_model = ${tomlString(model)}`,
          "telemetry = false",
          "",
          "[providers.fake]",
          'type = "openai"',
          `base_url = ${tomlString(baseV1)}`,
          `api_key = ${tomlString(FAKE_KEY)}`,
          "",
          `[models.${tomlKey(model)}]`,
          'provider = "fake"',
          `model = ${tomlString(model)}`,
          "max_context_size = 100000",
          "",
          "[model_catalog]",
          "refresh_on_start = false",
          "refresh_interval_ms = 0",
          "",
        ].join("\n"),
      );
      break;
    }
  }
  Object.assign(env, options.env ?? {});
  const cleanup = removeDirOnce(home);
  return {
    agent: preset,
    command: resolved.command,
    args: [...resolved.prefixArgs, ...preset.acpArgs],
    env,
    cwd,
    home,
    headlessArgs: (prompt) => [...resolved.prefixArgs, ...preset.headlessArgs(prompt)],
    cleanup,
    [Symbol.asyncDispose]: cleanup,
  };
}
