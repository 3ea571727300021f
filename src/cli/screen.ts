/**
 * Terminal output for `code-agent`: colours (NO_COLOR / FORCE_COLOR aware), a spinner, and tool
 * lines that can be rewritten in place once their outcome is known.
 */
import type { Writable } from "node:stream";

/** A writable stream that may be a terminal. */
export type OutputStream = Writable & { isTTY?: boolean; columns?: number; rows?: number };

/** ANSI styling that collapses to plain text when colours are off. */
export interface Style {
  readonly enabled: boolean;
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
}

/**
 * Whether to colour output written to `stream`: `FORCE_COLOR` (anything but `0`/`false`) forces
 * colours on, `FORCE_COLOR=0` forces them off; otherwise a non-empty `NO_COLOR` or `TERM=dumb`
 * turns them off; otherwise colours are on exactly when the stream is a terminal.
 */
export function colorEnabled(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !(force === "0" || force.toLowerCase() === "false");
  if (env.NO_COLOR) return false;
  if (env.TERM === "dumb") return false;
  return stream.isTTY === true;
}

export function createStyle(enabled: boolean): Style {
  const wrap = (open: number, close: number) =>
    enabled ? (text: string) => `\x1b[${open}m${text}\x1b[${close}m` : (text: string) => text;
  return {
    enabled,
    dim: wrap(2, 22),
    bold: wrap(1, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
    magenta: wrap(35, 39),
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escape sequences is the point.
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;

/** `text` without ANSI escape sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

/** Shortens plain `text` to at most `width` characters, ending with `…` when cut. */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return `${chars.slice(0, Math.max(0, width - 1)).join("")}…`;
}

/** A line printed earlier that may be rewritten: where it is, counted in terminal rows. */
export interface LineHandle {
  readonly row: number;
}

const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const SPINNER_INTERVAL_MS = 80;

/**
 * Writes to one output stream and keeps track of the cursor: which row we are on (counting wrapped
 * lines) and whether the cursor is at the start of a line. With `live` (a terminal), it draws a
 * spinner on the empty current line and can rewrite a line printed earlier, as long as it is still
 * on screen; without, it only appends.
 *
 * While a prompt is open ({@link hold}), output is queued and written when the prompt closes, so
 * messages arriving meanwhile do not land on the prompt line; the prompt itself writes through
 * {@link direct}.
 */
export class Screen {
  /** Rows completed so far (the cursor is on row `row`). */
  private row = 0;
  /** Visible characters on the current row. */
  private col = 0;
  private spinnerLabel: string | undefined;
  private spinnerDrawn = false;
  private spinnerFrame = 0;
  private spinnerTimer: NodeJS.Timeout | undefined;
  private holds = 0;
  private bypass = false;
  private readonly queued: (() => void)[] = [];

  constructor(
    readonly out: OutputStream,
    readonly style: Style,
    /** Terminal features: spinner and in-place rewrites. */
    readonly live: boolean,
  ) {}

  /** Terminal width (80 when unknown). */
  get columns(): number {
    return this.out.columns && this.out.columns > 0 ? this.out.columns : 80;
  }

  /** Writes `text` as it is (it may end mid-line). */
  write(text: string): void {
    this.run(() => this.writeNow(text));
  }

  /** Writes `text` as a whole line, starting a new line first if needed. */
  line(text = ""): void {
    this.run(() => {
      if (this.col !== 0) this.writeNow("\n");
      this.writeNow(`${text}\n`);
    });
  }

  /** Ends the current line if the cursor is not at the start of one. */
  ensureLineStart(): void {
    this.run(() => {
      if (this.col !== 0) this.writeNow("\n");
    });
  }

  /**
   * Prints `text` as a line that {@link rewriteOr} can replace later. Call it with one row of text
   * (truncated to the width).
   */
  markedLine(text: string): LineHandle {
    const handle = { row: -1 };
    this.run(() => {
      if (this.col !== 0) this.writeNow("\n");
      handle.row = this.row;
      this.writeNow(`${text}\n`);
    });
    return handle;
  }

  /**
   * Replaces the line at `handle` with `text`, leaving the cursor where it was; when that is not
   * possible (not a terminal, the line scrolled away, the cursor is mid-line) prints `fallback` as a
   * new line instead.
   */
  rewriteOr(handle: LineHandle, text: string, fallback: string): void {
    this.run(() => {
      const up = this.row - handle.row;
      const height = this.out.rows && this.out.rows > 0 ? this.out.rows : 24;
      if (this.live && this.col === 0 && handle.row >= 0 && up >= 1 && up < height) {
        this.clearSpinner();
        this.out.write(`\x1b[${up}A\r\x1b[2K${text}\r\x1b[${up}B`);
        return;
      }
      if (this.col !== 0) this.writeNow("\n");
      this.writeNow(`${fallback}\n`);
    });
  }

  /** Shows the spinner with `label` while waiting (terminal only); `undefined` hides it. */
  spinner(label: string | undefined): void {
    if (!this.live) return;
    this.run(() => {
      this.spinnerLabel = label;
      if (label === undefined) {
        this.clearSpinner();
        clearInterval(this.spinnerTimer);
        this.spinnerTimer = undefined;
        return;
      }
      if (!this.spinnerTimer) {
        this.spinnerTimer = setInterval(() => this.drawSpinner(), SPINNER_INTERVAL_MS);
        this.spinnerTimer.unref();
      }
      this.drawSpinner();
    });
  }

  /** Queues output (and hides the spinner) until the matching {@link release}. Nests. */
  hold(): void {
    this.holds++;
    this.clearSpinner();
  }

  /** Ends a {@link hold}; the last one writes what was queued. */
  release(): void {
    if (this.holds === 0) return;
    this.holds--;
    if (this.holds > 0) return;
    for (const op of this.queued.splice(0)) op();
  }

  /** Runs `fn` with writes going out at once, even while held (for the prompt itself). */
  direct(fn: () => void): void {
    const previous = this.bypass;
    this.bypass = true;
    try {
      fn();
    } finally {
      this.bypass = previous;
    }
  }

  /**
   * Tells the screen that something else (a readline prompt and the user's echoed answer) wrote
   * `visibleLength` characters and a newline.
   */
  noteExternalLine(visibleLength: number): void {
    this.row += Math.max(1, Math.ceil(visibleLength / this.columns));
    this.col = 0;
  }

  /** Stops the spinner for good, writes anything queued and ends the current line. */
  close(): void {
    this.holds = 0;
    for (const op of this.queued.splice(0)) op();
    this.spinner(undefined);
    this.ensureLineStart();
  }

  private run(op: () => void): void {
    if (this.holds > 0 && !this.bypass) this.queued.push(op);
    else op();
  }

  private writeNow(text: string): void {
    if (text === "") return;
    this.clearSpinner();
    this.out.write(text);
    this.track(text);
  }

  private drawSpinner(): void {
    if (this.spinnerLabel === undefined || this.holds > 0 || this.col !== 0) return;
    const frame = SPINNER_FRAMES[this.spinnerFrame++ % SPINNER_FRAMES.length] ?? "";
    const text = truncate(`${frame} ${this.spinnerLabel}`, this.columns - 1);
    this.out.write(`\r\x1b[2K${this.style.cyan(frame)}${this.style.dim(text.slice(frame.length))}`);
    this.spinnerDrawn = true;
  }

  private clearSpinner(): void {
    if (!this.spinnerDrawn) return;
    this.out.write("\r\x1b[2K");
    this.spinnerDrawn = false;
  }

  private track(text: string): void {
    const plain = stripAnsi(text);
    const width = this.columns;
    for (const ch of plain) {
      if (ch === "\n") {
        this.row++;
        this.col = 0;
      } else if (ch === "\r") {
        this.col = 0;
      } else {
        if (this.col >= width) {
          this.row++;
          this.col = 0;
        }
        this.col++;
      }
    }
  }
}
