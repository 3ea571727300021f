/**
 * The official Codex SDK's entry class, on code-agent-sdk's engine: `new Codex(options)`, then
 * `startThread()` or `resumeThread(id)`.
 */
import type { CodexOptions, ThreadOptions } from "./options.js";
import { Thread } from "./thread.js";

/** A Codex client: starts and resumes threads. */
export class Codex {
  private readonly options: CodexOptions;

  constructor(options: CodexOptions = {}) {
    this.options = options;
  }

  /** Starts a new conversation. */
  startThread(options: ThreadOptions = {}): Thread {
    return new Thread(this.options, options);
  }

  /** Resumes a conversation by its thread id (threads are stored in `~/.codex/sessions`). */
  resumeThread(id: string, options: ThreadOptions = {}): Thread {
    return new Thread(this.options, options, id);
  }
}
