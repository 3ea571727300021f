/**
 * Runs a host script in a Node process of its own under `--unhandled-rejections=strict` (the crash
 * and keep-alive cases: the host must exit by itself), bounded: a host still running after
 * `boundMs` is SIGKILLed and the run rejects with what it printed.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..", "..");

/** One host run: how it ended, what it printed, and its last stdout line parsed as JSON. */
export interface StrictHostRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** From the spawn to the end (`settleOn`), in milliseconds. */
  exitMs: number;
  /** `Date.now()` at the end. */
  endedAt: number;
  /** The last stdout line as JSON (hosts print their report last). */
  last: unknown;
}

export interface StrictHostOptions {
  /** Names the run in errors. */
  label: string;
  /** Longest time the host may run. */
  boundMs: number;
  env?: NodeJS.ProcessEnv;
  /** `exit` (the host process ended) or `close` (its stdio closed too). Default `close`. */
  settleOn?: "exit" | "close";
  /** Reject when the last line is not JSON. Default true. */
  requireReport?: boolean;
}

/** Runs `node --unhandled-rejections=strict --import tsx script ...args` from the repository root. */
export function runStrictHost(
  script: string,
  args: readonly string[],
  options: StrictHostOptions,
): Promise<StrictHostRun> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ["--unhandled-rejections=strict", "--import", "tsx", script, ...args],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      ...(options.env ? { env: options.env } : {}),
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    const bound = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `${options.label}: the host did not exit within ${options.boundMs} ms\n${stdout}\n${stderr}`,
        ),
      );
    }, options.boundMs);
    child.on(options.settleOn ?? "close", (code: number | null, signal: NodeJS.Signals | null) => {
      const endedAt = Date.now();
      clearTimeout(bound);
      let last: unknown;
      try {
        last = JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
      } catch {
        if (options.requireReport !== false) {
          reject(
            new Error(`${options.label}: exit ${code ?? signal} without a report\n${stdout}\n${stderr}`),
          );
          return;
        }
      }
      resolve({
        code,
        signal,
        stdout,
        stderr,
        exitMs: Math.round(performance.now() - started),
        endedAt,
        last,
      });
    });
  });
}
