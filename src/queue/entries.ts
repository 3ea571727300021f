/**
 * The entries of a run's Redis stream. A worker appends them in order; every reader (the producer's
 * handle, any number of late subscribers) reads them from the start.
 *
 * Each entry carries the attempt it belongs to and a sequence number within that attempt: a command
 * re-sent after a Redis reconnect can land twice, and readers drop the second copy.
 */
import type { Message, ResultMessage } from "../messages.js";
import type { ToolPermissionContext } from "../permissions.js";
import type { SerializedRunError } from "./errors.js";

/** The plain-data part of a `ToolPermissionContext`, as it travels to the producer. */
export type RemotePermissionContext = Omit<ToolPermissionContext, "signal">;

/** How a run ended. */
export type RunStatus = "completed" | "failed" | "aborted";

/** One entry of a run's stream. */
export type RunEntry =
  /** An attempt began on a worker. */
  | { kind: "start"; attempt: number; seq: number; worker: string }
  /** A message of the agent, as `query()` yields it on the worker. */
  | { kind: "message"; attempt: number; seq: number; message: Message }
  /** The worker's CLI asks whether it may use a tool; the producer that enqueued the run answers. */
  | {
      kind: "permission";
      attempt: number;
      seq: number;
      requestId: string;
      toolName: string;
      input: Record<string, unknown>;
      context: RemotePermissionContext;
    }
  /** The attempt failed and the job will run again (on this or another worker). */
  | { kind: "retry"; attempt: number; seq: number; error: SerializedRunError }
  /** The run is over: no entry follows. */
  | {
      kind: "end";
      attempt: number;
      seq: number;
      status: RunStatus;
      result?: ResultMessage;
      error?: SerializedRunError;
    };

const ENTRY_KINDS = new Set<string>(["start", "message", "permission", "retry", "end"]);

/** The field/value pairs of an XADD for `entry`. */
export function encodeEntry(entry: RunEntry): string[] {
  const { kind, attempt, seq, ...body } = entry;
  return ["k", kind, "a", String(attempt), "s", String(seq), "d", JSON.stringify(body)];
}

/** Parses the field/value list of a stream entry; `undefined` for an entry this version does not know. */
export function decodeEntry(fields: readonly string[]): RunEntry | undefined {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!, fields[i + 1]!);
  const kind = map.get("k");
  const attempt = Number(map.get("a"));
  const seq = Number(map.get("s"));
  const data = map.get("d");
  if (!kind || !Number.isInteger(attempt) || !Number.isInteger(seq) || data === undefined) return undefined;
  if (!ENTRY_KINDS.has(kind)) return undefined;
  return { kind, attempt, seq, ...(JSON.parse(data) as object) } as RunEntry;
}

/** Serializes a worker-side error for the stream and the BullMQ job. */
export function serializeError(error: unknown, retryable: boolean): SerializedRunError {
  if (error instanceof Error) {
    const exitCode = (error as { exitCode?: unknown }).exitCode;
    const issues = (error as { issues?: unknown }).issues;
    return {
      name: error.name,
      message: error.message,
      retryable,
      ...(typeof exitCode === "number" || exitCode === null ? { exitCode } : {}),
      ...(Array.isArray(issues) ? { issues: issues.map(String) } : {}),
    };
  }
  return { name: "Error", message: String(error), retryable };
}
