/**
 * Drives the `code-agent` command as a user would: through pipes, or through a pseudo-terminal
 * (python3's `pty` module, see run_in_pty.py) for the terminal paths. Output is waited for with a
 * bound, never with fixed sleeps.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const MAIN = join(ROOT, "src", "cli", "main.ts");
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const PTY_HELPER = join(dirname(fileURLToPath(import.meta.url)), "run_in_pty.py");

/** The command line that runs `code-agent` from the sources. */
export function codeAgentCommand(args: string[]): string[] {
  return [process.execPath, "--import", TSX_LOADER, MAIN, ...args];
}

/** `process.env` with the scripted model's env on top and colour switches removed. */
export function cliEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = { ...process.env, ...extra };
  if (!("NO_COLOR" in extra)) delete env.NO_COLOR;
  if (!("FORCE_COLOR" in extra)) delete env.FORCE_COLOR;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences.
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]/g;

/** Output as text: ANSI sequences and carriage returns removed. */
export function plain(text: string): string {
  return text.replace(ANSI, "").replace(/\r/g, "");
}

/** Escape characters made visible as `⎋`, so tests can match ANSI sequences without control characters. */
export function visible(text: string): string {
  return text.replaceAll("\x1b", "⎋");
}

/** A running `code-agent`. */
export class CliProcess {
  /** Everything written to stdout (for a pty: the terminal, stdout and stderr interleaved). */
  stdout = "";
  stderr = "";
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly listeners = new Set<() => void>();

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      this.stdout += d;
      for (const listener of this.listeners) listener();
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      this.stderr += d;
      for (const listener of this.listeners) listener();
    });
    this.exited = new Promise((resolve) => {
      child.on("close", (code, signal) => {
        for (const listener of this.listeners) listener();
        resolve({ code, signal });
      });
    });
  }

  /** Plain-text view of stdout. */
  get text(): string {
    return plain(this.stdout);
  }

  /** Types into the terminal (or writes to stdin). */
  write(data: string): void {
    this.child.stdin.write(data);
  }

  /** Closes stdin. */
  end(): void {
    this.child.stdin.end();
  }

  /**
   * Resolves once the plain-text stdout matches `pattern` `count` times. Rejects after `timeoutMs`
   * (with the output so far), or when the process exits first.
   */
  waitFor(pattern: RegExp | string, { count = 1, timeoutMs = 30_000 } = {}): Promise<void> {
    const matches = () => {
      const text = this.text;
      if (typeof pattern === "string") return text.split(pattern).length - 1 >= count;
      const global = new RegExp(
        pattern.source,
        pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`,
      );
      return [...text.matchAll(global)].length >= count;
    };
    return new Promise((resolve, reject) => {
      let exited = false;
      const check = () => {
        if (matches()) {
          done();
          resolve();
        } else if (exited) {
          done();
          reject(
            new Error(
              `exited before ${String(pattern)} appeared.\n--- stdout ---\n${this.text}\n--- stderr ---\n${this.stderr}`,
            ),
          );
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(
            `timed out waiting for ${String(pattern)}.\n--- stdout ---\n${this.text}\n--- stderr ---\n${this.stderr}`,
          ),
        );
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      void this.exited.then(() => {
        exited = true;
        check();
      });
      this.listeners.add(check);
      check();
    });
  }

  /** Resolves with the exit code, killing the process after `timeoutMs`. */
  async exitCode(timeoutMs = 60_000): Promise<number | null> {
    const timer = setTimeout(() => this.child.kill("SIGKILL"), timeoutMs);
    try {
      const { code } = await this.exited;
      return code;
    } finally {
      clearTimeout(timer);
    }
  }
}

export interface StartOptions {
  env?: Record<string, string>;
  cwd?: string;
}

/** Starts `code-agent args…` with pipes for stdin, stdout and stderr. */
export function startPiped(args: string[], options: StartOptions = {}): CliProcess {
  const [command = "", ...rest] = codeAgentCommand(args);
  return new CliProcess(spawn(command, rest, { env: options.env ?? cliEnv(), cwd: options.cwd ?? ROOT }));
}

/** Runs `code-agent args…` with `input` on stdin (closed after) and waits for it to exit. */
export async function runPiped(
  args: string[],
  options: StartOptions & { input?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = startPiped(args, options);
  proc.child.stdin.end(options.input ?? "");
  const code = await proc.exitCode(options.timeoutMs);
  return { code, stdout: proc.stdout, stderr: proc.stderr };
}

/** Starts `code-agent args…` in a pseudo-terminal of `columns`×`rows`. */
export function startInTerminal(
  args: string[],
  options: StartOptions & { columns?: number; rows?: number } = {},
): CliProcess {
  const env = { TERM: "xterm-256color", ...(options.env ?? cliEnv()) };
  return new CliProcess(
    spawn(
      "python3",
      [
        PTY_HELPER,
        String(options.columns ?? 120),
        String(options.rows ?? 40),
        "--",
        ...codeAgentCommand(args),
      ],
      { env, cwd: options.cwd ?? ROOT },
    ),
  );
}
