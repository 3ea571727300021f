/**
 * Reads a stream of JSON lines (one JSON object per line), as every supported agent CLI emits.
 */
import { BufferOverflowError, JsonDecodeError } from "../errors.js";
import { LineSplitter } from "./line-splitter.js";

/** Options for {@link readJsonLines}. */
export interface ReadJsonLinesOptions {
  /** Longest accepted line, in bytes. A longer line throws {@link BufferOverflowError}. */
  maxLineBytes: number;
}

/**
 * Yields each line of `stdout` parsed as a JSON object, as soon as its newline arrives.
 *
 * A line that is not JSON, or is JSON but not an object, is yielded as a {@link JsonDecodeError}
 * and reading continues. A line over `maxLineBytes` throws a {@link BufferOverflowError}: the
 * stream is out of sync with the protocol at that point. A final line without a trailing newline
 * is still parsed when the stream ends.
 *
 * Stopping iteration early destroys the underlying stream.
 */
export async function* readJsonLines(
  stdout: AsyncIterable<Buffer | string>,
  options: ReadJsonLinesOptions,
): AsyncGenerator<Record<string, unknown> | JsonDecodeError, void, undefined> {
  const splitter = new LineSplitter({ maxLineBytes: options.maxLineBytes });
  for await (const chunk of stdout) {
    const items = splitter.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
    for (const item of items) yield toMessage(item);
  }
  for (const item of splitter.end()) yield toMessage(item);
}

/** Parses one line into a JSON object, or a {@link JsonDecodeError} explaining why it is not one. */
export function parseJsonLine(line: string): Record<string, unknown> | JsonDecodeError {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return new JsonDecodeError("Line from the CLI is not valid JSON", line, undefined, err);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return new JsonDecodeError(`Line from the CLI is JSON but ${kind}, not an object`, line);
  }
  return value as Record<string, unknown>;
}

function toMessage(item: string | BufferOverflowError): Record<string, unknown> | JsonDecodeError {
  if (item instanceof BufferOverflowError) throw item;
  return parseJsonLine(item);
}
