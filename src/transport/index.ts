/**
 * `code-agent-sdk/transport`: how the SDK talks to a CLI process, for hosts that replace or wrap
 * it: the {@link Transport} interface (the `transport` option), {@link SubprocessTransport} (what
 * every backend spawns by default), the `spawnClaudeCodeProcess` hook's types, recording a session
 * to a file (the `record` option) and replaying it with {@link ReplayTransport}, and the errors of
 * reading a CLI's output (a line that is not JSON, one past the buffer bound, output that closed).
 *
 * @example
 * ```ts
 * import { query } from "code-agent-sdk";
 * import { ReplayTransport } from "code-agent-sdk/transport";
 *
 * const transport = ReplayTransport.fromFile("session.jsonl");
 * for await (const message of query({ prompt: "hi", options: { transport } })) console.log(message.type);
 * ```
 * @packageDocumentation
 */
export {
  BufferOverflowError,
  JsonDecodeError,
  MessageParseError,
  OutputClosedError,
  ReaderOverflowError,
} from "../errors.js";
export type { ExitInfo } from "../process/child.js";
export {
  RECORDING_FORMAT,
  type RecordedError,
  type RecordedEvent,
  RecordingError,
  type RecordingHeader,
  type RecordOptions,
} from "./recording.js";
export { ReplayError, type ReplayOptions, ReplayTransport } from "./replay.js";
export type { SpawnClaudeCodeProcess, SpawnedProcess, SpawnOptions } from "./spawned-process.js";
export { SubprocessTransport, type SubprocessTransportOptions } from "./subprocess.js";
export type { Transport, TransportItem } from "./transport.js";
