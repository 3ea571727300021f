/**
 * An in-memory Transport standing in for a codex process: records every line written to "stdin",
 * and lets the test emit stdout lines and end the process.
 */

import { MessageHub } from "../../../src/session/message-hub.js";
import type { Transport, TransportItem } from "../../../src/transport/index.js";

export class FakeTransport implements Transport {
  /** Every line written, as written (without the newline). */
  readonly lines: string[] = [];
  inputEnded = false;
  closed = false;
  private readonly out = new MessageHub<TransportItem>();
  private readonly waiters: {
    predicate: (m: Record<string, unknown>) => boolean;
    resolve: (m: Record<string, unknown>) => void;
  }[] = [];

  /**
   * @param onLine Called with each written line (parsed when it is JSON), e.g. to answer requests.
   * @param exitOnEof End the output when stdin is closed (as `codex app-server` does).
   */
  constructor(
    private readonly onLine: (message: Record<string, unknown> | string, t: FakeTransport) => void = () => {},
    private readonly exitOnEof = true,
  ) {}

  /** The JSON messages written so far. */
  get sent(): Record<string, unknown>[] {
    return this.lines.flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  }

  /** Resolves with the first written JSON message (past or future) matching `predicate`. */
  waitForSent(predicate: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    const found = this.sent.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ predicate, resolve }));
  }

  emit(message: TransportItem): void {
    this.out.push(message);
  }

  /** Ends the output, optionally with a failure (as a process exit would). */
  finish(error?: unknown): void {
    this.out.end(error);
  }

  async connect(): Promise<void> {}

  async write(data: string): Promise<void> {
    if (this.closed || this.inputEnded) throw new Error("stdin is closed");
    this.lines.push(data);
    let message: Record<string, unknown> | string = data;
    try {
      message = JSON.parse(data) as Record<string, unknown>;
    } catch {
      // free text (the exec prompt)
    }
    if (typeof message === "object") {
      for (const waiter of [...this.waiters]) {
        if (waiter.predicate(message)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
    }
    this.onLine(message, this);
  }

  readMessages(): AsyncIterable<TransportItem> {
    return this.out.subscribe();
  }

  async endInput(): Promise<void> {
    this.inputEnded = true;
    if (this.exitOnEof) this.finish();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.finish();
  }

  isReady(): boolean {
    return !this.closed;
  }
}
