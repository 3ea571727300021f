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
