/**
 * An in-memory Transport whose "CLI" is a test function: every line the SDK writes is handed to
 * `onWrite`, which can answer through `emit`. Exercises the custom-transport seam.
 */

import { MessageHub } from "../../../src/session/message-hub.js";
import type { Transport, TransportItem } from "../../../src/transport/index.js";

export class ScriptedTransport implements Transport {
  readonly written: Record<string, unknown>[] = [];
  private readonly out = new MessageHub<TransportItem>();
  private ready = false;
  inputEnded = false;
  closed = false;

  constructor(private readonly onWrite: (message: Record<string, unknown>, t: ScriptedTransport) => void) {}

  emit(message: Record<string, unknown>): void {
    this.out.push(message);
  }

  /** Ends the output, optionally with a failure. */
  finish(error?: unknown): void {
    this.out.end(error);
  }

  async connect(): Promise<void> {
    this.ready = true;
  }
  async write(data: string): Promise<void> {
    if (this.closed) throw new Error("closed");
    const message = JSON.parse(data) as Record<string, unknown>;
    this.written.push(message);
    this.onWrite(message, this);
  }
  readMessages(): AsyncIterable<TransportItem> {
    return this.out.subscribe();
  }
  async endInput(): Promise<void> {
    this.inputEnded = true;
    this.finish();
  }
  async close(): Promise<void> {
    this.closed = true;
    this.ready = false;
    this.finish();
  }
  isReady(): boolean {
    return this.ready;
  }

  /** Control responses the SDK wrote, by request id. */
  responses(): Record<string, unknown>[] {
    return this.written
      .filter((m) => m.type === "control_response")
      .map((m) => m.response as Record<string, unknown>);
  }
}

/** Answers initialize; calls `onUser` for user turns. */
export function cliLike(onUser: (t: ScriptedTransport, message: Record<string, unknown>) => void) {
  return (message: Record<string, unknown>, t: ScriptedTransport) => {
    if (message.type === "control_request") {
      const request = message.request as { subtype: string };
      if (request.subtype === "initialize") {
        t.emit({
          type: "control_response",
          response: {
            subtype: "success",
            request_id: message.request_id,
            response: { pid: 1, echo: request },
          },
        });
      }
      return;
    }
    if (message.type === "user") onUser(t, message);
  };
}

export const resultLine = (text: string) => ({
  type: "result",
  subtype: "success",
  is_error: false,
  duration_ms: 1,
  duration_api_ms: 1,
  num_turns: 1,
  result: text,
  session_id: "s1",
});

/** A transport that accepts everything and says nothing: a valid `transport` option value. */
export const inertTransport: Transport = {
  connect: async () => {},
  write: async () => {},
  readMessages: async function* () {},
  endInput: async () => {},
  close: async () => {},
  isReady: () => true,
};
