/**
 * Approval requests of `codex app-server`, turned into `canUseTool` calls and back into answers.
 *
 * | server request                         | `canUseTool` name / input (the unified vocabulary)     |
 * |----------------------------------------|--------------------------------------------------------|
 * | `item/commandExecution/requestApproval`| `Bash`, `{ command, cwd, argv }` (shell wrapper removed)|
 * | `item/fileChange/requestApproval`      | `Write` / `Edit`, `{ file_path, changes, reason, grantRoot }` |
 * | `item/permissions/requestApproval`     | `request_permissions`, `{ permissions, reason, cwd }`  |
 * | legacy `execCommandApproval`           | `Bash`, `{ command, cwd, argv }`                       |
 * | legacy `applyPatchApproval`            | `Write` / `Edit`, `{ file_path, changes, reason, grantRoot }` |
 * | `mcpServer/elicitation/request` for an | `mcp__<server>__<tool>`, the tool arguments            |
 * | MCP tool call (`codex_approval_kind`)  |                                                        |
 *
 * Answers: allow → `accept` (`acceptForSession` when the result has `updatedPermissions`, i.e.
 * "remember this"), deny → `decline`, deny with `interrupt: true` → `cancel` (the turn ends as
 * interrupted). The legacy requests answer `approved` / `approved_for_session` / `{ denied }` /
 * `abort`; only they can carry the deny message to the model. MCP tool approvals (an elicitation
 * whose `_meta.codex_approval_kind` is `mcp_tool_call`) answer `accept` / `decline` / `cancel`.
 */

import type { RawObject } from "../../messages.js";
import type { ResolvedOptions } from "../../options/resolved.js";
import type { PermissionResult, PermissionUpdate } from "../../permissions.js";
import { UNSENDABLE_ANSWER_WARNING } from "../../session/peer-channel.js";
import { settleWithin } from "../../signals/deadline.js";
import { asObject, isObject, str } from "../../wire/read.js";
import { describeError, describeValue, trySerialise } from "../../wire/safe-json.js";
import {
  BASH_TOOL,
  commandInput,
  type FileChangeEntry,
  fileChanges,
  fileChangeTool,
  mcpToolName,
} from "./items.js";
import type { ApprovalDecision, ReviewDecision } from "./protocol.js";

/** How long a `canUseTool` callback may take before the request is declined (`callbackTimeoutMs`). */
export const DEFAULT_CALLBACK_TIMEOUT_MS = 600_000;

/** Tool name for a request for extra sandbox permissions (Codex's `request_permissions` tool). */
export const REQUEST_PERMISSIONS_TOOL = "request_permissions";

/** One approval request, ready for `canUseTool`. */
export interface ApprovalPrompt {
  toolName: string;
  input: Record<string, unknown>;
  toolUseId?: string | undefined;
  description?: string | undefined;
  blockedPath?: string | undefined;
  /** For MCP tools: the server. */
  mcpServer?: { name: string } | undefined;
  /** Offered as `context.suggestions`: returning them as `updatedPermissions` means "remember". */
  suggestions: PermissionUpdate[];
  /** The response for the callback's decision. */
  answer(result: PermissionResult): unknown;
  /** The response that refuses without ending the turn. */
  readonly decline: unknown;
  /** The response that approves once. */
  readonly accept: unknown;
}

/** Finds the items of the running turn an approval request is about. */
export interface ItemLookup {
  byId(id: string): RawObject | undefined;
  /** The most recently started item matching `predicate`. */
  latest(predicate: (item: RawObject) => boolean): RawObject | undefined;
}

/**
 * The approval prompt for a server request, or `undefined` when `method` is not an approval request.
 * `items` finds the item the request is about (file-change requests do not repeat the changes, MCP
 * approvals do not name the call).
 */
export function approvalPrompt(
  method: string,
  params: RawObject,
  items: ItemLookup,
): ApprovalPrompt | undefined {
  const itemById = (id: string) => items.byId(id);
  switch (method) {
    case "item/commandExecution/requestApproval": {
      const item = itemById(str(params.itemId) ?? "");
      const input = commandInput(
        str(params.command) ?? str(item?.command) ?? "",
        str(params.cwd) ?? str(item?.cwd),
      );
      return v2Prompt(BASH_TOOL, input, params, [rule(BASH_TOOL, input.command as string)]);
    }
    case "item/fileChange/requestApproval": {
      const item = itemById(str(params.itemId) ?? "");
      const call = patchCall(fileChanges(item?.changes), params);
      return v2Prompt(call.name, call.input, params, [rule(call.name)], str(params.grantRoot));
    }
    case "item/permissions/requestApproval":
      return permissionsPrompt(params);
    case "execCommandApproval": {
      const argv = Array.isArray(params.command) ? params.command.map(String) : [];
      const input = commandInput(argv, str(params.cwd));
      return legacyPrompt(BASH_TOOL, input, params, [rule(BASH_TOOL, input.command as string)]);
    }
    case "applyPatchApproval": {
      const call = patchCall(legacyFileChanges(params.fileChanges), params);
      return legacyPrompt(call.name, call.input, params, [rule(call.name)]);
    }
    case "mcpServer/elicitation/request":
      return mcpToolPrompt(params, items);
    default:
      return undefined;
  }
}

/** The answer to an approval request, and why it is a refusal when the callback could not decide. */
export interface ApprovalOutcome {
  answer: unknown;
  /** Set when the callback failed (threw, returned nonsense, or rewrote the input): the answer declines. */
  problem?: string;
}

/**
 * Decides one approval request. With `canUseTool`, its result is mapped onto the request's
 * vocabulary; a callback that throws or returns something other than allow/deny declines (never a
 * stalled turn), and so does one that takes longer than `callbackTimeoutMs` (its signal aborts).
 * An allow with an `updatedInput` different from the input declines too: Codex runs
 * what the model asked for or nothing, never something other than what was approved. Without a
 * callback the approval policy decides: accept under `never`, decline otherwise.
 */
export async function decideApproval(
  prompt: ApprovalPrompt,
  options: Pick<ResolvedOptions, "canUseTool" | "codex" | "callbackTimeoutMs">,
  signal: AbortSignal,
  raw: RawObject,
): Promise<ApprovalOutcome> {
  const canUseTool = options.canUseTool;
  if (!canUseTool) {
    return { answer: options.codex?.approvalPolicy === "never" ? prompt.accept : prompt.decline };
  }
  let result: PermissionResult;
  const timeoutMs = options.callbackTimeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS;
  const callback = new AbortController();
  const forward = () => callback.abort(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener("abort", forward, { once: true });
  try {
    const decision = Promise.resolve().then(() =>
      canUseTool(prompt.toolName, prompt.input, {
        signal: callback.signal,
        suggestions: prompt.suggestions,
        toolUseId: prompt.toolUseId,
        blockedPath: prompt.blockedPath,
        description: prompt.description,
        mcpServer: prompt.mcpServer,
        raw,
      }),
    );
    // The wait ends with the session too (`signal`), so a callback that never settles holds no
    // timer once the session closed.
    result = await settleWithin(decision, {
      timeoutMs,
      signal: callback.signal,
      onTimeout: () => {
        const error = new Error(`The canUseTool callback did not answer within ${timeoutMs} ms`);
        callback.abort(error);
        return error;
      },
    });
  } catch (error) {
    // Aborted from outside (the server cancelled the request, or the session closed): the wait ends
    // without a callback failure to report.
    if (signal.aborted) return { answer: prompt.decline };
    return { answer: prompt.decline, problem: describeError(error) };
  } finally {
    signal.removeEventListener("abort", forward);
  }
  try {
    if (result?.behavior !== "allow" && result?.behavior !== "deny") {
      const problem = `canUseTool must return { behavior: "allow" | "deny" }, got ${describeValue(result)}`;
      return { answer: prompt.decline, problem };
    }
    if (result.behavior === "allow" && result.updatedInput) {
      const updated = trySerialise(result.updatedInput);
      if (!updated.ok) {
        const problem = `The updatedInput of canUseTool cannot be sent: ${updated.problem}; the call was declined`;
        process.emitWarning(problem, { code: UNSENDABLE_ANSWER_WARNING });
        return { answer: prompt.decline, problem };
      }
      if (stableJson(JSON.parse(updated.line)) !== stableJson(prompt.input)) {
        return {
          answer: prompt.decline,
          problem: "Codex cannot run a tool with a changed input (updatedInput); the call was declined",
        };
      }
    }
    return { answer: prompt.answer(result) };
  } catch (error) {
    // The callback's result is user data: a getter that throws declines like a callback that throws.
    return {
      answer: prompt.decline,
      problem: `Reading the canUseTool result failed: ${describeError(error)}`,
    };
  }
}

/** The v2 decision for a callback result. */
export function approvalDecision(result: PermissionResult): ApprovalDecision {
  if (result.behavior === "allow") return remembers(result) ? "acceptForSession" : "accept";
  return result.interrupt ? "cancel" : "decline";
}

/** The legacy (`ReviewDecision`) decision for a callback result. */
export function reviewDecision(result: PermissionResult): ReviewDecision {
  if (result.behavior === "allow") return remembers(result) ? "approved_for_session" : "approved";
  return result.interrupt ? "abort" : { denied: { rejection: result.message } };
}

function v2Prompt(
  toolName: string,
  input: Record<string, unknown>,
  params: RawObject,
  suggestions: PermissionUpdate[],
  blockedPath?: string,
): ApprovalPrompt {
  return {
    toolName,
    input,
    toolUseId: str(params.itemId),
    description: str(params.reason),
    blockedPath,
    suggestions,
    answer: (result) => ({ decision: approvalDecision(result) }),
    decline: { decision: "decline" },
    accept: { decision: "accept" },
  };
}

function legacyPrompt(
  toolName: string,
  input: Record<string, unknown>,
  params: RawObject,
  suggestions: PermissionUpdate[],
): ApprovalPrompt {
  return {
    toolName,
    input,
    toolUseId: str(params.callId),
    description: str(params.reason),
    blockedPath: str(params.grantRoot),
    suggestions,
    answer: (result) => ({ decision: reviewDecision(result) }),
    decline: { decision: { denied: { rejection: "Declined: no canUseTool callback approved it" } } },
    accept: { decision: "approved" },
  };
}

function permissionsPrompt(params: RawObject): ApprovalPrompt {
  const requested = asObject(params.permissions);
  // Grant exactly what was asked for; null entries mean "not requested".
  const granted = Object.fromEntries(Object.entries(requested).filter(([, v]) => v !== null));
  const input: Record<string, unknown> = { permissions: requested, reason: params.reason ?? null };
  if (typeof params.cwd === "string") input.cwd = params.cwd;
  const none = { permissions: {}, scope: "turn" };
  return {
    toolName: REQUEST_PERMISSIONS_TOOL,
    input,
    toolUseId: str(params.itemId),
    description: str(params.reason),
    suggestions: [rule(REQUEST_PERMISSIONS_TOOL)],
    answer: (result) =>
      result.behavior === "allow"
        ? { permissions: granted, scope: remembers(result) ? "session" : "turn" }
        : none,
    decline: none,
    accept: { permissions: granted, scope: "turn" },
  };
}

/** An MCP tool approval, which codex 0.169 sends as an elicitation with `_meta.codex_approval_kind`. */
function mcpToolPrompt(params: RawObject, items: ItemLookup): ApprovalPrompt | undefined {
  const meta = asObject(params._meta);
  if (meta.codex_approval_kind !== "mcp_tool_call") return undefined;
  const server = str(params.serverName) ?? "";
  const tool = str(meta.tool_name) ?? "";
  const toolName = mcpToolName(server, tool);
  const call = items.latest(
    (item) =>
      item.type === "mcpToolCall" &&
      item.server === server &&
      item.tool === tool &&
      item.status === "inProgress",
  );
  const answer = (action: "accept" | "decline" | "cancel") => ({
    action,
    content: action === "accept" ? {} : null,
    _meta: null,
  });
  return {
    toolName,
    input: asObject(meta.tool_params),
    toolUseId: str(call?.id),
    description: str(params.message),
    mcpServer: { name: server },
    suggestions: [rule(toolName)],
    answer: (result) =>
      answer(result.behavior === "allow" ? "accept" : result.interrupt ? "cancel" : "decline"),
    decline: answer("decline"),
    accept: answer("accept"),
  };
}

function patchCall(changes: FileChangeEntry[], params: RawObject) {
  const call = fileChangeTool(changes);
  call.input.reason = params.reason ?? null;
  call.input.grantRoot = params.grantRoot ?? null;
  return call;
}

/** Legacy `fileChanges`: `{ [path]: { type: "add", content } | { type: "update", unified_diff, move_path } }`. */
function legacyFileChanges(value: unknown): FileChangeEntry[] {
  if (!isObject(value)) return [];
  return Object.entries(value).map(([path, change]) => {
    const c = asObject(change);
    const entry: FileChangeEntry = { path, kind: str(c.type) ?? "" };
    const diff = str(c.unified_diff) ?? str(c.content);
    if (diff !== undefined) entry.diff = diff;
    if (str(c.move_path)) entry.movePath = str(c.move_path);
    return entry;
  });
}

function rule(toolName: string, ruleContent?: string): PermissionUpdate {
  return {
    type: "addRules",
    rules: [ruleContent === undefined ? { toolName } : { toolName, ruleContent }],
    behavior: "allow",
    destination: "session",
  };
}

function remembers(result: PermissionResult): boolean {
  return result.behavior === "allow" && (result.updatedPermissions?.length ?? 0) > 0;
}

/** JSON with object keys sorted, so key order does not matter. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}
