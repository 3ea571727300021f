/**
 * The entries of a run's Redis stream. A worker appends them in order; every reader (the producer's
 * handle, any number of late subscribers) reads them from the start.
 *
 * Each entry carries the attempt it belongs to and a sequence number within that attempt: a command
 * re-sent after a Redis reconnect can land twice, and readers drop the second copy.
 *
 * Two layouts of a Redis stream entry (one XADD):
 * - a **batch** (what this version writes): fields `v` (the format, {@link STREAM_FORMAT}), `a`
 *   (attempt), `s` (the first entry's seq), `d` (a JSON array of `[kind, data]`, one per entry, in
 *   order: the n-th has seq `s + n`), at most {@link MAX_BATCH_ENTRIES} entries. A reader of an
 *   older version finds no `k` field and fails with `QueueProtocolError` at the first entry, rather
 *   than skipping what it cannot read.
 * - a **single entry** (what workers wrote before batches): fields `k` (kind), `a`, `s`, `d` (the
 *   entry's data). Still read.
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

/** The field/value pairs of an XADD for `entry` alone, in the single-entry layout. */
export function encodeEntry(entry: RunEntry): string[] {
  const { kind, attempt, seq, ...body } = entry;
  return ["k", kind, "a", String(attempt), "s", String(seq), "d", JSON.stringify(body)];
}

/** The format of a batch entry (its `v` field); a reader refuses any other. */
export const STREAM_FORMAT = "2";

/** The most entries one batch carries; a reader refuses a batch of more. */
export const MAX_BATCH_ENTRIES = 64;

/** An entry without its place in the stream (the writer gives it one). */
export type UnplacedEntry = DistributiveOmit<RunEntry, "attempt" | "seq">;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** One entry's part of a batch's `d` field: `[kind, data]` as JSON text. */
export function encodePart(entry: UnplacedEntry): string {
  const { kind, ...body } = entry;
  return `[${JSON.stringify(kind)},${JSON.stringify(body)}]`;
}

/**
 * The field/value pairs of an XADD carrying `parts` ({@link encodePart}, 1 to
 * {@link MAX_BATCH_ENTRIES} of them), the first of which has seq `firstSeq`.
 */
export function encodeBatch(attempt: number, firstSeq: number, parts: readonly string[]): string[] {
  return ["v", STREAM_FORMAT, "a", String(attempt), "s", String(firstSeq), "d", `[${parts.join(",")}]`];
}

/** The entries of `entries` (one attempt, consecutive seqs from the first's) as one batch. */
export function encodeEntries(entries: readonly RunEntry[]): string[] {
  const first = entries[0];
  if (!first) throw new RangeError("a batch holds at least one entry");
  return encodeBatch(
    first.attempt,
    first.seq,
    entries.map(({ attempt: _a, seq: _s, ...entry }) => encodePart(entry as UnplacedEntry)),
  );
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

/**
 * What a stream entry (either layout) decoded to: its entries in order (each known, or of a kind
 * this version does not know: see {@link DecodedEntry}), or why it is malformed — then none of it
 * is to be delivered.
 */
export type DecodedStreamEntry =
  | { parts: Exclude<DecodedEntry, { entry?: undefined; unknown?: undefined }>[]; problem?: undefined }
  | { parts?: undefined; problem: string };

/**
 * Parses the field/value list of a stream entry, a batch or a single entry (from Redis: anything
 * may be there). Never throws.
 */
export function decodeStreamEntry(fields: unknown): DecodedStreamEntry {
  if (!Array.isArray(fields)) return { problem: "its fields are not a list" };
  const map = fieldMap(fields);
  const format = map.get("v");
  if (format === undefined) {
    const single = decodeEntry(fields);
    return single.entry || single.unknown ? { parts: [single] } : { problem: single.problem };
  }
  if (format !== STREAM_FORMAT)
    return {
      problem: `its format ${quote(String(format))} is unknown to this version (producers and workers must run the same version)`,
    };
  const place = placeOf(map);
  if (typeof place === "string") return { problem: place };
  const data = map.get("d");
  if (typeof data !== "string") return { problem: "it lacks one of the fields v, a, s, d" };
  let items: unknown;
  try {
    items = JSON.parse(data);
  } catch (error) {
    return { problem: `its data is not JSON (${describeError(error)})` };
  }
  if (!Array.isArray(items) || items.length === 0 || items.length > MAX_BATCH_ENTRIES)
    return { problem: `its data is not a list of 1 to ${MAX_BATCH_ENTRIES} entries` };
  if (!Number.isSafeInteger(place.seq + items.length))
    return { problem: `seq ${place.seq} + ${items.length} entries is not a count` };
  const parts: Exclude<DecodedEntry, { entry?: undefined; unknown?: undefined }>[] = [];
  for (const [i, item] of items.entries()) {
    const at = { attempt: place.attempt, seq: place.seq + i };
    if (!Array.isArray(item) || item.length !== 2 || typeof item[0] !== "string")
      return { problem: `its entry ${i} is not a [kind, data] pair` };
    const part = decodeData(item[0], at, item[1]);
    if (!part.entry && !part.unknown) return { problem: `its entry ${i}: ${part.problem}` };
    parts.push(part);
  }
  return { parts };
}

/** Parses the field/value list of a single-layout stream entry (from Redis: anything may be there). Never throws. */
export function decodeEntry(fields: unknown): DecodedEntry {
  if (!Array.isArray(fields)) return { problem: "its fields are not a list" };
  const map = fieldMap(fields);
  const kind = map.get("k");
  const data = map.get("d");
  if (
    typeof kind !== "string" ||
    typeof map.get("a") !== "string" ||
    typeof map.get("s") !== "string" ||
    typeof data !== "string"
  )
    return { problem: "it lacks one of the fields k, a, s, d" };
  const place = placeOf(map);
  if (typeof place === "string") return { problem: place };
  if (!isKnownKind(kind)) return decodeData(kind, place, undefined);
  let body: unknown;
  try {
    body = JSON.parse(data);
  } catch (error) {
    return { problem: `its data is not JSON (${describeError(error)})` };
  }
  return decodeData(kind, place, body);
}

/** The fields of an entry by name (a name given twice: the last value). */
function fieldMap(fields: unknown[]): Map<string, unknown> {
  const map = new Map<string, unknown>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(String(fields[i]), fields[i + 1]);
  return map;
}

/** The attempt and seq of an entry's `a` and `s` fields, or what is wrong with them. */
function placeOf(map: Map<string, unknown>): { attempt: number; seq: number } | string {
  const a = map.get("a");
  const s = map.get("s");
  if (typeof a !== "string" || typeof s !== "string") return "it lacks the field a or s";
  const attempt = Number(a);
  const seq = Number(s);
  if (!(Number.isSafeInteger(attempt) && attempt >= 0 && Number.isSafeInteger(seq) && seq >= 0))
    return `attempt ${quote(a)} or seq ${quote(s)} is not a count`;
  return { attempt, seq };
}

/** One entry from its kind, place and parsed data. */
function decodeData(kind: string, at: { attempt: number; seq: number }, body: unknown): DecodedEntry {
  if (!isKnownKind(kind))
    return { unknown: { kind, ...at }, problem: `kind ${quote(kind)} is unknown to this version` };
  const problem = entryShapeProblem(kind, body);
  if (problem) return { problem };
  // The fields win over whatever the data holds under the same names.
  return { entry: { ...(body as object), kind, ...at } as RunEntry };
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
