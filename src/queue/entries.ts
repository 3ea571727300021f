/**
 * The entries of a run's Redis stream. A worker appends them in order; every reader (the producer's
 * handle, any number of late subscribers) reads them from the start.
 *
 * Each entry carries the attempt it belongs to and a sequence number within that attempt: a command
 * re-sent after a Redis reconnect can land twice, and readers drop the second copy.
 */

import type { Message, ResultMessage } from "../messages.js";
import type { ToolPermissionContext } from "../permissions.js";
import { describeError } from "../wire/safe-json.js";
import { entryShapeProblem, isKnownKind } from "./entry-shape.js";
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

/** The field/value pairs of an XADD for `entry`. */
export function encodeEntry(entry: RunEntry): string[] {
  const { kind, attempt, seq, ...body } = entry;
  return ["k", kind, "a", String(attempt), "s", String(seq), "d", JSON.stringify(body)];
}

/**
 * What a stream entry decoded to: the entry; an entry of a kind this version does not know but
 * otherwise well-formed (`unknown`: a newer worker's, to skip — it still takes its place in the
 * order of entries); or why it is malformed.
 */
export type DecodedEntry =
  | { entry: RunEntry; unknown?: undefined; problem?: undefined }
  | { entry?: undefined; unknown: { kind: string; attempt: number; seq: number }; problem: string }
  | { entry?: undefined; unknown?: undefined; problem: string };

/** Parses the field/value list of a stream entry (from Redis: anything may be there). Never throws. */
export function decodeEntry(fields: unknown): DecodedEntry {
  if (!Array.isArray(fields)) return { problem: "its fields are not a list" };
  const map = new Map<string, unknown>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(String(fields[i]), fields[i + 1]);
  const kind = map.get("k");
  const a = map.get("a");
  const s = map.get("s");
  const data = map.get("d");
  if (typeof kind !== "string" || typeof a !== "string" || typeof s !== "string" || typeof data !== "string")
    return { problem: "it lacks one of the fields k, a, s, d" };
  const attempt = Number(a);
  const seq = Number(s);
  if (!(Number.isSafeInteger(attempt) && attempt >= 0 && Number.isSafeInteger(seq) && seq >= 0))
    return { problem: `attempt ${quote(a)} or seq ${quote(s)} is not a count` };
  if (!isKnownKind(kind))
    return { unknown: { kind, attempt, seq }, problem: `kind ${quote(kind)} is unknown to this version` };
  let body: unknown;
  try {
    body = JSON.parse(data);
  } catch (error) {
    return { problem: `its data is not JSON (${describeError(error)})` };
  }
  const problem = entryShapeProblem(kind, body);
  if (problem) return { problem };
  // The fields win over whatever the data holds under the same names.
  return { entry: { ...(body as object), kind, attempt, seq } as RunEntry };
}

/** A field's value for a message: quoted, at most 40 characters. */
function quote(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
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
