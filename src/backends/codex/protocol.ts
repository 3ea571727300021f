/**
 * The `codex app-server` shapes this backend sends and reads, hand-written from what codex 0.169.0
 * generates (`codex app-server generate-ts`). Only the fields we use are typed; everything else
 * stays in the `raw` of the messages built from them. (`codex exec --json` events are read
 * field by field in `exec-events.ts` and `items.ts`.)
 */

// ── codex app-server: JSON-RPC 2.0 over JSON lines ──

/** A JSON-RPC id. The server numbers its own requests from 0, independently of ours. */
export type JsonRpcId = number | string;

/** `Turn` of `turn/start`, `turn/started`, `turn/completed`. */
export interface Turn {
  id: string;
  status: "completed" | "interrupted" | "failed" | "inProgress";
  error: { message: string; codexErrorInfo?: unknown; additionalDetails?: string | null } | null;
  durationMs?: number | null;
}

/** `initialize` params. */
export interface InitializeParams {
  clientInfo: { name: string; title: string | null; version: string };
  capabilities: { experimentalApi: boolean; requestAttestation: boolean } | null;
}

/** Approval policies the app-server accepts (`AskForApproval`, without the `granular` object form). */
export type AskForApproval = "untrusted" | "on-request" | "never";

/** Sandbox modes (`SandboxMode`). */
export type SandboxMode = "read-only" | "workspace-write" | "danger-full-access";

/** `thread/start` params (the subset we send). */
export interface ThreadStartParams {
  cwd?: string;
  model?: string;
  approvalPolicy?: AskForApproval;
  sandbox?: SandboxMode;
  /** Config overrides for this thread, as `-c` takes them: dotted key → value. */
  config?: Record<string, unknown>;
}

/** `thread/start` / `thread/resume` result (the fields we read). */
export interface ThreadStartResult {
  thread: { id: string; [key: string]: unknown };
  model?: string;
  [key: string]: unknown;
}

/** One input item of `turn/start` (`UserInput`, the variants we send). */
export type UserInput =
  | { type: "text"; text: string; text_elements: [] }
  | { type: "image"; url: string }
  | { type: "localImage"; path: string };

/** `turn/start` params (the subset we send). */
export interface TurnStartParams {
  threadId: string;
  input: UserInput[];
  model?: string;
  outputSchema?: Record<string, unknown>;
}

/** `turn/start` result. */
export interface TurnStartResult {
  turn: Turn;
}

/** `thread/tokenUsage/updated` breakdown (`TokenUsageBreakdown`). */
export interface TokenUsageBreakdown {
  totalTokens: number;
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteInputTokens?: number;
  outputTokens: number;
  reasoningOutputTokens: number;
}

/** Decision for `item/commandExecution/requestApproval` and `item/fileChange/requestApproval`. */
export type ApprovalDecision = "accept" | "acceptForSession" | "decline" | "cancel";

/**
 * Decision for the legacy `execCommandApproval` / `applyPatchApproval` requests (`ReviewDecision`):
 * a denial carries the reason the model is told.
 */
export type ReviewDecision =
  | "approved"
  | "approved_for_session"
  | { denied: { rejection: string } }
  | "abort";

/** JSON-RPC error code for a method the receiver does not implement. */
export const METHOD_NOT_FOUND = -32601;
