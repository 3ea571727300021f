/**
 * What a worker takes from a job: deny by default. A job's options come from Redis, where anyone
 * with access can add a BullMQ job, so the worker checks every job itself (never trusting that
 * `enqueue()` did) against an allow-list; everything else is refused unless the operator opted in,
 * field by field, with {@link JobAcceptance}.
 */
import { realpath } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { InvalidOptionsError } from "../errors.js";
import type { BackendKind } from "../options.js";
import { MAX_TIMER_MS, validateAgentOptions } from "../options-schema.js";
import type { PermissionMode } from "../permissions.js";
import { describeValue } from "../wire/safe-json.js";

/**
 * The job fields a worker accepts beyond the safe set (see docs/queue.md, "Running agents across
 * machines"): each is refused unless named here. The worker's own `options` are not checked: they
 * are the operator's.
 */
export interface JobAcceptance {
  /** `backend` values a job may choose. Default `["claude"]`. */
  backends?: readonly BackendKind[];
  /**
   * `permissionMode` values a job may set. Default `["default", "plan", "dontAsk"]`: none that
   * allows more than the worker's own configuration. `bypassPermissions` also needs
   * `allowDangerouslySkipPermissions`.
   */
  permissionModes?: readonly PermissionMode[];
  /**
   * `cwd`, `addDirs` and `projectConfigRoot` from jobs, each inside `root` (an absolute path): checked
   * on the worker with symlinks resolved, just before the run. Default: refused.
   */
  cwd?: { root: string };
  /**
   * `env` from jobs: `true` for any variable, or the names allowed (e.g. `["TZ", "LANG"]`).
   * `inheritEnv` and `cursor.apiKey` need `true`. Default: refused (a job's `ANTHROPIC_BASE_URL`
   * would send this worker's API key elsewhere).
   */
  env?: boolean | readonly string[];
  /**
   * Keep `updatedPermissions` in the producer's permission decisions (they can write permission
   * rules into this machine's settings files). Default: dropped, and reported through `onError`.
   */
  updatedPermissions?: boolean;
  /** `cliPath`: the job names the binary to run. */
  cliPath?: boolean;
  /** `acp` as a whole (`command`, `args`: the binary and its argv; `clientFs`, `terminal`). */
  acp?: boolean;
  /** `codex` as a whole (`approvalPolicy: "never"`, `sandboxMode: "danger-full-access"`, `config`, …). */
  codex?: boolean;
  /** `cursor` as a whole (`forceApprove`, `trustWorkspace`, `sandbox: "disabled"`, …). */
  cursor?: boolean;
  /** `extraArgs`: argv of the job's choosing. */
  extraArgs?: boolean;
  /** `mcpServers` (stdio servers are commands this machine runs). */
  mcpServers?: boolean;
  /** `settings`, `managedSettings` and `sandbox` (settings carry hooks: commands). */
  settings?: boolean;
  /** `settingSources` (project settings of the checkout carry hooks). */
  settingSources?: boolean;
  /** `plugins` (directories of hooks, commands and MCP servers). */
  plugins?: boolean;
  /** `record` (a file this machine writes). */
  record?: boolean;
  /** `user` (the Unix user the CLI runs as). */
  user?: boolean;
  /** `autoInstallCli` (downloads and runs a CLI). */
  autoInstallCli?: boolean;
  /** `debug` and `debugFile` (a file this machine writes). */
  debug?: boolean;
  /**
   * Rules that allow more: `allowedTools`, `skills`, `allowDangerouslySkipPermissions`,
   * `permissionPromptToolName`, `permissionPrompts`, `toolAliases`, `toolConfig`.
   */
  permissions?: boolean;
  /** `agents` and `agent` (subagents carry their own tools, MCP servers and permission mode). */
  agents?: boolean;
  /**
   * `resume`, `resumeSessionAt`, `resumeDropsTurn`, `continueConversation`, `forkSession`,
   * `sessionId`, `enableFileCheckpointing` (another run's session on this machine).
   */
  sessions?: boolean;
  /**
   * Buffer and time limits: `maxBufferSize`, `highWaterMark`, `lowWaterMark`, `maxReaderLagBytes`,
   * `controlTimeoutMs`, `closeGraceMs`, `exitTimeoutMs`, `callbackTimeoutMs`,
   * `backgroundTaskTimeoutMs`, `loadTimeoutMs`.
   */
  tuning?: boolean;
}

/** Fields every job may set: the model, limits, prompt text, output shape, what messages to get. */
const SAFE = new Set([
  "model",
  "fallbackModel",
  "maxTurns",
  "maxBudgetUsd",
  "taskBudget",
  "effort",
  "thinking",
  "maxThinkingTokens",
  "betas",
  "tools",
  "disallowedTools",
  "systemPrompt",
  "planModeInstructions",
  "outputFormat",
  "includePartialMessages",
  "includeHookEvents",
  "forwardSubagentText",
  "promptSuggestions",
  "agentProgressSummaries",
  "verbatimPrompts",
  "title",
  "strictMcpConfig",
  "mcpServersDelivery",
  "pluginDelivery",
  "persistSession",
]);

/** Opt-in fields: the {@link JobAcceptance} flag that admits each, and why it is refused without. */
const GATED: Record<string, [flag: keyof JobAcceptance, why: string]> = {
  cliPath: ["cliPath", "names a binary"],
  extraArgs: ["extraArgs", "adds argv"],
  mcpServers: ["mcpServers", "starts MCP servers"],
  settings: ["settings", "settings carry hooks (commands)"],
  managedSettings: ["settings", "settings carry hooks (commands)"],
  sandbox: ["settings", "changes the sandbox"],
  settingSources: ["settingSources", "loads settings files (hooks)"],
  plugins: ["plugins", "loads plugins (hooks, commands, MCP servers)"],
  record: ["record", "writes a file"],
  user: ["user", "switches the Unix user"],
  autoInstallCli: ["autoInstallCli", "installs a CLI"],
  debug: ["debug", "debug output"],
  debugFile: ["debug", "writes a file"],
  allowedTools: ["permissions", "allows tools without asking"],
  skills: ["permissions", "allows the Skill tool"],
  allowDangerouslySkipPermissions: ["permissions", "permission escalation"],
  permissionPromptToolName: ["permissions", "lets an MCP tool answer permission prompts"],
  permissionPrompts: ["permissions", "changes who answers permission prompts"],
  toolAliases: ["permissions", "re-routes tool calls"],
  toolConfig: ["permissions", "configures tools"],
  agents: ["agents", "subagents carry their own tools and permissions"],
  agent: ["agents", "runs the main thread as another agent"],
  resume: ["sessions", "opens a session on this machine"],
  resumeSessionAt: ["sessions", "opens a session on this machine"],
  resumeDropsTurn: ["sessions", "opens a session on this machine"],
  continueConversation: ["sessions", "opens a session on this machine"],
  forkSession: ["sessions", "opens a session on this machine"],
  sessionId: ["sessions", "names the session"],
  enableFileCheckpointing: ["sessions", "keeps file checkpoints"],
  inheritEnv: ["env", "the environment"],
  maxBufferSize: ["tuning", "a resource limit of this machine"],
  highWaterMark: ["tuning", "a resource limit of this machine"],
  lowWaterMark: ["tuning", "a resource limit of this machine"],
  maxReaderLagBytes: ["tuning", "a resource limit of this machine"],
  controlTimeoutMs: ["tuning", "a resource limit of this machine"],
  closeGraceMs: ["tuning", "a resource limit of this machine"],
  exitTimeoutMs: ["tuning", "a resource limit of this machine"],
  callbackTimeoutMs: ["tuning", "a resource limit of this machine"],
  backgroundTaskTimeoutMs: ["tuning", "a resource limit of this machine"],
  loadTimeoutMs: ["tuning", "a resource limit of this machine"],
};

/** Backend sections: the sub-fields (and values) any job may set; the rest need the section's flag. */
const SAFE_SECTION_VALUES: Record<"codex" | "cursor" | "acp", Record<string, readonly unknown[] | "any">> = {
  codex: {
    reasoningEffort: "any",
    approvalPolicy: ["untrusted", "on-request"],
    sandboxMode: ["read-only", "workspace-write"],
    networkAccess: [false],
    skipGitRepoCheck: "any",
  },
  cursor: { mode: "any", partialOutput: "any", sandbox: ["enabled"] },
  acp: { agent: "any", mode: "any", authMethod: "any", clientFs: [false], terminal: [false] },
};

const DEFAULT_BACKENDS: readonly BackendKind[] = ["claude"];
const DEFAULT_PERMISSION_MODES: readonly PermissionMode[] = ["default", "plan", "dontAsk"];

/** Each refused field (its path) and why, as `path: reason`. Empty when the options are accepted. */
export function refusedFields(options: Record<string, unknown>, accept: JobAcceptance = {}): string[] {
  const out: string[] = [];
  const refuse = (path: string, why: string, flag: string) =>
    out.push(`${path}: ${why} (refused by default; the worker accepts it with accept.${flag})`);
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || SAFE.has(key)) continue;
    const gated = Object.hasOwn(GATED, key) ? GATED[key] : undefined;
    if (gated) {
      if (accept[gated[0]] !== true) refuse(key, gated[1], gated[0]);
      continue;
    }
    switch (key) {
      case "backend": {
        const allowed = accept.backends ?? DEFAULT_BACKENDS;
        if (!allowed.includes(value as BackendKind))
          out.push(
            `backend: ${describeValue(value)} is not accepted by this worker (accept.backends: ${allowed.join(", ")})`,
          );
        break;
      }
      case "permissionMode": {
        const allowed = accept.permissionModes ?? DEFAULT_PERMISSION_MODES;
        if (!allowed.includes(value as PermissionMode))
          out.push(
            `permissionMode: ${describeValue(value)} is not accepted by this worker (accept.permissionModes: ${allowed.join(", ")})`,
          );
        break;
      }
      case "env": {
        if (accept.env === true) break;
        if (!accept.env || !value || typeof value !== "object") {
          refuse(
            "env",
            "the environment (a job's ANTHROPIC_BASE_URL would send this worker's key elsewhere)",
            "env",
          );
          break;
        }
        for (const name of Object.keys(value))
          if (!accept.env.includes(name)) out.push(`env.${name}: not in accept.env`);
        break;
      }
      case "cwd":
      case "addDirs":
      case "projectConfigRoot":
        if (!accept.cwd) refuse(key, "a path on this machine", "cwd");
        break;
      case "codex":
      case "cursor":
      case "acp":
        if (accept[key] === true) break;
        if (!value || typeof value !== "object" || Array.isArray(value)) {
          refuse(key, "backend options", key);
          break;
        }
        for (const [sub, subValue] of Object.entries(value)) {
          if (subValue === undefined) continue;
          const section = SAFE_SECTION_VALUES[key];
          const safe = Object.hasOwn(section, sub) ? section[sub] : undefined;
          if (safe === "any" || safe?.includes(subValue)) continue;
          if (key === "cursor" && sub === "apiKey" && accept.env === true) continue;
          refuse(
            `${key}.${sub}`,
            sub === "command" || sub === "args"
              ? "names a binary and its argv"
              : "widens what the agent may do",
            key,
          );
        }
        break;
      default:
        out.push(`${key}: not accepted from a queue job (set it in the worker's own options)`);
    }
  }
  return out;
}

/** A positive number of milliseconds a Node timer can wait (at most 2^31−1). */
export function durationIssue(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS)
    return `${name}: must be a number of milliseconds in (0, ${MAX_TIMER_MS}] (Node timers cannot wait longer)`;
  return undefined;
}

/**
 * The job's paths (`cwd`, `addDirs`, `projectConfigRoot`; a relative one is relative to `root`)
 * checked to be inside `root` with symlinks resolved: `issues` names those outside; `options` has
 * each path replaced by its resolved form.
 */
export async function confinePaths(
  options: Record<string, unknown>,
  root: string,
): Promise<{ issues: string[]; options: Record<string, unknown> }> {
  const out: string[] = [];
  const confined: Record<string, unknown> = { ...options };
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    return { issues: [`accept.cwd.root: ${root} cannot be resolved (${code})`], options };
  }
  const dirs = Array.isArray(options.addDirs) ? [...(options.addDirs as unknown[])] : undefined;
  if (dirs) confined.addDirs = dirs;
  const paths: [string, unknown][] = [
    ["cwd", options.cwd],
    ["projectConfigRoot", options.projectConfigRoot],
    ...(Array.isArray(options.addDirs)
      ? options.addDirs.map((d, i) => [`addDirs[${i}]`, d] as [string, unknown])
      : []),
  ];
  for (const [name, value] of paths) {
    if (value === undefined) continue;
    if (typeof value !== "string" || value === "" || value.includes("\0")) {
      out.push(`${name}: not a path`);
      continue;
    }
    const lexical = resolve(realRoot, value);
    if (!inside(realRoot, lexical)) {
      out.push(`${name}: ${value} is outside accept.cwd.root (${root})`);
      continue;
    }
    try {
      const real = await realpath(lexical);
      if (!inside(realRoot, real)) {
        out.push(`${name}: ${value} leads outside accept.cwd.root (${root}) through a symlink`);
        continue;
      }
      if (name.startsWith("addDirs[") && dirs) dirs[Number(name.slice(8, -1))] = real;
      else confined[name] = real;
    } catch (error) {
      out.push(`${name}: ${value} cannot be resolved (${(error as NodeJS.ErrnoException).code ?? "error"})`);
    }
  }
  return { issues: out, options: confined };
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** Checks an {@link JobAcceptance} given to `AgentWorker.start`; throws `InvalidOptionsError`. */
export function checkAcceptance(accept: unknown): JobAcceptance {
  if (accept === undefined) return {};
  if (!accept || typeof accept !== "object" || Array.isArray(accept))
    throw new InvalidOptionsError(["accept: expected an object"]);
  const a = accept as JobAcceptance;
  const issues: string[] = [];
  if (a.cwd !== undefined && (typeof a.cwd?.root !== "string" || !isAbsolute(a.cwd.root)))
    issues.push("accept.cwd.root: must be an absolute path");
  if (a.env !== undefined && typeof a.env !== "boolean" && !Array.isArray(a.env))
    issues.push("accept.env: expected true or a list of variable names");
  for (const list of ["backends", "permissionModes"] as const)
    if (a[list] !== undefined && !Array.isArray(a[list])) issues.push(`accept.${list}: expected a list`);
  if (issues.length > 0) throw new InvalidOptionsError(issues);
  return a;
}

/**
 * The option checks `query()` would run, as issues instead of a throw (so a bad job is refused with
 * every reason at once).
 */
export function optionIssues(options: Record<string, unknown>): string[] {
  try {
    validateAgentOptions(options);
    return [];
  } catch (error) {
    if (error instanceof InvalidOptionsError) return [...error.issues];
    throw error;
  }
}
