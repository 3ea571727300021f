/**
 * The `Transport` seam: how a session exchanges JSON lines with an agent. The subprocess transport
 * is the default; tests and remote runners can inject their own.
 */
import type { JsonDecodeError } from "../errors.js";

/** One item read from a transport: a parsed JSON object, or a non-fatal decode error for a bad line. */
export type TransportItem = Record<string, unknown> | JsonDecodeError;

/**
 * A bidirectional JSON-lines channel to an agent.
 *
 * Lifecycle: `connect()` → any number of `write()` while `readMessages()` is consumed →
 * `endInput()` (no more writes; the agent may finish its work) → `close()` (terminate, release
 * everything; idempotent).
 */
export interface Transport {
  /** Starts the channel (spawns the process). Rejects with a typed error if it cannot start. */
  connect(): Promise<void>;
  /** Sends one JSON message (serialized, without the trailing newline). */
  write(data: string): Promise<void>;
  /**
   * Sends free text exactly as given, with no newline added: for a CLI that reads a plain-text
   * prompt until end of input (`codex exec -`). A transport without it gets the text line by line
   * through {@link write}, so the CLI sees a final newline.
   */
  writeText?(text: string): Promise<void>;
  /**
   * Whether the channel keeps the host's event loop alive (default: it does). A warm session
   * parked for later use turns it off; claiming it turns it back on.
   */
  setKeepAlive?(keep: boolean): void;
  /**
   * The messages from the agent, in order. Owned by the caller: call once. Ends when the agent
   * closes its output; throws a typed error (`ProcessError`, `BufferOverflowError`, …) on failure.
   * Lines that are not valid JSON are yielded as `JsonDecodeError` values and reading continues.
   */
  readMessages(): AsyncIterable<TransportItem>;
  /**
   * Optional: the same messages in batches (each batch non-empty, in order), for a transport that
   * receives many at once. The SDK reads through this when it exists, instead of `readMessages()`:
   * one await per batch rather than per message. Call one of the two, once.
   */
  readBatches?(): AsyncIterable<TransportItem[]>;
  /** Closes the input side (stdin). The agent sees EOF. */
  endInput(): Promise<void>;
  /** Terminates the channel and whatever runs behind it. Safe to call more than once. */
  close(): Promise<void>;
  /** True between a successful `connect()` and `close()`. */
  isReady(): boolean;
}
