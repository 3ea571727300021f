/**
 * A single-key answer from the terminal: the permission prompt's `[y]/[a]/[n]` take effect on the
 * key press, with no Enter. Other input is collected as a line (Enter ends it, Backspace edits it),
 * so a typed word still reaches the caller; an Enter left over from a habit of confirming keys is
 * ignored. Raw mode lasts only for the question, so Ctrl-C between questions is SIGINT again.
 */
import { askLine, type LineAnswer } from "./line-input.js";
import type { OutputStream } from "./screen.js";

/** A terminal input stream that can switch to raw mode (`tty.ReadStream`). */
export type KeyInput = NodeJS.ReadableStream & {
  isTTY?: boolean;
  isRaw?: boolean;
  setRawMode?: (mode: boolean) => unknown;
};

export interface AskKeyOptions {
  input: KeyInput;
  output: OutputStream;
  /** The prompt text (may contain ANSI styles). */
  prompt: string;
  /** Keys answered on the press (lower case), e.g. `["y", "a", "n"]`; their upper case works too. */
  keys: readonly string[];
  /** Closes the prompt (answer: `eof`) when aborted. */
  signal?: AbortSignal;
}

const CTRL_C = "\u0003";
const CTRL_D = "\u0004";
const BACKSPACES = new Set(["\u007f", "\b"]);

/**
 * Shows `prompt` and resolves on the first key of `keys` (as a line holding that key), on Enter
 * after other text (the text), Ctrl-C (`interrupt`) or Ctrl-D (`eof`). Without raw mode (not a
 * terminal) it reads a line instead.
 */
export function askKey(options: AskKeyOptions): Promise<LineAnswer> {
  const { input, output } = options;
  if (input.isTTY !== true || typeof input.setRawMode !== "function") {
    return askLine({
      input,
      output,
      prompt: options.prompt,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
  const setRawMode = input.setRawMode.bind(input);
  return new Promise((resolve) => {
    const wasRaw = input.isRaw === true;
    let typed = "";
    let settled = false;
    const finish = (answer: LineAnswer, echo: string) => {
      if (settled) return;
      settled = true;
      input.off("data", onData);
      options.signal?.removeEventListener("abort", onAbort);
      setRawMode(wasRaw);
      input.pause();
      output.write(`${echo}\n`);
      resolve(answer);
    };
    const onAbort = () => finish({ kind: "eof" }, "");
    const onData = (chunk: Buffer | string) => {
      for (const char of typeof chunk === "string" ? chunk : chunk.toString("utf8")) {
        if (char === CTRL_C) return finish({ kind: "interrupt" }, "^C");
        if (char === CTRL_D) return finish({ kind: "eof" }, "");
        if (char === "\r" || char === "\n") {
          if (typed !== "") return finish({ kind: "line", text: typed }, "");
          continue;
        }
        if (BACKSPACES.has(char)) {
          if (typed !== "") {
            typed = [...typed].slice(0, -1).join("");
            output.write("\b \b");
          }
          continue;
        }
        if (char < " ") continue;
        if (typed === "" && options.keys.includes(char.toLowerCase())) {
          // The rest of the chunk (an Enter typed with the key) is dropped with it.
          return finish({ kind: "line", text: char.toLowerCase() }, char);
        }
        typed += char;
        output.write(char);
      }
    };
    if (options.signal?.aborted) {
      resolve({ kind: "eof" });
      return;
    }
    options.signal?.addEventListener("abort", onAbort, { once: true });
    setRawMode(true);
    input.on("data", onData);
    input.resume();
    output.write(options.prompt);
  });
}
