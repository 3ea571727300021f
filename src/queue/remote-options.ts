/**
 * What may cross from a producer to a worker machine: plain data only. Callbacks, in-process MCP
 * servers, custom transports and abort signals live in the producer's memory, so they are refused
 * when the run is enqueued instead of being silently dropped on the way.
 */
import { InvalidOptionsError } from "../errors.js";
import type { McpSdkServerConfig, McpServerConfig } from "../mcp/config.js";
import type { AgentOptions } from "../options.js";
import { validateAgentOptions } from "../options-schema.js";
import type { UserContentBlock } from "../prompt.js";
import type { SealedEnv } from "./auth.js";
import { durationIssue } from "./job-policy.js";

/** Options that only make sense in the process that holds them, with the reason shown to the caller. */
const IN_PROCESS_ONLY = {
  canUseTool:
    "a permission callback cannot run on a worker machine; pass it as enqueue({ canUseTool }) to answer the worker's requests from here, or give the worker its own",
  hooks: "hook callbacks cannot run on a worker machine; give the worker its own hooks",
  stderr: "a callback cannot run on a worker machine; give the worker its own stderr callback",
  onCliInstallProgress: "a callback cannot run on a worker machine",
  signal: "an AbortSignal cannot cross machines; use the run handle's cancel()",
  transport: "a custom transport is an in-process object; workers spawn their CLI",
  telemetry:
    "providers are in-process objects; give the worker its own telemetry (the producer's active span travels with the job)",
} as const satisfies Record<InProcessOnly, string>;

/** The options refused at enqueue because they only exist in the producer process. */
export type InProcessOnly =
  | "canUseTool"
  | "hooks"
  | "stderr"
  | "onCliInstallProgress"
  | "signal"
  | "transport"
  | "telemetry";

/** An MCP server a worker can start itself (stdio, SSE, HTTP): not an in-process `sdk` server. */
export type RemoteMcpServerConfig = Exclude<McpServerConfig, McpSdkServerConfig>;

/** {@link AgentOptions} without the fields that cannot cross to a worker machine (per backend). */
export type RemoteAgentOptions = AgentOptions extends infer O
  ? O extends unknown
    ? Omit<O, InProcessOnly | "mcpServers"> &
        ("mcpServers" extends keyof O
          ? { mcpServers?: Record<string, RemoteMcpServerConfig> | string }
          : unknown)
    : never
  : never;

/** A prompt that can be sent to a worker: text or content blocks (a streamed prompt cannot). */
export type RemotePrompt = string | UserContentBlock[];

/** The payload of one queued run, as stored in the BullMQ job. */
export interface AgentJobData {
  /** Format version, so a worker can refuse a payload it does not understand. */
  v: 1;
  prompt: RemotePrompt;
  options: RemoteAgentOptions;
  /** Per-run time limit in milliseconds; the worker's default when absent. */
  timeoutMs?: number;
  /** Set when the producer answers permission requests: how long the worker waits for an answer. */
  remotePermissions?: { timeoutMs: number };
  /**
   * The run's Ed25519 public key (SPKI DER, base64): the worker accepts a permission decision or a
   * cancellation of this run only when signed with the matching private key, which only the
   * producer that enqueued it holds.
   */
  auth?: { runKey: string };
  /** `options.env`, encrypted with the queue key (AES-256-GCM), when the producer has one. */
  sealedEnv?: SealedEnv;
  /** HMAC of the rest of the job (its JSON text) with the queue key, when the producer has one. */
  mac?: string;
  /** The producer's active span (W3C), when it had one: the worker's spans become its children. */
  trace?: { traceparent: string; tracestate?: string };
}

/** Every reason `options` and `prompt` cannot be sent to a worker, as `path: message`. */
export function remoteRunIssues(prompt: unknown, options: Record<string, unknown>): string[] {
  const issues: string[] = [];
  if (typeof prompt !== "string" && !Array.isArray(prompt))
    issues.push(
      "prompt: a streamed (AsyncIterable) prompt cannot be queued; pass a string or content blocks",
    );
  else findNonData(prompt, "prompt", issues);
  for (const [key, why] of Object.entries(IN_PROCESS_ONLY))
    if (options[key] !== undefined) issues.push(`${key}: ${why}`);
  const mcp = options.mcpServers;
  if (mcp && typeof mcp === "object")
    for (const [name, server] of Object.entries(mcp))
      if ((server as { type?: unknown } | undefined)?.type === "sdk")
        issues.push(
          `mcpServers.${name}: an in-process (sdk) MCP server cannot run on a worker machine; run it as a stdio or http server`,
        );
  for (const [key, value] of Object.entries(options))
    if (!(key in IN_PROCESS_ONLY) && key !== "mcpServers") findNonData(value, key, issues);
  return issues;
}

/**
 * Checks a run before it is queued: the cross-machine rules above, then the same validation
 * `query()` applies, so a bad option fails at `enqueue()` rather than on some worker later.
 */
export function toJobData(
  prompt: unknown,
  options: Record<string, unknown>,
  timeoutMs?: number,
  permissionTimeoutMs?: number,
): AgentJobData {
  const issues = remoteRunIssues(prompt, options);
  for (const issue of [
    durationIssue("timeoutMs", timeoutMs),
    durationIssue("permissionTimeoutMs", permissionTimeoutMs),
  ])
    if (issue) issues.push(issue);
  if (issues.length > 0) throw new InvalidOptionsError(issues);
  validateAgentOptions(options);
  return {
    v: 1,
    prompt: prompt as RemotePrompt,
    options: portableEnv(options) as RemoteAgentOptions,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(permissionTimeoutMs !== undefined ? { remotePermissions: { timeoutMs: permissionTimeoutMs } } : {}),
  };
}

/** Records every function, symbol, bigint or class instance below `value` (JSON would lose them). */
function findNonData(value: unknown, path: string, issues: string[]): void {
  if (value === null || value === undefined) return;
  const type = typeof value;
  if (type === "string" || type === "boolean") return;
  if (type === "number") {
    if (!Number.isFinite(value)) issues.push(`${path}: ${String(value)} does not survive JSON`);
    return;
  }
  if (type !== "object") {
    issues.push(`${path}: a ${type} cannot be sent to a worker machine`);
    return;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) findNonData(item, `${path}[${i}]`, issues);
    return;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    issues.push(
      `${path}: a ${proto?.constructor?.name ?? "class"} instance cannot be sent to a worker machine`,
    );
    return;
  }
  for (const [key, item] of Object.entries(value)) findNonData(item, `${path}.${key}`, issues);
}

/** `env: { X: undefined }` removes X on the worker too: JSON would drop the key, so it travels as null. */
function portableEnv(options: Record<string, unknown>): Record<string, unknown> {
  const env = options.env as Record<string, string | undefined> | undefined;
  if (!env) return options;
  return { ...options, env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v ?? null])) };
}

/** The worker's side of {@link portableEnv}. */
export function restoreEnv(
  env: Record<string, string | null> | undefined,
): Record<string, string | undefined> | undefined {
  if (!env) return undefined;
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v ?? undefined]));
}
