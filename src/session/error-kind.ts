/**
 * Why a turn failed, in the classes of {@link ErrorKind}, from what any CLI reports: an HTTP
 * status, a provider error type or code (Anthropic `rate_limit_error`, OpenAI `insufficient_quota`,
 * Codex `codexErrorInfo`), Claude Code's assistant `error` field, and the error text.
 */
import type { ErrorKind } from "../messages.js";

/** What a session saw of a failed turn. */
export interface FailureFacts {
  /** The HTTP status of the failed API call, when the CLI reported it. */
  status: number | null;
  /** A class the CLI itself named (Claude's assistant `error`, Codex's `codexErrorInfo`). */
  cliKind: string | undefined;
  /** Error texts the CLI printed for the turn (result text, error events). */
  texts: string[];
  /** The turn's stop reason, when the CLI gave one. */
  stopReason: string | null | undefined;
}

/** The classification of a failed turn. */
export interface FailureClass {
  errorKind: ErrorKind;
  retryAfterMs: number | null;
  resetsAt: string | null;
}

/** Provider error types and codes, and CLI-named classes, by kind (checked before texts). */
const NAMED: ReadonlyArray<[RegExp, ErrorKind]> = [
  [/insufficient_quota|usage_?limit|usagelimitexceeded|quota/i, "usage_limit"],
  [/context_length_exceeded|contextwindowexceeded|context_too_long/i, "context_too_long"],
  [/max_output_tokens|max_tokens/i, "max_output_tokens"],
  [/billing/i, "billing_error"],
  [/authentication|unauthorized|permission_error/i, "authentication_failed"],
  [/overloaded|server_is_overloaded/i, "overloaded"],
  [/rate_?limit/i, "rate_limit"],
  [/invalid_request|badrequest|invalid_prompt/i, "invalid_request"],
  [/server_error|api_error|internalservererror/i, "server_error"],
  [/httpconnectionfailed|connection/i, "network"],
];

/** Texts, by kind, most specific first. */
const TEXTS: ReadonlyArray<[RegExp, ErrorKind]> = [
  [
    /usage limit|insufficient_quota|exceeded your current quota|quota exceeded|out of credits|plan limit/i,
    "usage_limit",
  ],
  [
    /context_length_exceeded|context window|context length|prompt is too long|maximum context|too many input tokens/i,
    "context_too_long",
  ],
  [/max_output_tokens|output token maximum|max output tokens/i, "max_output_tokens"],
  [/credit balance|billing|payment required/i, "billing_error"],
  [
    /authentication|unauthori[sz]ed|invalid api key|invalid x-api-key|not logged in|please run \/login|permission_error|forbidden/i,
    "authentication_failed",
  ],
  [/overloaded|service unavailable|at capacity/i, "overloaded"],
  [/rate.?limit|too many requests/i, "rate_limit"],
  [
    /econnrefused|econnreset|enotfound|etimedout|connection refused|connection error|unable to connect|fetch failed|error sending request|stream disconnected|transport error|network/i,
    "network",
  ],
  [/invalid_request|bad request|invalid request/i, "invalid_request"],
  [/internal server error|server_error|api_error|bad gateway|gateway timeout|high demand/i, "server_error"],
];

/** Classes a CLI gives to several statuses at once: the status, when known, says more. */
const BROAD: ReadonlySet<ErrorKind> = new Set(["server_error", "invalid_request", "rate_limit", "unknown"]);

/** The kind an HTTP status means by itself. */
function kindOfStatus(status: number): ErrorKind | undefined {
  if (status === 429) return "rate_limit";
  if (status === 529 || status === 503) return "overloaded";
  if (status === 401 || status === 403) return "authentication_failed";
  if (status === 402) return "billing_error";
  if (status === 413) return "context_too_long";
  if (status >= 500 && status < 600) return "server_error";
  if (status >= 400 && status < 500) return "invalid_request";
  return undefined;
}

/**
 * An HTTP status written in an error text (`API Error: 429 …`, `last status: 503 Service …`, an ACP
 * agent's `Internal error: 400 …`).
 */
export function statusInText(text: string): number | null {
  const match = /(?:error|status(?: code)?|http)\W{0,3}([45]\d\d)\b/i.exec(text);
  return match ? Number(match[1]) : null;
}

/** Classifies a failed turn. Never throws. */
export function classifyFailure(facts: FailureFacts, now = Date.now()): FailureClass {
  const texts = facts.texts.filter((t) => typeof t === "string" && t !== "");
  const text = texts.join("\n").slice(0, 20_000);
  const status = facts.status ?? statusInText(text);
  const named = facts.cliKind !== undefined ? firstMatch(NAMED, facts.cliKind) : undefined;
  const byStatus = status !== null ? kindOfStatus(status) : undefined;
  // A CLI's broad class (Claude names a 529 `server_error`) yields to what the status says.
  const errorKind =
    firstMatch(TEXTS, text) ??
    (named !== undefined && !BROAD.has(named) ? named : undefined) ??
    byStatus ??
    named ??
    (facts.stopReason === "max_tokens" ? "max_output_tokens" : undefined) ??
    "unknown";
  return {
    errorKind,
    retryAfterMs: errorKind === "rate_limit" || errorKind === "overloaded" ? retryAfterIn(text) : null,
    resetsAt: errorKind === "usage_limit" ? resetTimeIn(text, now) : null,
  };
}

function firstMatch(table: ReadonlyArray<[RegExp, ErrorKind]>, text: string): ErrorKind | undefined {
  for (const [pattern, kind] of table) if (pattern.test(text)) return kind;
  return undefined;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `retry after 12 seconds`, `try again in 1.5s`, `retry-after: 30`: in milliseconds, else `null`. */
function retryAfterIn(text: string): number | null {
  const match =
    /(?:retry[- ]after|try again in|retry in)\s*:?\s*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)?\b/i.exec(
      text,
    );
  if (!match) return null;
  const unit = (match[2] ?? "s").toLowerCase();
  const key = unit === "ms" || unit.startsWith("milli") ? "ms" : (unit[0] ?? "s");
  const ms = Number(match[1]) * (UNIT_MS[key] ?? 1000);
  return Number.isFinite(ms) ? Math.round(ms) : null;
}

/**
 * When a usage limit resets: Claude Code's `…usage limit reached|<epoch seconds>`, an ISO time, or
 * `try again in <n> <unit>` (from `now`). `null` when the text says nothing usable.
 */
function resetTimeIn(text: string, now: number): string | null {
  const epoch =
    /limit reached\|(\d{9,11})\b/i.exec(text) ?? /resets?(?:_at| at)?\D{0,3}(\d{10})\b/i.exec(text);
  if (epoch) return isoOf(Number(epoch[1]) * 1000);
  const iso = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))/.exec(text);
  if (iso?.[1]) return isoOf(Date.parse(iso[1]));
  const after = retryAfterIn(text);
  return after !== null ? isoOf(now + after) : null;
}

function isoOf(ms: number): string | null {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}
