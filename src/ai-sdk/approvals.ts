/**
 * The agent's permission requests through the AI SDK's tool-approval flow (`toolApproval: "ai-sdk"`):
 * a request becomes a `tool-approval-request` part for the provider-executed tool call and the call
 * ends (finish reason `tool-calls`) while the CLI waits, its turn parked in this process; the next
 * call whose last message answers it (`tool-approval-response`) takes the parked turn, answers the
 * CLI and streams the rest of the turn.
 *
 * A parked turn does not keep the host alive (a program that asked and ended exits; the CLI is ended
 * at exit), and it is bounded: its requests are denied and the CLI ended when the backend's
 * `callbackTimeoutMs` passes (default 10 minutes), when the conversation goes on without an answer
 * (a new message resuming the same session), and when more than {@link MAX_PARKED} turns are parked
 * (the oldest goes).
 */
import { randomUUID } from "node:crypto";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { CanUseTool, PermissionResult } from "../permissions.js";
import { ApprovalNotPendingError } from "./errors.js";

/** How many turns one provider keeps parked at once; parking one more ends the oldest. */
export const MAX_PARKED = 100;

/** One permission request of the agent, waiting for the caller. */
export interface ApprovalRequest {
  approvalId: string;
  /** The tool call it is for (the backend's id; the approval id when the backend gave none). */
  toolCallId: string;
  toolName: string;
  input: Record<string, unknown>;
}

interface Waiting extends ApprovalRequest {
  surfaced: boolean;
  settle(result: PermissionResult): void;
}

/** The `canUseTool` of one turn, holding its requests until the caller answers them. */
export class ApprovalBridge {
  private readonly waiting = new Map<string, Waiting>();
  private wake: (() => void) | undefined;
  /** Called when a request shown to the caller can no longer be answered (its callback window ended). */
  onLapsed: (() => void) | undefined;

  /** Give this to the turn's options. */
  readonly canUseTool: CanUseTool = (toolName, input, context) =>
    new Promise<PermissionResult>((resolve) => {
      const approvalId = randomUUID();
      const onAbort = () => {
        const request = this.waiting.get(approvalId);
        settle({ behavior: "deny", message: "The approval was not given in time" });
        if (request?.surfaced) this.onLapsed?.();
      };
      const settle = (result: PermissionResult) => {
        if (!this.waiting.delete(approvalId)) return;
        context.signal.removeEventListener("abort", onAbort);
        resolve(result);
      };
      if (context.signal.aborted) {
        resolve({ behavior: "deny", message: "The approval was not given in time" });
        return;
      }
      context.signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(approvalId, {
        approvalId,
        toolCallId: context.toolUseId ?? approvalId,
        toolName,
        input,
        surfaced: false,
        settle,
      });
      const wake = this.wake;
      this.wake = undefined;
      wake?.();
    });

  /** The requests not shown to the caller yet; from now on they count as shown. */
  takeNew(): ApprovalRequest[] {
    const out: ApprovalRequest[] = [];
    for (const w of this.waiting.values()) {
      if (w.surfaced) continue;
      w.surfaced = true;
      out.push({ approvalId: w.approvalId, toolCallId: w.toolCallId, toolName: w.toolName, input: w.input });
    }
    return out;
  }

  /** Resolves once a request not shown yet is waiting (at once if one is). */
  whenRequested(): Promise<void> {
    for (const w of this.waiting.values()) if (!w.surfaced) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  /** The ids of the requests shown to the caller and not answered. */
  shownIds(): string[] {
    return [...this.waiting.values()].filter((w) => w.surfaced).map((w) => w.approvalId);
  }

  /** The tool calls of the requests shown to the caller and not answered. */
  shownCalls(): string[] {
    return [...this.waiting.values()].filter((w) => w.surfaced).map((w) => w.toolCallId);
  }

  /** Answers one request; `false` when it is not waiting. */
  answer(approvalId: string, approved: boolean, reason: string | undefined): boolean {
    const w = this.waiting.get(approvalId);
    if (!w) return false;
    w.settle(
      approved
        ? { behavior: "allow" }
        : { behavior: "deny", message: reason ?? "The user denied this tool call" },
    );
    return true;
  }

  /** Denies every waiting request. */
  denyAll(message: string): void {
    for (const w of [...this.waiting.values()]) w.settle({ behavior: "deny", message });
  }
}

/** A turn that can be parked: its bridge, its session, and how to end it. */
export interface ParkableRun {
  readonly bridge: ApprovalBridge | undefined;
  readonly sessionId: string | undefined;
  /** Ends the turn's CLI (denying what still waits). */
  end(reason: string): void;
  /** Whether the turn's CLI keeps the host alive: not while parked (the answer may never come). */
  setKeepAlive(keep: boolean): void;
}

/** An approval answer found at the end of a prompt. */
export interface ApprovalAnswer {
  approvalId: string;
  approved: boolean;
  reason: string | undefined;
}

/** The `tool-approval-response` parts of the prompt's last message, when it is a tool message. */
export function approvalAnswers(prompt: LanguageModelV3Prompt): ApprovalAnswer[] {
  const last = prompt[prompt.length - 1];
  if (last?.role !== "tool") return [];
  const out: ApprovalAnswer[] = [];
  for (const part of last.content) {
    if (part.type !== "tool-approval-response") continue;
    out.push({ approvalId: part.approvalId, approved: part.approved === true, reason: part.reason });
  }
  return out;
}

/** The parked turns of one provider, by the ids of the approvals they wait for. */
export class ParkedRuns<R extends ParkableRun> {
  private readonly byApproval = new Map<string, R>();
  /** Parked turns, oldest first. */
  private readonly order: R[] = [];

  /** Parks `run` until one of its shown requests is answered. */
  park(run: R): void {
    const bridge = run.bridge;
    if (!bridge) return;
    for (const id of bridge.shownIds()) this.byApproval.set(id, run);
    if (!this.order.includes(run)) this.order.push(run);
    run.setKeepAlive(false);
    bridge.onLapsed = () => this.expire(run, "the approval was not given in time");
    while (this.order.length > MAX_PARKED) {
      const oldest = this.order[0] as R;
      this.expire(oldest, `more than ${MAX_PARKED} turns were waiting for approval`);
    }
  }

  /**
   * The parked turn the prompt's last message answers, with its answers applied (requests shown and
   * left unanswered are denied), and the tool calls answered. `undefined` when the prompt answers
   * no approval.
   * @throws ApprovalNotPendingError when it answers approvals none of which is waiting here.
   */
  take(prompt: LanguageModelV3Prompt): { run: R; toolCallIds: string[] } | undefined {
    const answers = approvalAnswers(prompt);
    if (answers.length === 0) return undefined;
    const run = answers.map((a) => this.byApproval.get(a.approvalId)).find((r) => r !== undefined);
    if (!run) throw new ApprovalNotPendingError(answers.map((a) => a.approvalId));
    this.unpark(run);
    const toolCallIds = run.bridge?.shownCalls() ?? [];
    for (const a of answers) run.bridge?.answer(a.approvalId, a.approved, a.reason);
    run.bridge?.denyAll("The user gave no answer for this tool call");
    return { run, toolCallIds };
  }

  /** Ends a parked turn of `sessionId` (the conversation went on without answering it). */
  expireSession(sessionId: string): void {
    for (const run of [...this.order])
      if (run.sessionId === sessionId) this.expire(run, "the conversation went on without an answer");
  }

  /** Ends a parked turn. */
  expire(run: R, reason: string): void {
    if (!this.order.includes(run)) return;
    this.unpark(run);
    run.end(reason);
  }

  private unpark(run: R): void {
    run.setKeepAlive(true);
    if (run.bridge) run.bridge.onLapsed = undefined;
    for (const [id, r] of [...this.byApproval]) if (r === run) this.byApproval.delete(id);
    const i = this.order.indexOf(run);
    if (i >= 0) this.order.splice(i, 1);
  }
}
