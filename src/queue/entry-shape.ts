/**
 * Checks that what a stream entry's data decoded to has the shape of its kind, so that a reader
 * never hands its caller `undefined` as a message or a permission request without a tool name.
 * Entries come from Redis: anything that can write there can write anything.
 */

/** The kinds of entry this version writes and reads (`RunEntry["kind"]` in entries.ts). */
type Kind = "start" | "message" | "permission" | "retry" | "end";
type Shape = (data: Record<string, unknown>) => string | undefined;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const RUN_STATUSES = new Set<string>(["completed", "failed", "aborted"]);

/** What is wrong with a serialized run error, or `undefined`. */
function errorProblem(value: unknown, field: string): string | undefined {
  if (!isRecord(value)) return `${field} is not an object`;
  if (typeof value.name !== "string" || typeof value.message !== "string")
    return `${field} lacks a string name and message`;
  if (typeof value.retryable !== "boolean") return `${field}.retryable is not a boolean`;
  return undefined;
}

const SHAPES: Record<Kind, Shape> = {
  start: (d) => (typeof d.worker === "string" ? undefined : "a start entry without a worker name"),
  message: (d) =>
    isRecord(d.message) && typeof d.message.type === "string"
      ? undefined
      : "a message entry whose message is not an object with a type",
  permission: (d) => {
    if (typeof d.requestId !== "string" || typeof d.toolName !== "string")
      return "a permission entry without a string requestId and toolName";
    if (!isRecord(d.input) || !isRecord(d.context))
      return "a permission entry whose input or context is not an object";
    return undefined;
  },
  retry: (d) => errorProblem(d.error, "the retry entry's error"),
  end: (d) => {
    if (typeof d.status !== "string" || !RUN_STATUSES.has(d.status))
      return "an end entry without a known status";
    if (d.result !== undefined && !(isRecord(d.result) && d.result.type === "result"))
      return "an end entry whose result is not a result message";
    return d.error === undefined ? undefined : errorProblem(d.error, "the end entry's error");
  },
};

/** Whether `kind` is one this version knows. */
export function isKnownKind(kind: string): kind is Kind {
  return Object.hasOwn(SHAPES, kind);
}

/** What is wrong with the data of an entry of a known `kind`, or `undefined` when it fits. */
export function entryShapeProblem(kind: Kind, data: unknown): string | undefined {
  if (!isRecord(data)) return "its data is not a JSON object";
  return SHAPES[kind](data);
}
