/**
 * Errors of the AI SDK provider.
 */
import { AgentSdkError } from "../errors.js";

/**
 * The agent's turn ended in failure (the CLI's result reported an error: an API error, a budget or
 * turn limit, a refused resume, …). `subtype` and `sessionId` come from the turn's result.
 */
export class AgentTurnError extends AgentSdkError {
  /** The result's subtype (`error_during_execution`, `error_max_turns`, …, or `success` with an API error). */
  readonly subtype: string;
  /** The session the turn ran in. */
  readonly sessionId: string;
  constructor(message: string, subtype: string, sessionId: string) {
    super(message);
    this.subtype = subtype;
    this.sessionId = sessionId;
  }
}

/**
 * A call answered tool approvals (`tool-approval-response`) that no turn of this provider is waiting
 * for: answered already, lapsed (the backend's `callbackTimeoutMs`), ended because the conversation
 * went on, or held by another process (a parked turn lives in the process that asked). The tool
 * call did not run; send a new message to go on.
 */
export class ApprovalNotPendingError extends AgentSdkError {
  /** The approval ids the call answered. */
  readonly approvalIds: string[];
  constructor(approvalIds: string[]) {
    // The ids come from the caller's messages: shown shortened.
    const shown = approvalIds.slice(0, 5).map((id) => JSON.stringify(id.slice(0, 80)));
    super(
      `No turn is waiting for approval ${shown.join(", ")}${approvalIds.length > 5 ? ", …" : ""}: it was answered already, lapsed, ended when the conversation went on, or belongs to another process; the tool call did not run`,
    );
    this.approvalIds = approvalIds;
  }
}
