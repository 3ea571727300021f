/**
 * `session/request_permission` → `canUseTool`.
 *
 * Agents name their options differently (`proceed_once`, `once`, `allow`, `approved`, …), so the
 * answer is chosen by the option's `kind`, never its id: allow → `allow_once` (else
 * `allow_always`); deny → `reject_once` (else `reject_always`). An allow that returns
 * `updatedPermissions` (asks to remember the decision) prefers `allow_always`; an allow with a
 * changed `updatedInput` is a deny (the agent would run what it asked about). Without a
 * `canUseTool`, every request is answered with the reject option: nothing runs that nobody allowed.
 */

import type { RawObject } from "../../messages.js";
import type { CanUseTool, PermissionResult, PermissionUpdate } from "../../permissions.js";
import { describeError, describeValue, trySerialise } from "../../wire/safe-json.js";

/** What the agent offered for one request. */
export interface PermissionOption {
  optionId: string;
  kind: string;
  name?: string;
}

/** The answer sent back: an option, or `cancelled` (the turn is being cancelled). */
export type PermissionOutcome = { outcome: "selected"; optionId: string } | { outcome: "cancelled" };

/** The option of the first kind in `kinds` that the agent offered. */
export function optionOfKind(
  options: readonly PermissionOption[],
  kinds: readonly string[],
): PermissionOption | undefined {
  for (const kind of kinds) {
    const option = options.find((o) => o.kind === kind);
    if (option) return option;
  }
  return undefined;
}

/**
 * The outcome for a `canUseTool` decision. A deny with no reject option offered cancels (the one
 * answer that never lets the tool run); an allow with no allow option is a protocol problem the
 * caller reports, and it too cancels.
 */
export function outcomeFor(
  decision: PermissionResult,
  options: readonly PermissionOption[],
): { outcome: PermissionOutcome; problem?: string } {
  if (decision.behavior === "allow") {
    const remember = (decision.updatedPermissions?.length ?? 0) > 0;
    const option = optionOfKind(
      options,
      remember ? ["allow_always", "allow_once"] : ["allow_once", "allow_always"],
    );
    if (option) return { outcome: { outcome: "selected", optionId: option.optionId } };
    return { outcome: { outcome: "cancelled" }, problem: "the agent offered no allow option" };
  }
  const option = optionOfKind(options, ["reject_once", "reject_always"]);
  return { outcome: option ? { outcome: "selected", optionId: option.optionId } : { outcome: "cancelled" } };
}

/**
 * Asks `canUseTool` (bounded by `timeoutMs`). A throw or rejection (with any value: an `Error`, a
 * BigInt, a circular or prototype-less object, `undefined`), a timeout, an answer that is neither
 * allow nor deny, or an allow whose `updatedInput` differs from the input (ACP cannot run another
 * input than the one the agent asked about) is a deny, with `problem` saying why (the session
 * reports it in-band: ACP's answer to the agent carries no message). Never rejects: the decision
 * is read here, once, into a plain object, so a getter or proxy in the answer cannot throw later.
 */
export async function askCanUseTool(
  canUseTool: CanUseTool | undefined,
  call: { name: string; input: Record<string, unknown>; toolUseId: string | undefined; title?: string },
  raw: RawObject,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<{ decision: PermissionResult; problem?: string }> {
  if (!canUseTool) return { decision: { behavior: "deny", message: "no canUseTool callback is set" } };
  const timeout = AbortSignal.timeout(timeoutMs);
  const both = AbortSignal.any([signal, timeout]);
  const deny = (problem: string) => ({ decision: { behavior: "deny" as const, message: problem }, problem });
  let onAbort: (() => void) | undefined;
  let answer: unknown;
  try {
    answer = await new Promise<unknown>((resolve, reject) => {
      onAbort = () => reject(both.reason);
      both.addEventListener("abort", onAbort, { once: true });
      Promise.resolve(
        canUseTool(call.name, call.input, {
          signal: both,
          suggestions: [],
          toolUseId: call.toolUseId,
          ...(call.title !== undefined ? { description: call.title } : {}),
          raw,
        }),
      ).then(resolve, reject);
    });
  } catch (error) {
    if (timeout.aborted) return deny(`canUseTool did not answer within ${timeoutMs} ms`);
    return deny(failureText(error));
  } finally {
    if (onAbort) both.removeEventListener("abort", onAbort);
  }
  try {
    const decision = plainDecision(answer);
    if (!decision) return deny(`canUseTool returned neither allow nor deny: ${describeValue(answer)}`);
    if (decision.behavior === "allow") {
      const changed = changedInput((answer as { updatedInput?: unknown }).updatedInput, call.input);
      if (changed !== undefined) return deny(changed);
    }
    return { decision };
  } catch (error) {
    // The answer is user data: a getter that throws denies like a callback that throws.
    return deny(`Reading the canUseTool answer failed: ${describeError(error)}`);
  }
}

/**
 * Why an allow's `updatedInput` cannot be honoured, or `undefined` when there is none or it equals
 * the input asked about: ACP's answer is an option id, so the agent runs the input it asked about;
 * a changed one (or one that cannot even be read as JSON) must not be mistaken for approved.
 */
function changedInput(updated: unknown, input: Record<string, unknown>): string | undefined {
  if (updated === undefined || updated === input) return undefined;
  const serialised = trySerialise(updated);
  if (!serialised.ok)
    return `The updatedInput of canUseTool cannot be read: ${serialised.problem}; the call was declined`;
  const asked = trySerialise(input);
  if (asked.ok && stableJson(JSON.parse(serialised.line)) === stableJson(JSON.parse(asked.line)))
    return undefined;
  return "ACP cannot run a tool with a changed input (updatedInput): the agent runs the input it asked about; the call was declined";
}

/** JSON with object keys sorted, so key order does not matter. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(record[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

/** Why the callback failed: an `Error`'s message as is; any other thrown value described (never throws). */
function failureText(error: unknown): string {
  if (error instanceof Error) return describeError(error);
  return `canUseTool failed with a non-Error value: ${describeError(error)}`;
}

/** The fields of `answer` this backend uses, copied once (may throw: a getter, a proxy). */
function plainDecision(answer: unknown): PermissionResult | undefined {
  if (typeof answer !== "object" || answer === null) return undefined;
  const decision = answer as Record<"behavior" | "updatedPermissions" | "message" | "interrupt", unknown>;
  const behavior = decision.behavior;
  if (behavior === "allow") {
    const remember = decision.updatedPermissions;
    return Array.isArray(remember) && remember.length > 0
      ? { behavior, updatedPermissions: [...(remember as PermissionUpdate[])] }
      : { behavior };
  }
  if (behavior === "deny") {
    const message = decision.message;
    return {
      behavior,
      message: typeof message === "string" ? message : "",
      ...(decision.interrupt === true ? { interrupt: true } : {}),
    };
  }
  return undefined;
}
