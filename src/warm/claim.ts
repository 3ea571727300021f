/**
 * A spare's claim (see spare.ts): the options a claim takes, checked and turned into the
 * `claim_session` request's fields, and what the CLI's answer (or refusal) says.
 */
import { isAbsolute, resolve } from "node:path";
import { ControlRequestError, InvalidOptionsError } from "../errors.js";
import type { AgentOptions } from "../options.js";
import type { PermissionMode } from "../permissions.js";
import { signalOptionIssue } from "../signals/abort.js";

/** What a claim binds the spare to (see `SpareSession.claim`). */
export interface ClaimOptions {
  /** The session's folder (required); a relative path resolves against this process's `cwd`, `~/…` is the CLI's. */
  cwd: string;
  /** Further directories the session may use (as the query option `addDirs`); relative entries resolve against `cwd`. */
  additionalDirectories?: string[];
  /** The model for the session (sent right after the claim; a refusal rejects `claimed` with `option-not-applied`). */
  model?: string;
  /** The thinking budget (like `model`: after the claim). */
  maxThinkingTokens?: number | null;
  /**
   * The permission mode, part of the claim itself: a mode the process cannot take refuses the
   * claim (the session never runs under another mode than the one asked for).
   */
  permissionMode?: PermissionMode;
  /** Text appended to the spare's system prompt for this session. */
  appendSystemPrompt?: string;
  /** The session's title. */
  title?: string;
  /**
   * Per-session environment additions the CLI accepts at claim time (Claude Code 2.1:
   * `CLAUDE_CODE_OAUTH_TOKEN`, `CLAUDE_CODE_SESSION_ACCESS_TOKEN`, `CLAUDE_CODE_HOST_SESSION_ID`);
   * any other key refuses the claim.
   */
  env?: Record<string, string>;
  /** Aborts the claimed query (and ends the process). */
  signal?: AbortSignal;
  /** As the query option `exitTimeoutMs`. */
  exitTimeoutMs?: number;
}

/** The CLI's answer to a claim. */
export interface ClaimInfo {
  /** The session's folder, as the CLI resolved it. */
  cwd: string;
  /** The id of the session the spare now runs. */
  sessionId: string;
  /** How long the spare had waited, in ms (as the CLI reports it). */
  parkedMs?: number;
  /** Whether the in-process MCP servers had finished their handshakes at the claim. */
  sdkMcpSettled: boolean;
}

/** The options of the query a claim runs (the rest of {@link ClaimOptions} goes into the claim). */
export function claimQueryOptions(options: ClaimOptions): AgentOptions {
  return {
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
    ...(options.exitTimeoutMs !== undefined ? { exitTimeoutMs: options.exitTimeoutMs } : {}),
  };
}

/**
 * Checks claim options as `SpareSession.claim` does, without claiming anything.
 *
 * @throws InvalidOptionsError listing every problem.
 */
export function checkClaimOptions(options: ClaimOptions): void {
  claimFields(options);
}

/** The `claim_session` fields for `options`, checked. */
export function claimFields(options: ClaimOptions): Record<string, unknown> {
  const issues: string[] = [];
  const text = (name: keyof ClaimOptions) => {
    const value = options[name];
    if (value !== undefined && typeof value !== "string") issues.push(`${name}: must be a string`);
  };
  if (typeof options.cwd !== "string" || options.cwd.trim() === "")
    issues.push("cwd: the session's folder is required (a non-empty string)");
  for (const name of ["model", "permissionMode", "appendSystemPrompt", "title"] as const) text(name);
  const dirs = options.additionalDirectories;
  if (dirs !== undefined && !(Array.isArray(dirs) && dirs.every((dir) => typeof dir === "string")))
    issues.push("additionalDirectories: must be an array of strings");
  const env = options.env;
  if (
    env !== undefined &&
    (typeof env !== "object" || env === null || Object.values(env).some((v) => typeof v !== "string"))
  )
    issues.push("env: must be an object of strings");
  const budget = options.maxThinkingTokens;
  if (budget !== undefined && budget !== null && !(Number.isInteger(budget) && budget >= 0))
    issues.push("maxThinkingTokens: must be a non-negative integer or null");
  const signalIssue = signalOptionIssue(options.signal);
  if (signalIssue !== undefined) issues.push(signalIssue);
  if (issues.length > 0) throw new InvalidOptionsError(issues);
  const cwd = options.cwd;
  return {
    // `~` is the CLI's to expand (the user's home as the process sees it).
    cwd: cwd === "~" || cwd.startsWith("~/") || isAbsolute(cwd) ? cwd : resolve(cwd),
    ...(options.permissionMode !== undefined ? { permission_mode: options.permissionMode } : {}),
    ...(env !== undefined ? { env } : {}),
    ...(dirs !== undefined ? { additional_directories: dirs } : {}),
    ...(options.appendSystemPrompt !== undefined ? { append_system_prompt: options.appendSystemPrompt } : {}),
    ...(options.title !== undefined ? { title: options.title } : {}),
  };
}

export function claimInfo(raw: Record<string, unknown>, askedCwd: string): ClaimInfo {
  return {
    cwd: typeof raw.cwd === "string" ? raw.cwd : askedCwd,
    sessionId: typeof raw.session_id === "string" ? raw.session_id : "",
    ...(typeof raw.parked_ms === "number" ? { parkedMs: raw.parked_ms } : {}),
    sdkMcpSettled: raw.sdk_mcp_settled === true,
  };
}

/** The CLI's own words for a refusal (`cwd_not_found: …`), without our request-failure preamble. */
export function reasonText(error: unknown): string {
  if (error instanceof ControlRequestError)
    return error.message.replace(/^Control request "[^"]*" failed: /, "");
  return error instanceof Error ? error.message : String(error);
}
