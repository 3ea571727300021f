/**
 * Reading one line from the terminal with `node:readline`, one interface per question: between
 * questions the terminal is back in cooked mode, so Ctrl-C reaches the process as SIGINT (which
 * interrupts a running turn) instead of being swallowed by an idle readline.
 */
import { createInterface } from "node:readline";
import type { OutputStream } from "./screen.js";

/** What the user did at a prompt. */
export type LineAnswer = { kind: "line"; text: string } | { kind: "interrupt" } | { kind: "eof" };

export interface AskLineOptions {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: OutputStream;
  /** The prompt text (may contain ANSI styles). */
  prompt: string;
  /** Shared history (up/down arrows), updated in place. */
  history?: string[];
  /** Closes the prompt (answer: `eof`) when aborted. */
  signal?: AbortSignal;
}

/** Shows `prompt` and resolves with the line typed, Ctrl-C (`interrupt`) or Ctrl-D (`eof`). */
export function askLine(options: AskLineOptions): Promise<LineAnswer> {
  return new Promise((resolve) => {
    const history = options.history;
    const rl = createInterface({
      input: options.input,
      output: options.output,
      terminal: true,
      ...(history ? { history: [...history], historySize: 200, removeHistoryDuplicates: true } : {}),
    });
    let settled = false;
    const finish = (answer: LineAnswer) => {
      if (settled) return;
      settled = true;
      rl.close();
      resolve(answer);
    };
    rl.on("history", (lines: string[]) => {
      if (history) history.splice(0, history.length, ...lines);
    });
    rl.on("line", (text) => finish({ kind: "line", text }));
    rl.on("SIGINT", () => {
      options.output.write("^C\n");
      finish({ kind: "interrupt" });
    });
    rl.on("close", () => {
      if (!settled) options.output.write("\n");
      finish({ kind: "eof" });
    });
    if (options.signal?.aborted) {
      finish({ kind: "eof" });
      return;
    }
    options.signal?.addEventListener("abort", () => rl.close(), { once: true });
    rl.setPrompt(options.prompt);
    rl.prompt();
  });
}
